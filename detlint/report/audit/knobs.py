"""Which knobs hide an intermittent failure, and what removing one alone gives.

A test can sit under several knobs (a rerun marker, a job retry, a soft-failed
step); the audit credits each knob with what its removal alone would win back,
and only where the model can tell: see :func:`removals`.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.span import Span
from detlint.compose.test_gate import SKIP_KINDS, XFAIL_KINDS, Knob, TestGate
from detlint.model import Policy
from detlint.report.audit.facts import KnobView

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
    from detlint.readers.ci.facts import CiKnob
    from detlint.readers.project.pytest_configs import PytestConfigs

# Python knobs that retry a failing test; a skip or an xfail hides an intermittent
# failure only where it says the test is flaky (the rules' test, DET201/DET202): one
# for a platform or a known bug is no such knob, and a registered tag or
# pytest-repeat hides nothing.
RETRY_KINDS = frozenset(
    {
        "rerun-marker",
        "flaky-decorator",
        "retry-decorator",
        "config-reruns",
        "config-retries",
        "config-force-flaky",
    }
)
GATE_KINDS = frozenset({*XFAIL_KINDS, *SKIP_KINDS})


def mean(values: Sequence[float]) -> float:
    """The mean (0 for none): a knob's win back is its tests' count times the mean
    gain, so the means are what its row and the headline quote."""
    return math.fsum(values) / len(values) if values else 0.0


def median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def knob_id(span: Span) -> str:
    return f"{span.path}:{span.line}:{span.column}"


def ci_knob_text(knob: CiKnob) -> str:
    return f"{knob.key}: {knob.value} (line {knob.span.line})"


@dataclass
class KnobTally:
    """A knob met while the tests are built: the tests it reaches, and for the
    counted ones (reported, reported without this knob)."""

    kind: str
    description: str
    span: Span
    condition: str
    tests: int = 0
    uncounted: int = 0
    files: int = 0
    counted: list[tuple[float, float]] = field(default_factory=list)
    policies: Counter[tuple[Policy, Policy]] = field(default_factory=Counter)

    def count(self, policy: Policy, after: Policy, reported: float, rate: float) -> None:
        """One test (or test file) whose policy ``policy`` becomes ``after`` without
        this knob alone."""
        self.counted.append((reported, after.reported(rate)))
        self.policies[policy, after] += 1

    def view(self, key: str, snippet: tuple[str, ...]) -> KnobView:
        return KnobView(
            id=key,
            kind=self.kind,
            description=self.description,
            path=self.span.path,
            line=self.span.line,
            condition=self.condition,
            snippet=snippet,
            tests=self.tests,
            files=self.files,
            counted=len(self.counted),
            uncounted=self.uncounted,
            gain=math.fsum(without - reported for reported, without in self.counted),
            reported=mean([reported for reported, _ in self.counted]),
            reported_without=mean([without for _, without in self.counted]),
            policies=self.policies.most_common(1)[0][0] if self.policies else None,
        )


def removals(
    gate: TestGate,
    chosen: CiGate | None,
    python: Sequence[str],
    configs: PytestConfigs,
    cwd: Path,
) -> dict[str, Policy | None]:
    """Each masking knob of a test, and its policy without that knob alone.

    None where that cannot be told: with two masking knobs inside pytest, which one
    applies without the other depends on the plugins' precedence; and a marker
    stands in front of the reruns a config or a command line may set (the test
    then has no knob for them), which would apply once the marker goes.
    """
    inside = gate.policy if chosen is None else chosen.base.policy
    removals: dict[str, Policy | None] = {}
    alone = len(python) == 1 and not reruns_behind_marker(gate, chosen, configs, cwd)
    for key in python:
        if not alone:
            removals[key] = None
        elif chosen is None:
            removals[key] = inside.baseline()
        else:
            removals[key] = chosen.compose(inside.baseline(), chosen.retries, chosen.ci_gate)
    if chosen is not None:
        removals.update(step_removals(chosen))
    return removals


def step_removals(step: CiGate) -> dict[str, Policy]:
    """Each CI knob of a step, and the step's policy without that knob alone (its
    other knobs and the test's own kept).

    A test several steps run is credited to each step's knobs on that step: a soft
    fail on one step and a job retry on another each change what their own step
    reports, whichever step is likeliest to report the test.
    """
    inside = step.base.policy
    removals: dict[str, Policy] = {}
    for knob, _ in step.retries:
        kept = tuple(pair for pair in step.retries if pair[0] is not knob)
        removals[knob_id(knob.span)] = step.compose(inside, kept, step.ci_gate)
    if step.ci_gate is not None:
        removals[knob_id(step.ci_gate.span)] = step.compose(inside, step.retries, None)
    return removals


def reruns_behind_marker(
    gate: TestGate, chosen: CiGate | None, configs: PytestConfigs, cwd: Path
) -> bool:
    """Whether a retry the test's marker overrides is set somewhere (its config, or the
    command line of the CI run shown)."""
    if not any(knob.kind in ("rerun-marker", "flaky-decorator") for knob in gate.knobs):
        return False
    config = configs.of((cwd / gate.test.path).parent)
    settings: tuple[object, ...] = (
        config.reruns,
        config.force_reruns,
        config.retries,
        config.force_flaky,
    )
    if chosen is not None:
        options = chosen.run.options
        settings += (options.reruns, options.force_reruns, options.retries, options.force_flaky)
    return any(setting is not None for setting in settings)


def hides(knob: Knob) -> bool:
    """Whether a knob of a test hides intermittent failures: any retry, and a skip or
    an xfail whose reason or comment says the test is flaky."""
    if knob.kind in RETRY_KINDS or knob.kind == "ignore-flaky":
        return True
    if knob.kind in GATE_KINDS and knob.mark is not None:
        from detlint.compose.option_gates import hook_word
        from detlint.readers.reasons import says_flaky
        from detlint.rules.quarantine_reasons import mark_reason

        mark = knob.mark
        return (says_flaky(mark_reason(mark), mark.comment) or hook_word(mark)) is not None
    return False
