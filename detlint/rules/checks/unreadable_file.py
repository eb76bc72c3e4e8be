"""DET901 unreadable-file: a file detlint could not read or parse, reported and never fatal.

A linter that stops at the first odd file (binary data, invalid YAML, a FIFO) checks
nothing after it; one that skips it silently claims a file it never read is clean.
So every problem a reader met is a finding of its own, and the run goes on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from detlint.base.span import Problem
from detlint.rules.context import finding
from detlint.rules.finding import Finding

WHOLE_FILE = "detlint did not read this file, so no knob in it is checked; the run went on"


def skipped_help(problem: Problem) -> str:
    """What was really skipped: the whole file, or the part the reader left out while
    it read the rest (a YAML line, a document, an unusable setting)."""
    if problem.kept:
        return f"detlint read this file; at most {problem.skipped} was skipped, as the message says"
    if not problem.skipped:
        return WHOLE_FILE
    return f"detlint skipped {problem.skipped} and read the rest of this file; the run went on"


def unreadable_file(problems: Iterable[Problem]) -> Iterator[Finding]:
    """DET901: every file that could not be read or parsed."""
    for problem in problems:
        help = problem.help or skipped_help(problem)
        yield finding("DET901", problem.span, problem.message, help)
