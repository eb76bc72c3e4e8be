"""A failure a script saves in a variable instead of failing with it.

``pytest || TEST_STATUS=FAIL``, ``pytest || failures+=(unit)`` and ``set +e; pytest;
rc=$?`` keep going after the failure. When a later command fails the step on the
variable (``[ -z "$FAILED" ] || exit 1``, ``exit $rc``), the simulation follows it and
nothing is hidden. When the simulation still ends the step with status 0, the variable
may yet be read to some other end: to pick another commit to test, to write an output
a later step acts on, to print a summary. What that does with the failure is beyond
what detlint follows, so such a mask is named with the variable and without a figure.
"""

from __future__ import annotations

import re

from detlint.readers.ci.shell.nodes import Simple
from detlint.readers.ci.shell.state import Reason

_ASSIGNED = re.compile(r"(?<![\w$])([A-Za-z_]\w*)(?:\[[^\]]*\])?\+?=")
# ``rc=$?`` (or ``local rc=$?``) as the command right after the run.
_STATUS_SAVED = re.compile(
    r"[ \t]*(?:;|\n)\s*(?:(?:local|export|declare)\s+)?([A-Za-z_]\w*)=\"?\$\?"
)
_PRINT = re.compile(r"\s*(?:echo|printf)\b")
_SAVED_NOTE = " (the failure is saved in `${}`, which the script reads later)"
_NOTED = re.compile(r" \(the failure is saved in `\$(\w+)`, which the script reads later\)$")


def saved_in(text: str, reason: Reason, target: Simple) -> str | None:
    """The variable that ``reason`` (the construct that keeps ``target``'s failure from
    failing the step) or an ``rc=$?`` right after ``target`` saves the failure in, when
    the text reads it after that; None otherwise."""
    candidates = [
        (match.group(1), reason.end) for match in _ASSIGNED.finditer(text, reason.start, reason.end)
    ]
    after = _STATUS_SAVED.match(text, target.end)
    if after is not None:
        candidates.append((after.group(1), after.end()))
    for name, end in candidates:
        reads = re.finditer(rf"\$(?:\{{[#!]?)?{re.escape(name)}\b", text[end:])
        if any(not _printed(text, end + read.start()) for read in reads):
            return name
    return None


def _printed(text: str, offset: int) -> bool:
    """Whether the read at ``offset`` only prints the value to the log (``echo "rc=$rc"``
    with no redirection on its line): that reports nothing."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    line = text[start : end if end >= 0 else len(text)]
    return _PRINT.match(line) is not None and ">" not in line and "|" not in line


def with_saved(phrase: str, name: str | None) -> str:
    """A mask's phrase, noting the variable the failure is saved in."""
    return phrase if name is None else phrase + _SAVED_NOTE.format(name)


def saved_variable(phrase: str) -> tuple[str, str] | None:
    """(the mask's own phrase, the variable) of a phrase ``with_saved`` noted."""
    match = _NOTED.search(phrase)
    return None if match is None else (phrase[: match.start()], match.group(1))
