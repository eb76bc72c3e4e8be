"""Cut Python source into statement blocks, without parsing it.

The narrowing pass keeps some blocks of a file and drops the rest before the
parser sees it, so it needs the statements at one indentation level: where
each begins, which clauses and decorators belong together, what a block
defines, and where a function's signature ends. A small regex tokenizer
respects strings, comments, brackets and line continuations; when it is unsure
it says so (None), and the caller parses the whole text instead.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable

# A string ends at the first closing quote(s) not escaped by a backslash; the
# loops are unrolled (runs of ordinary characters at once) for speed.
_STRINGS_AND_COMMENTS = (
    r'"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    r"|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
    r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
    r"|\#[^\n]*"
)
_TOKENS = re.compile(_STRINGS_AND_COMMENTS + r"|[()\[\]{}]|\n", re.DOTALL)
_STRING_OR_COMMENT = re.compile(_STRINGS_AND_COMMENTS, re.DOTALL)
# Brackets of any kind as "(" and ")", everything else deleted.
_ONE_KIND = bytes.maketrans(b"[]{}", b"()()")
_ONE_KIND_TEXT = str.maketrans("[]{}", "()()")
_OPEN = ord("(")
_REMOVAL_PASSES = 16
_NOT_BRACKETS = bytes(set(range(256)) - set(b"()[]{}"))
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*\s*(?::[^=\n]*)?=[^=]")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_LEADING_SPACE = re.compile(r"\s*")  # what str.lstrip() removes
_CLAUSE = re.compile(r"(?:else|elif|except|finally)\b")


def statement_starts(text: str, indent: str = "", masked: str | None = None) -> list[int] | None:
    """Offsets where statements at ``indent`` begin; None if the tokenizer is unsure.

    The first entry is always 0 (the text's start, a header for indented text).
    A statement begins after a line break outside strings, comments and
    brackets, and not after a backslash, at a line that starts with ``indent``
    and then code. A Python loop over every token would cost more than
    parsing what is kept, so strings and comments are blanked first and the
    rest is counted with string methods. ``masked`` is ``text`` blanked
    already (a block of a file that was blanked as a whole).
    """
    if masked is None:
        masked = blank_strings(text)
    brackets = masked.encode("utf-8", "surrogatepass").translate(_ONE_KIND, _NOT_BRACKETS)
    if not _balanced(brackets):
        return None  # a bracket closes one never opened, or one stays open
    starts = [0]
    depth = 0
    previous = 0
    opening, closing = _bracket_counts(masked)
    for match in _line_start(indent).finditer(masked):
        position = match.end()
        depth += opening(previous, position) - closing(previous, position)
        previous = position
        if not depth and text[match.start() - 1 : match.start()] != "\\":
            starts.append(position)
    return starts


def _balanced(brackets: bytes) -> bool:
    """Whether every bracket of ``brackets`` (all of one kind) closes one opened before
    it and none stays open. Shallow nesting is resolved by a few passes of removing
    ``()`` (in C); each pass removes one level only, so deep nesting (thousands of
    levels) is counted in one pass instead of taking a pass per level."""
    for _ in range(_REMOVAL_PASSES):
        if b"()" not in brackets:
            return not brackets
        brackets = brackets.replace(b"()", b"")
    depth = 0
    for depth in itertools.accumulate(1 if byte == _OPEN else -1 for byte in brackets):
        if depth < 0:
            return False
    return depth == 0


def _bracket_counts(masked: str) -> tuple[Callable[[int, int], int], Callable[[int, int], int]]:
    """Counters of opening and of closing brackets of every kind in a span.

    ASCII text is translated to one kind of bracket once (CPython's fast path),
    so a line costs two counts instead of six; other text is counted kind by kind
    (translating it character by character would cost more than it saves).
    """
    if masked.isascii():
        count = masked.translate(_ONE_KIND_TEXT).count
        return functools.partial(count, "("), functools.partial(count, ")")
    count_text = masked.count

    def opening(start: int, end: int) -> int:
        return (
            count_text("(", start, end) + count_text("[", start, end) + count_text("{", start, end)
        )

    def closing(start: int, end: int) -> int:
        return (
            count_text(")", start, end) + count_text("]", start, end) + count_text("}", start, end)
        )

    return opening, closing


def _blank(match: re.Match[str]) -> str:
    """A string or comment token as filler of the same length, without brackets,
    quotes or line breaks (a comment keeps its ``#``)."""
    token = match.group()
    return ("#" if token[0] == "#" else "_") + "_" * (len(token) - 1)


@functools.lru_cache(maxsize=16)
def _line_start(indent: str) -> re.Pattern[str]:
    return re.compile(rf"\n(?={re.escape(indent)}[^ \t\r\n#])")


def top_level_starts(text: str) -> list[int] | None:
    """Offsets where top-level statements begin; None if the text defeats the tokenizer."""
    return statement_starts(text)


def split_blocks(text: str, starts: list[int], indent: str = "") -> list[str]:
    """Statements at one level; decorators join the definition they decorate and
    ``else``/``except``/``finally`` clauses join the statement they continue."""
    ends = [*starts[1:], len(text)]
    blocks: list[str] = []
    pending = ""
    for start, end in zip(starts, ends, strict=True):
        block = text[start:end]
        body = block[len(indent) :]
        if body.startswith("@"):
            pending += block
        elif blocks and not pending and _CLAUSE.match(body):
            blocks[-1] += block
        else:
            blocks.append(pending + block)
            pending = ""
    if pending:
        blocks.append(pending)
    return blocks


@functools.lru_cache(maxsize=16)
def _head_pattern(indent: str) -> re.Pattern[str]:
    return re.compile(rf"^{re.escape(indent)}(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.M)


def definition_head(block: str) -> re.Match[str] | None:
    """The ``def``/``class`` line of a (possibly decorated) definition block.

    Decorators may span lines (``@case(a,\n       b)``), so the head is the
    first line at the block's own indentation that starts a definition.
    """
    leading = _LEADING_SPACE.match(block)
    first = leading.end() if leading is not None else 0
    if not block.startswith(("@", "def", "class", "async"), first):
        return None
    indent = block[block.rfind("\n", 0, first) + 1 : first]
    return _head_pattern(indent).search(block)


def defined_name(block: str, head: re.Match[str] | None) -> str | None:
    """The name a block defines: a function, a class or an assigned variable
    (``head`` is the block's ``definition_head``, which callers have at hand)."""
    if head is not None:
        return head.group(2)
    stripped = block.lstrip()
    if _ASSIGNMENT.match(stripped):
        target = IDENTIFIER.match(stripped)
        return target.group() if target else None
    return None


def split_def(block: str, head: re.Match[str] | None) -> tuple[str, str] | None:
    """(header, body) of a function block whose body starts on its own line.

    The header is the decorators and the signature up to its line end; the
    signature may span lines (brackets are respected). None for anything else.
    ``head`` is the block's ``definition_head``.
    """
    if head is None or head.group(1) != "def":
        return None
    depth = 0
    comment_start: int | None = None
    for match in _TOKENS.finditer(block, head.start()):
        token = match.group()
        if token == "\n" and depth == 0:
            signature = block[head.start() : comment_start or match.start()].rstrip()
            if not signature.endswith(":"):
                return None  # a one-line body: nothing to cut
            return block[: match.end()], block[match.end() :]
        comment_start = match.start() if token.startswith("#") else None
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
    return None


def blank_strings(text: str) -> str:
    """``text`` with every string and comment blanked to filler of the same length:
    what is left is code, so brackets and keywords in it are real."""
    return _STRING_OR_COMMENT.sub(_blank, text)
