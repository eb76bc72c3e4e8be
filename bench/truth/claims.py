"""detlint's claim for a scenario: the numbers it prints, read from its JSON output.

The claim is the ``reported`` share of the finding on the knob (``check``); when
``check`` prints no finding with numbers, the per-test composed policy from
``audit`` is the claim; when neither gives a number, there is no claim.

A finding about the project's tests counts before one about a test it has not got
(``numbers.instances`` None: DET104's "a test failing 10% of its attempts" for a
setting every test of the project overrides with its own marker). When there is no
claim, the message carries why audit's CI knobs gave no finding, if they say.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.truth.scenario import Scenario

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Claim:
    reported: float | None
    source: str  # a rule code, "audit", or "none"
    trials: int | None
    message: str
    codes: tuple[str, ...]


def _detlint(command: str, root: Path) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    args = [sys.executable, "-m", "detlint", command, "--output-format", "json", "--no-cache"]
    result = subprocess.run(
        [*args, str(root)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300
    )
    if not result.stdout.strip():
        raise RuntimeError(f"detlint {command} printed nothing:\n{result.stderr[-2000:]}")
    data: dict[str, object] = json.loads(result.stdout)
    return data


def read_claim(root: Path, code: str = "") -> Claim:
    """The claim of the project at ``root``; ``code``: that rule's finding alone counts."""
    findings = _detlint("check", root).get("findings", [])
    assert isinstance(findings, list)
    codes = tuple(sorted({str(f["code"]) for f in findings}))
    if code:
        findings = [f for f in findings if f["code"] == code]
    numbered = [f for f in findings if "reported" in (f.get("numbers") or {})]
    linked = [f for f in numbered if f["numbers"].get("instances") is not None]
    numbered = linked or numbered
    if numbered:
        chosen = min(numbered, key=lambda f: f["numbers"]["reported"])
        numbers = chosen["numbers"]
        return Claim(
            numbers["reported"], chosen["code"], numbers.get("trials"), chosen["message"], codes
        )
    message = "; ".join(f"{f['code']}: {f['message']}" for f in findings)
    audit = _detlint("audit", root)
    tests = audit.get("tests", [])
    assert isinstance(tests, list)
    for test in tests:
        numbers = test.get("numbers") or {}
        if "reported" in numbers:
            trials = (test.get("trials") or {}).get("count")
            return Claim(numbers["reported"], "audit", trials, message, codes)
    return Claim(None, "none", None, message or _unjudged_ci(audit), codes)


def _unjudged_ci(audit: dict[str, object]) -> str:
    """Why audit's CI knobs gave no finding, as it says: "`--reruns 2`: <reason>"."""
    knobs = (audit.get("ci") or {}).get("knobs", [])  # type: ignore[union-attr]
    return "; ".join(
        f"audit: `{knob['value']}` {knob['verdict']}: {knob['reason']}"
        for knob in knobs
        if knob.get("reason")
    )


def message_problems(scenario: Scenario, claim: Claim) -> list[str]:
    """What the message (or the numbers) say that the scenario did not write."""
    problems = []
    if claim.source not in ("audit", "none"):
        for text in scenario.expect_text:
            if text not in claim.message:
                problems.append(f"message lacks {text!r}")
    if claim.trials is not None and claim.trials != scenario.trials:
        problems.append(f"trials {claim.trials} != {scenario.trials}")
    return problems
