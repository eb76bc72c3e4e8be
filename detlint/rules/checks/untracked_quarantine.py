"""DET201 untracked-quarantine: a non-strict xfail that quarantines a flaky test and
names no issue that tracks it.
"""

from __future__ import annotations

from collections.abc import Iterator

from detlint.base.percentages import percent, percent_label
from detlint.readers.reasons import says_flaky, tracking_reference
from detlint.rules.context import (
    RuleContext,
    covers,
    finding,
    group_by_knob,
    trials_phrase,
)
from detlint.rules.finding import Finding
from detlint.rules.fix_plans import tracking_reason_plan
from detlint.rules.quarantine_reasons import (
    checks_run_first,
    costliest_quarantined,
    mark_reason,
    quarantine_where,
    shown_reason,
)


def untracked_quarantine(context: RuleContext) -> Iterator[Finding]:
    """DET201: a non-strict xfail that quarantines a flaky test and names no issue."""
    groups = group_by_knob(context.gates, ("xfail",))
    for span, (knob, gates) in sorted(groups.items()):
        mark = knob.mark
        assert mark is not None
        reason = mark_reason(mark)
        word = says_flaky(reason, mark.comment, tuple(gate.test.name for gate in gates))
        if word is None:
            continue  # an expected failure, not a quarantine of a flaky test
        if tracking_reference(reason, context.tracking_pattern) or tracking_reference(
            mark.comment, context.tracking_pattern
        ):
            continue
        gate, numbers = costliest_quarantined(gates, knob, context)
        q = percent_label(context.reference_rate)
        by_default = "" if mark.has_keyword("strict") else " (non-strict by default)"
        what = "pytest.xfail()" if mark.kind == "xfail-call" else f"xfail{by_default}"
        said = f'reason "{shown_reason(reason)}"' if reason else f'comment "{mark.comment}"'
        first = checks_run_first(mark)
        shown = (
            f"it comes before every check, so the checks never run: a {q} violation is "
            "never seen and"
            if mark.among_checks == "first"
            else f"{first}; it hides the checks after it: a {q} violation in those shows as "
            f"XFAIL {percent(numbers.visible)} of the time but"
            if first
            else f"a {q} violation shows as XFAIL {percent(numbers.visible)} of the time but"
        )
        yield finding(
            "DET201",
            span,
            f"{what} quarantines a test as {word!r}{quarantine_where(knob)} with no tracking issue "
            f"({said}): {shown} never fails the build (was reported "
            f"{percent(numbers.reported_without)}; {trials_phrase(gate.test)}"
            f"{covers(gates, span)})",
            'name the issue that tracks it: reason="https://.../issues/123" or "#123" '
            "(the pattern is configurable: tracking-issue-pattern)",
            numbers,
            fix=tracking_reason_plan(mark, span, context.quarantine_reason, reason),
        )
