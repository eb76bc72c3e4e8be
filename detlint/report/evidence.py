"""``detlint evidence`` as text, JSON and Markdown, from one ``EvidenceView``.

Text and Markdown say, for each test that failed an attempt or runs under a knob
that hides failures, what the builds measured and what that means; the tests
that never failed and have no such knob are one line. JSON lists every test.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from detlint import __version__
from detlint.base.percentages import percent, percent_label
from detlint.evidence.sentences import builds, green, hidden, interval, measured, worth_saying
from detlint.evidence.view import EvidenceView, TestEvidence
from detlint.model.evidence import RateEstimate

EVIDENCE_SCHEMA = "detlint.evidence/1"
MARKDOWN_ROWS = 50


def _summary(view: EvidenceView) -> list[str]:
    lines = [f"{builds(view.builds)} read, {len(view.tests)} tests"]
    if view.first is not None and view.last is not None:
        lines[0] += f" (from {view.first:%Y-%m-%d %H:%M} to {view.last:%Y-%m-%d %H:%M})"
    if view.infrastructure:
        lines.append(
            f"{len(view.infrastructure)} set apart as infrastructure failures (over "
            f"{percent_label(view.threshold)} of their tests failed): "
            + ", ".join(view.infrastructure[:5])
            + (", ..." if len(view.infrastructure) > 5 else "")
        )
    flaky = sum(1 for test in view.tests if test.flaky_passes)
    if flaky:
        lines.append(f"{flaky} test{'s' if flaky != 1 else ''} passed only after a rerun")
    return lines


def render_text(view: EvidenceView, problems: Sequence[str] = (), quiet: bool = False) -> str:
    """The summary, each test worth a look, a line for the rest, and the reports not
    read; ``quiet``: the tests worth a look and nothing else."""
    out = [] if quiet else [f"detlint evidence: {'; '.join(_summary(view))}", ""]
    said = [test for test in view.tests if worth_saying(test)]
    for test in said:
        out.append(test.test + (f"  ({test.matched})" if test.matched else ""))
        for line in (measured(test), hidden(test), green(test)):
            if line:
                out.append(f"  {line}")
        out.append("")
    rest = 0 if quiet else len(view.tests) - len(said)
    if rest:
        one = rest == 1
        known = any(test.policy is not None for test in view.tests)
        out.append(
            f"{rest} more test{'' if one else 's'} never failed an attempt"
            + (
                f" and {'runs' if one else 'run'} under no knob that hides failures"
                if known
                else ""
            )
            + "."
        )
    out += [f"not read: {problem}" for problem in problems]
    text = "\n".join(out).rstrip()
    return text + "\n" if text else ""


def _rate_json(rate: RateEstimate) -> dict[str, Any]:
    return {
        "rate": rate.rate,
        "count": rate.mismatches,
        "of": rate.trials,
        "low": rate.low,
        "high": rate.high,
        "confidence": rate.confidence,
        "method": "wilson",
    }


def _test_json(test: TestEvidence) -> dict[str, Any]:
    return {
        "test": test.test,
        "matched": test.matched,
        "builds": test.builds,
        "attempts": test.attempts,
        "first_failures": test.first_failures,
        "flaky_passes": test.flaky_passes,
        "hard_failures": test.hard_failures,
        "expected_failures": test.expected_failures,
        "rate": {**_rate_json(test.rate), "basis": test.basis},
        "trials": test.trials,
        "per_trial": None if test.per_trial is None else _rate_json(test.per_trial),
        "flip_rate": test.flip_rate,
        "flips": test.flips,
        "pairs": test.pairs,
        "policy": None if test.policy is None else test.policy.describe(),
        "knobs": test.policy_text or None,
        "reported": test.reported,
        "green": test.green,
        "green_bound": test.green_bound,
        "green_bound_without": test.green_bound_without,
    }


def render_json(view: EvidenceView, problems: Sequence[str] = ()) -> str:
    document = {
        "schema": EVIDENCE_SCHEMA,
        "version": __version__,
        "builds": view.builds,
        "infrastructure_failures": list(view.infrastructure),
        "infrastructure_share": view.threshold,
        "tests": [_test_json(test) for test in view.tests],
        "problems": list(problems),
    }
    return json.dumps(document, indent=2) + "\n"


def render_markdown(view: EvidenceView, problems: Sequence[str] = ()) -> str:
    from detlint.report.audit.markdown import cell, code

    out = ["## detlint evidence", "", cell("; ".join(_summary(view))) + ".", ""]
    said = [test for test in view.tests if worth_saying(test)]
    if said:
        out += [
            "| Test | Builds | Needed a rerun | Failed | Per-attempt rate [95%] | Reported under "
            "its knobs |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for test in said[:MARKDOWN_ROWS]:
            reported = "" if test.reported is None else percent(test.reported)
            out.append(
                f"| {code(test.test)} | {test.builds} | {test.flaky_passes} | "
                f"{test.hard_failures} | {interval(test)} | "
                f"{cell(reported + (' (' + test.policy_text + ')' if test.policy_text else ''))} |"
            )
        if len(said) > MARKDOWN_ROWS:
            out += ["", f"{len(said) - MARKDOWN_ROWS} more tests are in the JSON output."]
    out += [f"- not read: {cell(problem)}" for problem in problems]
    return "\n".join(out).rstrip() + "\n"
