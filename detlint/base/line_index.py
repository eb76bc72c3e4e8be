"""Offsets into a text as 1-based lines and columns, and back: the one line index.

Every reader points findings at lines and columns, and every fix edits by offset,
so they all turn one into the other. Which characters end a line depends on who
counts: Python's parser, and spans, end a line at ``\\n``, ``\\r\\n`` or a lone
``\\r`` (``universal``); YAML marks and shell text count ``\\n`` alone. Columns
count characters.

Most texts are asked about a few points only (a shell command's one pytest run),
so with ``\\n`` alone the first few points are counted in the text, and the line
starts are listed (and searched by bisection) only for a text asked about more.
"""

from __future__ import annotations

import bisect
import re

_UNIVERSAL = re.compile(r"\r\n?|\n")
_NEWLINE = re.compile(r"\n")
_COUNTED_POINTS = 8  # points counted in a ``\n`` text before its line starts are listed


class LineIndex:
    """The lines of ``text``; ``universal``: ``\\r\\n`` and a lone ``\\r`` end a line too."""

    __slots__ = ("_counted", "_pattern", "_starts", "text")

    def __init__(self, text: str, *, universal: bool = False) -> None:
        self.text = text
        self._pattern = _UNIVERSAL if universal else _NEWLINE
        self._starts: list[int] | None = None
        self._counted = -1 if universal else 0  # -1: never counted, always listed

    @property
    def starts(self) -> list[int]:
        """The offset of the first character of each line."""
        if self._starts is None:
            self._starts = [0, *(match.end() for match in self._pattern.finditer(self.text))]
        return self._starts

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of ``offset``."""
        if self._starts is None and 0 <= self._counted < _COUNTED_POINTS:
            self._counted += 1
            text = self.text
            line_start = text.rfind("\n", 0, offset) + 1
            return text.count("\n", 0, offset) + 1, offset - line_start + 1
        starts = self.starts
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    def line_start(self, line: int) -> int:
        """The offset where 1-based ``line`` starts."""
        return self.starts[line - 1]

    def line_end(self, line: int) -> int:
        """The offset just after ``line``'s end of line (the text's end for the last)."""
        starts = self.starts
        return starts[line] if line < len(starts) else len(self.text)

    def line_count(self) -> int:
        return len(self.starts)
