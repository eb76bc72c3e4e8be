"""A narrowed file: the kept blocks joined into one text, and its lines mapped back.

The parser sees only the text ``narrowing.py`` kept; every position it reports is
a line of that text, which ``Narrowed.original_line`` turns back into the file's
own (kept lines are kept whole, so columns need no map).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass


@dataclass(frozen=True)
class Narrowed:
    """The kept blocks, joined, and how to map their lines back to the file's.

    ``shifts`` holds (first line in ``text``, original line - that line) for
    each kept piece, in order.
    """

    text: str
    shifts: tuple[tuple[int, int], ...]

    def original_line(self, line: int) -> int:
        index = bisect.bisect_right(self.shifts, (line, float("inf"))) - 1
        return line + self.shifts[max(index, 0)][1]


def join_pieces(pieces: list[tuple[int, str]], newline: str) -> Narrowed:
    texts: list[str] = []
    shifts: list[tuple[int, int]] = []
    new_line = 1
    for original_line, piece in pieces:
        # Trailing blank lines are dropped too: nothing in them is read.
        text = piece.rstrip() + newline
        shifts.append((new_line, original_line - new_line))
        texts.append(text)
        new_line += text.count("\n")
    return Narrowed("".join(texts), tuple(shifts))
