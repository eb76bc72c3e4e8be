"""Edits: replace a range of one file's text, and the fix they make up together.

Offsets count characters of the decoded text (line ends kept, a BOM not
counted), like the spans; the JSON and SARIF outputs add byte offsets into the
file as stored, which :class:`~detlint.fixes.source_text.SourceText` computes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import NamedTuple

from detlint.rules.plans import Applicability


@dataclass(frozen=True, order=True)
class Edit:
    """Replace ``text[start:end]`` of ``path`` (as displayed) by ``content``."""

    path: str
    start: int
    end: int
    content: str


class Where(NamedTuple):
    """Where an edit's range is, as the outputs give it: 1-based lines and columns in
    characters (as findings count them), and byte offsets in the file as stored."""

    line: int
    column: int
    end_line: int
    end_column: int
    start_byte: int
    end_byte: int


@dataclass(frozen=True)
class Fix:
    """A plan made concrete: its edits, all applied or none, and where each one is
    (``where[i]`` for ``edits[i]``, worked out from the text the edits were made on)."""

    message: str
    applicability: Applicability
    edits: tuple[Edit, ...]
    placeholder: str | None = None
    where: tuple[Where, ...] = ()

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(sorted({edit.path for edit in self.edits}))


class Declined(Exception):
    """A builder cannot make a plan's edits safely; the message says why, for the user."""


def apply_edits(text: str, edits: tuple[Edit, ...] | list[Edit]) -> str:
    """``text`` with non-overlapping ``edits`` (of one file) applied.

    Raises ``Declined`` when two edits overlap: they cannot both be applied
    as written, and guessing an order could corrupt the file.
    """
    ordered = sorted(edits, key=lambda edit: (edit.start, edit.end))
    for before, after in itertools.pairwise(ordered):
        if after.start < before.end or (after.start == before.start == after.end == before.end):
            raise Declined("two edits overlap")
    parts, position = [], 0
    for edit in ordered:
        parts.append(text[position : edit.start])
        parts.append(edit.content)
        position = edit.end
    parts.append(text[position:])
    return "".join(parts)
