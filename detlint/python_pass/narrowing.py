"""Parse no more than needed: keep only the blocks of a test file that can matter.

A candidate test file is typically hundreds of lines (real suites reach
400 KB) of which one decorated function holds the knob. libcst parses about
0.4 MB/s, so parsing whole files would make the Python pass slower than a
full-parse linter. Instead the file is cut into top-level blocks with a small
regex tokenizer (strings, comments and brackets are respected), and only
blocks that can matter are kept: imports, blocks holding a knob or trial
token, blocks using a name that stands for a knob, and the definitions kept
blocks refer to (fixtures, helpers, trial constants, parametrize tables).
Inside a kept test class the same cut is made among its members.

Dropped blocks are removed, not blanked (libcst makes a node of every blank
line), and a line map translates positions back to the file's own lines.
When the cut cannot be trusted the caller parses the whole file.
"""

from __future__ import annotations

import bisect
import functools
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
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_CLAUSE = re.compile(r"(?:else|elif|except|finally)\b")
_TRIAL_HINTS = ("range(", "getenv", "environ")
# What a test body can hold that detlint reads: trial loops, env reads, imperative
# skip/xfail calls.
_BODY_HINTS = (*_TRIAL_HINTS, "skip(", "xfail(", "applymarker(")
# Imported names that are never aliases of a knob by themselves.
_COMMON_WORDS = frozenset({"pytest", "mark", "as", "os", "import"})

Wanted = Callable[[str], bool]


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


def statement_starts(text: str, indent: str = "") -> list[int] | None:
    """Offsets where statements at ``indent`` begin; None if the tokenizer is unsure.

    The first entry is always 0 (the text's start, a header for indented text).
    """
    starts = [0]
    depth = 0
    width = len(indent)
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token == "\n":
            if depth:
                continue
            position = match.end()
            if (
                position + width < len(text)
                and text.startswith(indent, position)
                and text[position + width] not in " \t\r\n#"
                and not (match.start() > 0 and text[match.start() - 1] == "\\")
            ):
                starts.append(position)
        elif token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
            if depth < 0:
                return None
    return starts if depth == 0 else None


def top_level_starts(text: str) -> list[int] | None:
    """Offsets where top-level statements begin; None if the text defeats the tokenizer."""
    return statement_starts(text)


def _blocks(text: str, starts: list[int], indent: str = "") -> list[str]:
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


def _head(block: str) -> re.Match[str] | None:
    """The ``def``/``class`` line of a (possibly decorated) definition block.

    Decorators may span lines (``@case(a,\n       b)``), so the head is the
    first line at the block's own indentation that starts a definition.
    """
    stripped = block.lstrip()
    if not stripped.startswith(("@", "def", "class", "async")):
        return None
    indent = block[: len(block) - len(stripped)]
    indent = indent[indent.rfind("\n") + 1 :]
    return _head_pattern(indent).search(block)


def _defined_name(block: str) -> str | None:
    """The name a block defines: a function, a class or an assigned variable."""
    head = _head(block)
    if head is not None:
        return head.group(2)
    stripped = block.lstrip()
    if _ASSIGNMENT.match(stripped):
        target = _IDENTIFIER.match(stripped)
        return target.group() if target else None
    return None


def _can_matter(block: str) -> bool:
    """Whether a definition a kept block uses can change its facts.

    Assignments (trial constants, parametrize tables, aliases) always can; a
    function or class only if it loops or reads the environment (a trial helper,
    a fixture returning a trial count). Others (assertion helpers, base
    classes) are left out, which keeps large real suites cheap to parse.
    """
    if _head(block) is None:
        return True
    return any(token in block for token in _TRIAL_HINTS)


def _referenced_closure(
    keep: list[bool],
    identifiers: list[set[str]],
    defined: list[str | None],
    extra: set[str],
    candidates: list[bool],
) -> list[bool]:
    """Grow ``keep`` with the definitions kept blocks use, a few levels deep."""
    for _ in range(4):
        referenced = set(extra).union(*(w for w, k in zip(identifiers, keep, strict=True) if k))
        grown = [
            k or (n is not None and c and n in referenced)
            for k, n, c in zip(keep, defined, candidates, strict=True)
        ]
        if grown == keep:
            break
        keep = grown
    return keep


def _class_members(block: str, wanted: Wanted) -> list[tuple[int, str]] | None:
    """The pieces of a kept class worth parsing, as (line offset, text); None for all.

    The header (decorators, the class line, its docstring) is always kept; the
    whole class is kept when the header or a class ``pytestmark`` holds a knob,
    because then every test method carries it.
    """
    head = _head(block)
    if head is None or head.group(1) != "class":
        return None
    lines = block.split("\n")
    header_end = block.count("\n", 0, head.start())
    body_line = next(
        (
            line
            for line in lines[header_end + 1 :]
            if line.strip() and not line.lstrip().startswith("#")
        ),
        None,
    )
    if body_line is None:
        return None
    indent = body_line[: len(body_line) - len(body_line.lstrip())]
    if not indent:
        return None
    starts = statement_starts(block, indent)
    if starts is None or len(starts) < 3:
        return None
    header, *members = _blocks(block, starts, indent)
    if wanted(header):
        return None
    stripped = [member.lstrip() for member in members]
    if any(
        s.startswith("pytestmark") and wanted(m) for s, m in zip(stripped, members, strict=True)
    ):
        return None
    keep = [
        wanted(member) or not s.startswith(("def ", "async ", "@"))
        for member, s in zip(members, stripped, strict=True)
    ]
    identifiers = [set(_IDENTIFIER.findall(member)) for member in members]
    defined = [_defined_name(member) for member in members]
    candidates = [_can_matter(member) for member in members]
    keep = _referenced_closure(
        keep, identifiers, defined, set(_IDENTIFIER.findall(header)), candidates
    )
    if all(keep):
        return None
    pieces = [(0, header)]
    line = header.count("\n")
    for member, kept in zip(members, keep, strict=True):
        if kept:
            pieces.append((line, member))
        line += member.count("\n")
    if len(pieces) == 1:
        # A class kept only because something names it (a base class, a helper)
        # needs no members; `pass` keeps it valid Python.
        pieces.append((header.count("\n"), indent + "pass"))
    return pieces


def _split_def(block: str) -> tuple[str, str] | None:
    """(header, body) of a function block whose body starts on its own line.

    The header is the decorators and the signature up to its line end; the
    signature may span lines (brackets are respected). None for anything else.
    """
    head = _head(block)
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


def _stub_body(block: str, wanted: Wanted, trial_names: set[str]) -> list[tuple[int, str]] | None:
    """A function's header with ``pass`` for a body nothing can be read from.

    A test body matters only for trial loops, imperative skip/xfail calls, calls
    to trial helpers and knob tokens (a mark wrapper); otherwise the decorators
    and signature carry every fact, and the body is the bulk of a large suite.
    """
    split = _split_def(block)
    if split is None:
        return None
    header, body = split
    if wanted(body) or any(hint in body for hint in _BODY_HINTS):
        return None
    if not trial_names.isdisjoint(_IDENTIFIER.findall(body)):
        return None
    first = next((line for line in body.split("\n") if line.strip()), None)
    if first is None:
        return None
    indent = first[: len(first) - len(first.lstrip())]
    return [(0, header), (header.count("\n"), indent + "pass")]


def _with_stubs(
    pieces: list[tuple[int, str]], wanted: Wanted, trial_names: set[str]
) -> list[tuple[int, str]]:
    result: list[tuple[int, str]] = []
    for line, piece in pieces:
        stub = _stub_body(piece, wanted, trial_names)
        if stub is None:
            result.append((line, piece))
        else:
            result += [(line + offset, text) for offset, text in stub]
    return result


def narrow(text: str, wanted: Wanted) -> Narrowed | None:
    """The blocks of ``text`` that can matter, or None to parse it whole.

    ``wanted(block)`` says whether a block holds a knob token. None is returned
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
    defined = [_defined_name(block) for block in blocks]
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
    candidates = [_can_matter(block) for block in blocks]
    keep = _referenced_closure(keep, identifiers, defined, set(), candidates)
    trial_names = {
        name
        for name, block, candidate in zip(defined, blocks, candidates, strict=True)
        if name is not None and candidate and _head(block) is not None
    }
    trial_names |= {
        name for member_names in map(_member_trial_names, blocks) for name in member_names
    }

    pieces: list[tuple[int, str]] = []
    line = 1
    whole = True
    for block, kept in zip(blocks, keep, strict=True):
        if kept:
            members = _class_members(block, wanted)
            if members is None:
                pieces.append((line, block))
            else:
                whole = False
                pieces += [(line + offset, piece) for offset, piece in members]
        else:
            whole = False
        line += block.count("\n")
    stubbed = _with_stubs(pieces, wanted, trial_names)
    if whole and len(stubbed) == len(pieces):
        return None
    return _join(stubbed, "\r\n" if "\r\n" in text else "\n")


_METHOD = re.compile(r"^([ \t]+)(?:async[ \t]+)?def[ \t]+(\w+)", re.M)


def _member_trial_names(block: str) -> set[str]:
    """Methods of a class that loop or read the environment (trial helpers)."""
    if _head(block) is None or not any(hint in block for hint in _TRIAL_HINTS):
        return set()
    heads = list(_METHOD.finditer(block))
    names = set()
    for index, head in enumerate(heads):
        end = next(
            (later.start() for later in heads[index + 1 :] if later.group(1) == head.group(1)),
            len(block),
        )
        if any(hint in block[head.start() : end] for hint in _TRIAL_HINTS):
            names.add(head.group(2))
    return names


def _join(pieces: list[tuple[int, str]], newline: str) -> Narrowed:
    texts: list[str] = []
    shifts: list[tuple[int, int]] = []
    new_line = 1
    for original_line, piece in pieces:
        # Trailing blank lines would each become a libcst node; drop them too.
        text = piece.rstrip() + newline
        shifts.append((new_line, original_line - new_line))
        texts.append(text)
        new_line += text.count("\n")
    return Narrowed("".join(texts), tuple(shifts))
