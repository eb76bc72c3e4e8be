"""Rules on quarantines: DET201 untracked-quarantine, DET202 skipped-flaky.

Both judge a gate by what its reason says. An xfail or skip for a known,
deterministic limitation ("not supported on MPS", "needs a GPU") is no
quarantine, and a maintainer would dismiss a finding on it; one whose reason
or comment says the test is flaky hides a failure that comes and goes.
"""

from __future__ import annotations

from collections.abc import Iterator

from detlint.base.percentages import percent, percent_label
from detlint.compose.test_policy import Knob, TestGate
from detlint.readers.python.facts import Mark
from detlint.readers.reasons import says_flaky, tracking_reference
from detlint.rules.context import (
    RuleContext,
    covers,
    finding,
    group_by_knob,
    loss,
    policy_where,
    trials_phrase,
)
from detlint.rules.finding import Finding, Loss
from detlint.rules.fix_plans import tracking_reason_plan


def mark_reason(mark: Mark) -> str:
    reason = mark.keyword("reason")
    if isinstance(reason, str):
        return reason
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


def _where(knob: Knob) -> str:
    return f" where {knob.condition}" if knob.condition else ""


def _numbers(gate: TestGate, knob: Knob, context: RuleContext) -> Loss:
    """The loss where the gate applies: nothing blocks there; without it the test
    reports as it does where it runs."""
    return loss(gate, context, policy_where(gate, knob))


def _worst(gates: list[TestGate], knob: Knob, context: RuleContext) -> tuple[TestGate, Loss]:
    scored = [(gate, _numbers(gate, knob, context)) for gate in gates]
    return max(
        scored, key=lambda item: (item[1].reported_without - item[1].reported, item[0].label)
    )


def untracked_quarantine(context: RuleContext) -> Iterator[Finding]:
    """DET201: a non-strict xfail that quarantines a flaky test and names no issue."""
    groups = group_by_knob(context.gates, ("xfail",))
    for span, (knob, gates) in sorted(groups.items()):
        mark = knob.mark
        assert mark is not None
        reason = mark_reason(mark)
        word = says_flaky(reason, mark.comment)
        if word is None:
            continue  # an expected failure, not a quarantine of a flaky test
        if tracking_reference(reason, context.tracking_pattern) or tracking_reference(
            mark.comment, context.tracking_pattern
        ):
            continue
        gate, numbers = _worst(gates, knob, context)
        q = percent_label(context.reference_rate)
        by_default = "" if mark.has_keyword("strict") else " (non-strict by default)"
        what = "pytest.xfail()" if mark.kind == "xfail-call" else f"xfail{by_default}"
        said = f'reason "{shown_reason(reason)}"' if reason else f'comment "{mark.comment}"'
        yield finding(
            "DET201",
            span,
            f"{what} quarantines a test as {word!r}{_where(knob)} with no tracking issue "
            f"({said}): a {q} violation shows as XFAIL {percent(numbers.visible)} of the "
            f"time but never fails the build (was reported {percent(numbers.reported_without)}; "
            f"{trials_phrase(gate.test)}{covers(gates)})",
            'name the issue that tracks it: reason="https://.../issues/123" or "#123" '
            "(the pattern is configurable: tracking-issue-pattern)",
            numbers,
            fix=tracking_reason_plan(mark, span, context.quarantine_reason, reason),
        )


def skipped_flaky(context: RuleContext) -> Iterator[Finding]:
    """DET202: a skip whose reason or comment says the test is flaky."""
    groups = group_by_knob(context.gates, ("skip",))
    for span, (knob, gates) in sorted(groups.items()):
        mark = knob.mark
        assert mark is not None
        word = says_flaky(mark_reason(mark), mark.comment)
        if word is None:
            continue
        gate, numbers = _worst(gates, knob, context)
        q = percent_label(context.reference_rate)
        if knob.condition:
            where = f" where {knob.condition}: there it never runs"
        else:
            where = ": it never runs"
        yield finding(
            "DET202",
            span,
            f"test skipped as {word!r}{where}, so a {q} violation is never reported "
            f"(was {percent(numbers.reported_without)}) and nothing shows it "
            f"({trials_phrase(gate.test)}{covers(gates)})",
            "run it under a visible quarantine instead: "
            '@pytest.mark.xfail(strict=False, reason="<tracking issue>")',
            numbers,
        )
