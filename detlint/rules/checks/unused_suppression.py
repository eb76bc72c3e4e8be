"""DET902 unused-suppression: a ``# detlint: ignore`` comment that suppresses nothing in a
run, and codes in brackets that are not rule codes.

A code the run did not select cannot be judged (its findings were never computed), so
it is never reported; a bare ``# detlint: ignore`` is judged only when every rule ran.
"""

from __future__ import annotations

from detlint.base.span import Span
from detlint.rules.catalogue import RULES
from detlint.rules.finding import Finding
from detlint.rules.suppression_comments import IgnoreComment

UNUSED_CODE = "DET902"


def _unused_finding(path: str, comment: IgnoreComment, problems: list[str]) -> Finding:
    info = RULES.get(UNUSED_CODE)
    return Finding(
        code=UNUSED_CODE,
        name=info.name if info is not None else "unused-suppression",
        severity=info.severity if info is not None else "warning",
        span=Span(path, comment.line, comment.column, comment.line, comment.end_column),
        message=f"`# {comment.text}` " + "; ".join(problems),
        help="remove the comment, or the codes in it that no longer apply",
    )


def unused_suppression(
    path: str,
    comment: IgnoreComment,
    used: set[str],
    selected: frozenset[str],
    known: frozenset[str],
) -> Finding | None:
    """A DET902 finding for what in ``comment`` suppressed nothing, or None."""
    where = "on this line or the next" if comment.comment_only else "on this line"
    if comment.codes is None:
        if used or not (known - {UNUSED_CODE}) <= selected:
            return None
        return _unused_finding(path, comment, [f"suppresses nothing: no finding {where}"])
    if not comment.codes:
        return _unused_finding(path, comment, ["names no rule code and suppresses nothing"])
    problems = []
    unknown = [code for code in comment.codes if code not in known]
    if unknown:
        names = ", ".join(unknown)
        problems.append(
            f"names {'an unknown code' if len(unknown) == 1 else 'unknown codes'} {names} "
            "(codes are exact, e.g. DET101)"
        )
    idle = [
        code
        for code in comment.codes
        if code in known and code != UNUSED_CODE and code in selected and code not in used
    ]
    if idle:
        codes = " or ".join(idle)
        if len(idle) == len(comment.codes):
            problems.append(f"suppresses nothing: no {codes} finding {where}")
        else:
            problems.append(f"does not need {codes}: no {codes} finding {where}")
    return _unused_finding(path, comment, problems) if problems else None
