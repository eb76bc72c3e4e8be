"""What a quarantine's reason says, and what the quarantine costs where it applies.

DET201 and DET202 judge a gate by what its reason says. An xfail or skip for a known,
deterministic limitation ("not supported on MPS", "needs a GPU") is no quarantine, and
a maintainer would dismiss a finding on it; one whose reason or comment says the test
is flaky hides a failure that comes and goes.
"""

from __future__ import annotations

import dataclasses

from detlint.compose.test_gate import Knob, TestGate
from detlint.readers.python.facts import Mark
from detlint.rules.context import (
    RuleContext,
    knob_instances,
    loss,
    policy_where,
)
from detlint.rules.finding import Loss


def mark_reason(mark: Mark) -> str:
    reason = mark.keyword("reason")
    if isinstance(reason, str):
        return reason
    message = mark.keyword("msg")  # pytest.skip's keyword before pytest 7 named it reason
    if mark.kind == "skip-call" and isinstance(message, str):
        return message
    positional = mark.positional()
    if mark.kind in ("skip-call", "xfail-call", "skip") and positional:
        first = positional[0]
        return first if isinstance(first, str) else ""
    if mark.kind == "unittest-skip" and positional:
        last = positional[-1] if mark.name != "unittest.skip" else positional[0]
        return last if isinstance(last, str) else ""
    return ""


_LONGEST_REASON = 120


def shown_reason(text: str) -> str:
    """A reason as a one-line message quotes it: its whitespace runs as one space, and
    cut after ``_LONGEST_REASON`` characters (a triple-quoted paragraph is common)."""
    one_line = " ".join(text.split())
    if len(one_line) > _LONGEST_REASON:
        one_line = one_line[: _LONGEST_REASON - 3].rstrip() + "..."
    return one_line


def quarantine_where(knob: Knob) -> str:
    return f" where {knob.condition}" if knob.condition else ""


def quarantine_loss(gate: TestGate, knob: Knob, context: RuleContext) -> Loss:
    """The loss where the gate applies: nothing blocks there; without it the test
    reports as it does where it runs."""
    found = loss(gate, context, policy_where(gate, knob))
    return dataclasses.replace(found, instances=knob_instances(gate, knob.span))


def costliest_quarantined(
    gates: list[TestGate], knob: Knob, context: RuleContext
) -> tuple[TestGate, Loss]:
    scored = [(gate, quarantine_loss(gate, knob, context)) for gate in gates]
    return max(
        scored, key=lambda item: (item[1].reported_without - item[1].reported, item[0].label)
    )


def checks_run_first(mark: Mark) -> str:
    """For a skip or xfail a test calls after some of its checks: those checks ran
    before it, and a violation among them has failed the test before it is reached,
    so it hides only the checks after it. "" when no check surely runs before it."""
    lines = mark.checks_before
    if not lines or mark.kind not in ("skip-call", "xfail-call"):
        return ""
    shown = [str(line) for line in lines]
    listed = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
    return (
        f"the {'check' if len(lines) == 1 else 'checks'} on line{'s' if len(lines) > 1 else ''} "
        f"{listed} run{'s' if len(lines) == 1 else ''} before it and still fail"
        f"{'s' if len(lines) == 1 else ''} the build on a violation"
    )
