"""DET203 expired-quarantine: a skip or xfail whose reason or comment names the day it
ends, and that day has passed.
"""

from __future__ import annotations

from collections.abc import Iterator

from detlint.readers.expiries import expiry_date, today
from detlint.rules.context import RuleContext, covers_clause, finding, group_by_knob
from detlint.rules.finding import Finding
from detlint.rules.quarantine_reasons import mark_reason, quarantine_where, shown_reason

_KINDS = ("skip", "xfail")


def expired_quarantine(context: RuleContext) -> Iterator[Finding]:
    """DET203: a quarantine past the end date it gives itself."""
    now = today()
    groups = group_by_knob(context.gates, _KINDS)
    for span, (knob, gates) in sorted(groups.items()):
        mark = knob.mark
        assert mark is not None
        reason = mark_reason(mark)
        ends = expiry_date(reason, mark.comment)
        if ends is None or ends >= now:
            continue
        days = (now - ends).days
        what = "skip" if knob.kind == "skip" else "xfail"
        said = f'reason "{shown_reason(reason)}"' if reason else f'comment "{mark.comment}"'
        effect = (
            "the test still never runs"
            if knob.kind == "skip"
            else "the test still runs under it and never fails the build"
        )
        yield finding(
            "DET203",
            span,
            f"{what}{quarantine_where(knob)} was to end on {ends.isoformat()}, "
            f"{days} day{'s' if days != 1 else ''} ago ({said}): {effect}"
            f"{covers_clause(gates, span)}",
            "lift it and let the test run (detlint power says how many green runs rule out "
            "the reference rate), or give it a new date and the reason it needs one",
        )
