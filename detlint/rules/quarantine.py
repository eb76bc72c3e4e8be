"""Rules on quarantines: DET201 untracked-quarantine, DET202 skipped-flaky."""

from __future__ import annotations

from collections.abc import Iterator

from detlint.finding import Finding
from detlint.python_pass.facts import Mark
from detlint.reasons import says_flaky, tracking_reference
from detlint.report.numbers import percent, percent_label
from detlint.rules.context import RuleContext, covers, finding, group_by_mark, trials_phrase, worst


def _reason(mark: Mark) -> str:
    reason = mark.keyword("reason")
    if isinstance(reason, str):
        return reason
    if mark.kind in ("skip-call", "xfail-call", "skip") and mark.positional():
        first = mark.positional()[0]
        return first if isinstance(first, str) else ""
    return ""


def untracked_quarantine(context: RuleContext) -> Iterator[Finding]:
    """DET201: a non-strict xfail whose reason names no tracking issue."""
    groups = group_by_mark(context.gates, ("xfail",))
    for span, (mark, gates) in sorted(groups.items()):
        reason = _reason(mark)
        if tracking_reference(reason, context.tracking_pattern) or tracking_reference(
            mark.comment, context.tracking_pattern
        ):
            continue
        gate, numbers = worst(gates, context)
        q = percent_label(context.reference_rate)
        by_default = "" if mark.has_keyword("strict") else " (non-strict by default)"
        what = "pytest.xfail()" if mark.kind == "xfail-call" else f"xfail{by_default}"
        said = f'reason "{reason}"' if reason else "no reason"
        yield finding(
            "DET201",
            span,
            f"{what} with {said} and no tracking issue: a {q} violation shows as XFAIL "
            f"{percent(numbers.visible)} of the time but never fails the build (was reported "
            f"{percent(numbers.reported_without)}; {trials_phrase(gate.test)}{covers(gates)})",
            'name the issue that tracks it: reason="https://.../issues/123" or "#123" '
            "(the pattern is configurable: tracking-issue-pattern)",
            numbers,
        )


def skipped_flaky(context: RuleContext) -> Iterator[Finding]:
    """DET202: a skip whose reason or comment says the test is flaky."""
    groups = group_by_mark(context.gates, ("skip",))
    for span, (mark, gates) in sorted(groups.items()):
        word = says_flaky(_reason(mark), mark.comment)
        if word is None:
            continue
        gate, numbers = worst(gates, context)
        q = percent_label(context.reference_rate)
        when = " when its condition holds" if mark.kind in ("skipif", "skip-call") else ""
        yield finding(
            "DET202",
            span,
            f"test skipped as {word!r}{when}: it never runs, so a {q} violation is never reported "
            f"(was {percent(numbers.reported_without)}) and nothing shows it "
            f"({trials_phrase(gate.test)}{covers(gates)})",
            "run it under a visible quarantine instead: "
            '@pytest.mark.xfail(strict=False, reason="<tracking issue>")',
            numbers,
        )
