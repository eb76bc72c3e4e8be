"""What every rule sees, and the wording that states a knob's cost.

All model-backed findings say the same three things the same way: how often a
violation at the reference rate is reported with the knob and without it, where
the trial count comes from, and the two better alternatives with numbers. The
phrases live here so the rules cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from detlint.finding import Finding, Loss
from detlint.pytest_config import PytestConfig
from detlint.python_pass.facts import Mark, TestFunction
from detlint.report.numbers import percent, percent_label
from detlint.rules.catalogue import RULES
from detlint.span import Span

if TYPE_CHECKING:
    from detlint.ci_link import CiGate, TestRun
    from detlint.ci_pass.facts import CiKnob, CiStep
    from detlint.link import TestGate

QUARANTINE = '@pytest.mark.xfail(strict=False, reason="<tracking issue>")'


@dataclass(frozen=True)
class RuleContext:
    gates: tuple[TestGate, ...]
    configs: tuple[PytestConfig, ...]
    reference_rate: float
    target: float
    tracking_pattern: str
    selected: frozenset[str]
    dependencies_declared: bool = True  # the project has dependency files at all
    ci_knobs: tuple[CiKnob, ...] = ()  # every knob of every pipeline read
    ci_runs: tuple[TestRun, ...] = ()  # every pytest invocation found in a pipeline
    ci_gates: tuple[CiGate, ...] = ()  # every test as each run runs it
    ci_steps: Callable[[CiKnob], Sequence[CiStep]] = lambda knob: ()  # the steps a knob is on


def loss(gate: TestGate, context: RuleContext) -> Loss:
    policy = gate.policy
    q = context.reference_rate
    baseline = policy.baseline()
    return Loss(
        reference_rate=q,
        target=context.target,
        trials=policy.trials,
        trials_env=gate.test.trials.env,
        reported=policy.reported(q),
        reported_without=baseline.reported(q),
        visible=policy.visible(q),
        trials_needed=baseline.trials_needed(q, context.target),
        instances=gate.instances,
    )


def worst(gates: Iterable[TestGate], context: RuleContext) -> tuple[TestGate, Loss]:
    """The gate whose knob costs most at the reference rate (the one a message quotes)."""
    scored = [(gate, loss(gate, context)) for gate in gates]
    return max(
        scored, key=lambda item: (item[1].reported_without - item[1].reported, item[0].label)
    )


def trials_phrase(test: TestFunction) -> str:
    return test.trials.describe()


def covers(gates: Sequence[TestGate]) -> str:
    """The reach of a knob that applies to more than one test instance.

    e.g. "; covers 3 tests, 12 test instances".
    """
    if any(gate.rerun_mark is not None and gate.rerun_mark.scope == "hook" for gate in gates):
        return "; reaches every test the hook marks"
    tests = {gate.label for gate in gates}
    counts = [gate.instances for gate in gates]
    instances = None if any(c is None for c in counts) else sum(c for c in counts if c is not None)
    parts = []
    if len(tests) > 1:
        parts.append(f"{len(tests)} tests")
    if instances is not None and instances > 1:
        parts.append(f"{instances} test instances")
    elif instances is None:
        parts.append("parametrized, instances unknown")
    return f"; covers {', '.join(parts)}" if parts else ""


def loss_phrase(numbers: Loss) -> str:
    q = percent_label(numbers.reference_rate)
    return (
        f"a {q} violation is reported {percent(numbers.reported)} of the time "
        f"instead of {percent(numbers.reported_without)}"
    )


def alternatives(test: TestFunction, numbers: Loss, drop: str) -> str:
    """The help line: more trials (naming the knob to raise) or a visible quarantine."""
    q, target = percent_label(numbers.reference_rate), percent_label(numbers.target)
    needed = numbers.trials_needed
    if needed is None:
        trials = "no trial count reaches the target at this rate"
    elif test.trials.env is not None:
        trials = f"raise {test.trials.env} to {needed}"
    elif test.trials.span is not None:
        trials = f"raise the trial loop from {test.trials.count} to {needed} iterations"
    else:
        trials = f"run {needed} trials per attempt in a loop inside the test"
    reach = f" (reports a {q} violation {target} of the time)" if needed is not None else ""
    return f"{drop} and {trials}{reach}, or quarantine it visibly: {QUARANTINE}"


def finding(
    code: str,
    span: Span,
    message: str,
    help_text: str,
    numbers: Loss | None = None,
    related: Iterable[Span] = (),
    severity: str | None = None,
) -> Finding:
    info = RULES[code]
    return Finding(
        code=code,
        name=info.name,
        severity=severity or info.severity,
        span=span,
        message=message,
        help=help_text,
        loss=numbers,
        related=tuple(sorted(set(related))),
    )


def group_by_mark(
    gates: Iterable[TestGate], kinds: tuple[str, ...]
) -> dict[Span, tuple[Mark, list[TestGate]]]:
    """Gates grouped by the span of the mark (of one of ``kinds``) that shapes them."""
    groups: dict[Span, tuple[Mark, list[TestGate]]] = {}
    for gate in gates:
        for knob in gate.knobs:
            if knob.kind in kinds and knob.mark is not None:
                groups.setdefault(knob.span, (knob.mark, []))[1].append(gate)
    return groups
