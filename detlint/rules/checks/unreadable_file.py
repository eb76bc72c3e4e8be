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


def unreadable_file(problems: Iterable[Problem]) -> Iterator[Finding]:
    """DET901: every file that could not be read or parsed."""
    for problem in problems:
        yield finding(
            "DET901",
            problem.span,
            problem.message,
            problem.help or "detlint skipped this file; the rest of the run went on",
        )
