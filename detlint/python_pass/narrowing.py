"""Parse no more than needed: blank the top-level blocks that cannot matter.

A candidate test file is typically a few hundred lines of which one decorated
function holds the knob. libcst parses about 0.4 MB/s, so parsing whole files
would make the Python pass slower than a full-parse linter. Instead the file is
cut into top-level blocks with a small regex tokenizer (strings, comments and
brackets are respected), and only blocks that can matter are kept: imports,
simple module-level assignments, blocks holding a knob or trial token, and the
functions and classes those blocks name (fixtures, helpers, mark wrappers).
Every other block is dropped, and a line map translates positions back to the
file's own lines. When the cut cannot be trusted the caller parses the whole file.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

_TOKENS = re.compile(
    r'"""(?:\\.|[^\\])*?"""'
    r"|'''(?:\\.|[^\\])*?'''"
    r'|"(?:\\.|[^"\\\n])*"'
    r"|'(?:\\.|[^'\\\n])*'"
    r"|\#[^\n]*"
    r"|[()\[\]{}]"
    r"|\n",
    re.DOTALL,
)
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*\s*(?::[^=\n]*)?=[^=]")
_DEFINITION = re.compile(r"(?:@[^\n]*\n\s*)*(?:async\s+)?(?:def|class)\s+(\w+)")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# Imported names that are never aliases of a knob by themselves.
_COMMON_WORDS = frozenset({"pytest", "mark", "as", "os", "import"})


def top_level_starts(text: str) -> list[int] | None:
    """Offsets where top-level statements begin; None if the text defeats the tokenizer."""
    starts = [0]
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token == "\n":
            if depth == 0:
                position = match.end()
                if position < len(text) and text[position] not in " \t\r\n#":
                    if match.start() > 0 and text[match.start() - 1] == "\\":
                        continue
                    starts.append(position)
        elif token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
            if depth < 0:
                return None
    return starts if depth == 0 else None


def _blocks(text: str, starts: list[int]) -> list[str]:
    """Top-level blocks; decorators are joined to the definition they decorate."""
    raw = [text[start:end] for start, end in zip(starts, [*starts[1:], len(text)], strict=True)]
    blocks: list[str] = []
    pending = ""
    for block in raw:
        if block.startswith("@"):
            pending += block
            continue
        blocks.append(pending + block)
        pending = ""
    if pending:
        blocks.append(pending)
    return blocks


def _defined_name(stripped: str) -> str | None:
    """The name a top-level block defines: a function, a class or an assigned variable."""
    match = _DEFINITION.match(stripped)
    if match:
        return match.group(1)
    if _ASSIGNMENT.match(stripped):
        target = _IDENTIFIER.match(stripped)
        return target.group() if target else None
    return None


@dataclass(frozen=True)
class Narrowed:
    """The kept blocks, joined, and how to map their lines back to the file's.

    ``shifts`` holds (first line in ``text``, original line - that line) for
    each kept block, in order; dropped blocks are removed rather than blanked,
    because libcst turns every blank line into a node of its own.
    """

    text: str
    shifts: tuple[tuple[int, int], ...]

    def original_line(self, line: int) -> int:
        index = bisect.bisect_right(self.shifts, (line, float("inf"))) - 1
        return line + self.shifts[max(index, 0)][1]


def narrow(text: str, wanted: Callable[[str], bool]) -> Narrowed | None:
    """The top-level blocks of ``text`` that can matter, or None to parse it whole.

    ``wanted(block)`` says whether a block holds a knob token. Kept: imports,
    blocks with a token, blocks that use a name standing for a knob (an alias,
    a wrapper), and, transitively, the definitions kept blocks refer to
    (fixtures, helpers, trial constants, parametrize tables). None is returned
    when nothing would be dropped, when the tokenizer is unsure, and when a
    module-level ``pytestmark`` reaches tests that hold no token themselves.
    """
    starts = top_level_starts(text)
    if starts is None or len(starts) < 3:
        return None
    blocks = _blocks(text, starts)
    stripped = [block.lstrip() for block in blocks]
    holds_token = [wanted(block) for block in blocks]
    if any(s.startswith("pytestmark") and w for s, w in zip(stripped, holds_token, strict=True)):
        return None
    identifiers = [set(_IDENTIFIER.findall(block)) for block in blocks]
    defined = [_defined_name(s) for s in stripped]
    # Names that stand for a knob (`gpu_flaky = pytest.mark.flaky(...)`, a wrapper
    # function, an imported alias): a block that uses one is kept, though it
    # holds no token itself (`@gpu_flaky` alone says nothing).
    aliases: set[str] = set()
    for s, name, token in zip(stripped, defined, holds_token, strict=True):
        if not token:
            continue
        if s.startswith(("import ", "from ")):
            aliases.update(_IDENTIFIER.findall(s.split("import", 1)[-1]))
        elif name is not None:
            aliases.add(name)
    aliases -= _COMMON_WORDS
    keep = [
        token
        or s.startswith(("import ", "from "))
        or (s.startswith(("if ", "try:")) and "import" in s)
        or not aliases.isdisjoint(words)
        for s, token, words in zip(stripped, holds_token, identifiers, strict=True)
    ]
    for _ in range(4):  # what kept blocks use: fixtures, helpers, constants, their helpers
        referenced = set().union(*(w for w, k in zip(identifiers, keep, strict=True) if k))
        grown = [
            k or (n is not None and n in referenced) for k, n in zip(keep, defined, strict=True)
        ]
        if grown == keep:
            break
        keep = grown
    if all(keep):
        return None
    newline = "\r\n" if "\r\n" in text else "\n"
    pieces: list[str] = []
    shifts: list[tuple[int, int]] = []
    original_line = new_line = 1
    for block, kept in zip(blocks, keep, strict=True):
        if kept:
            # Trailing blank lines would each become a libcst node; drop them too.
            piece = block.rstrip() + newline
            shifts.append((new_line, original_line - new_line))
            pieces.append(piece)
            new_line += piece.count("\n")
        original_line += block.count("\n")
    return Narrowed("".join(pieces), tuple(shifts))
