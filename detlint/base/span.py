"""Where a fact or finding sits in a file.

Every fact detlint collects carries a span, so that findings can point at the
exact construct, suppressions can match the lines it covers and fixes can edit
it. Lines and columns are 1-based, as editors and SARIF count them; the end is
inclusive of the last character's column + 1 (exclusive end column), like ruff.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Span:
    """A region of one file; ``path`` is as displayed (relative to the working directory)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def whole_line(cls, path: str, line: int, text: str = "") -> Span:
        """The span of line ``line`` whose text is ``text`` (1-based)."""
        return cls(path, line, 1, line, len(text.rstrip("\r\n")) + 1)

    @classmethod
    def file(cls, path: str) -> Span:
        """A span for a whole file, used when a problem has no better location."""
        return cls(path, 1, 1, 1, 1)


@dataclass(frozen=True)
class Problem:
    """A file detlint could not read or parse; reported as DET901, never fatal."""

    span: Span
    message: str
    # What detlint skipped when it read the rest of the file ("line 4", "the document
    # starting at line 9"); empty when the whole file went unread. DET901's help says which.
    skipped: str = ""
    kept: bool = False  # the part may have been read anyway: the message says (a setting)
    # What the finding's help says, when neither of the above says it (a CI command nested
    # too deep: the rest of the pipeline was read).
    help: str = ""

    @classmethod
    def part(cls, span: Span, message: str) -> Problem:
        """A problem with the part of a file the message names (a YAML document skipped,
        an alias read as null); the rest of the file was read."""
        return cls(span, message, "only what the message names")


def unique_problems(problems: Sequence[Problem]) -> tuple[Problem, ...]:
    """Each problem once, and one whole-file problem per file: pyproject.toml is read by
    the dependency reader and by the pytest-config reader, and a broken one is one
    finding, not one per reader."""
    seen: set[str] = set()
    kept: list[Problem] = []
    for problem in dict.fromkeys(problems):
        if problem.span == Span.file(problem.span.path):
            if problem.span.path in seen:
                continue
            seen.add(problem.span.path)
        kept.append(problem)
    return tuple(kept)
