"""Parse no more than needed: keep only the blocks of a test file that can matter.

A candidate test file is typically hundreds of lines (real suites reach
400 KB) of which one decorated function holds the knob. ``ast`` parses a few
MB/s, and the trees it builds are walked in Python; on the benchmark trees,
parsing whole candidate files costs two to four times what cutting them and
parsing the rest does. So the file is cut into top-level blocks with a small
regex tokenizer (strings, comments and brackets are respected), and only
blocks that can matter are kept: imports, blocks holding a knob or trial
token, blocks using a name that stands for a knob, and the definitions kept
blocks refer to (fixtures, helpers, trial constants, parametrize tables).
Inside a kept test class the same cut is made among its members, and test
bodies with nothing to read become ``pass``.

Dropped blocks are removed, not blanked, so the parser sees only the kept
text, and a line map translates positions back to the file's own lines (kept
lines are kept whole, so columns need no map). When the cut cannot be
trusted the caller parses the whole file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from detlint.readers.python.block_levels import Level, Words
from detlint.readers.python.blocks import (
    IDENTIFIER,
    blank_strings,
    split_blocks,
    statement_starts,
)
from detlint.readers.python.body_stubs import (
    CHECK_HINTS,
    Wanted,
    member_trial_names,
    with_stubs,
)
from detlint.readers.python.kept_bases import bases_of_kept, inheriting
from detlint.readers.python.narrowed import Narrowed, join_pieces

# A top-level call that passes a test class (``test_both(Mixin, lock_tests.RLockTests)``):
# it may build more test classes from it at run time (``passed_classes``).
_PASSES_TEST_CLASS = re.compile(r"\w\([^()]*\b\w*(?:Tests?|TestCase)\b\s*[,)]")
_DEFINITIONS = ("def ", "class ", "async ", "@")
# Imported names that are never aliases of a knob by themselves.
_COMMON_WORDS = frozenset({"pytest", "mark", "as", "os", "import"})


def _checked_by_loops(level: Level, keep: list[bool], words: Words) -> list[bool]:
    """``keep`` with the helpers that check something and that a kept block with a
    loop calls: a trial loop that calls a helper which asserts is a trial loop."""
    blocks = level.blocks
    looping = set().union(
        *(words[index] for index, k in enumerate(keep) if k and "range(" in blocks[index])
    )
    return [
        k
        or (
            name is not None
            and name in looping
            and head is not None
            and any(hint in block for hint in CHECK_HINTS)
        )
        for block, k, name, head in zip(blocks, keep, level.defined, level.heads, strict=True)
    ]


def _uses(names: set[str], block: str, words: Words, index: int) -> bool:
    """Whether a block uses one of ``names`` (as a whole identifier); a name
    not even in its text rules it out without finding the block's identifiers."""
    return any(name in block for name in names) and not names.isdisjoint(words[index])


_GUARDED = ("if ", "if(", "try:", "with ")
# A name bound inside a guarded block: `    name = ...`, `    def name(`, `    class name`.
_BOUND_INSIDE = re.compile(
    r"^[ \t]+(?:([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)|(?:async[ \t]+)?(?:def|class)[ \t]+(\w+))",
    re.M,
)


def _bound_in_branches(block: str) -> set[str]:
    """The names an ``if``/``try``/``with`` block binds in its branches: a skip alias
    defined per platform, a fallback for an optional import."""
    return {first or second for first, second in _BOUND_INSIDE.findall(block)}


def _referenced_closure(
    keep: list[bool],
    words: Words,
    defined: Sequence[str | None],
    extra: set[str],
    candidates: list[bool],
    branches: list[set[str]] | None = None,
) -> list[bool]:
    """Grow ``keep`` with the definitions kept blocks use, a few levels deep."""
    bound = branches or [set() for _ in keep]
    for _ in range(4):
        referenced = set(extra).union(*(words[index] for index, k in enumerate(keep) if k))
        grown = [
            k or (c and ((n is not None and n in referenced) or not b.isdisjoint(referenced)))
            for k, n, c, b in zip(keep, defined, candidates, bound, strict=True)
        ]
        if grown == keep:
            break
        keep = grown
    return keep


def _member_indent(block: str, head: re.Match[str] | None) -> str | None:
    """The indentation of a class block's members; None when it is no class or has
    no indented body."""
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
    return body_line[: len(body_line) - len(body_line.lstrip())]


def _class_members(
    block: str, head: re.Match[str] | None, wanted: Wanted, masked: str
) -> list[tuple[int, str]] | None:
    """The pieces of a kept class worth parsing, as (line offset, text); None for all.

    The header (decorators, the class line, its docstring) is always kept; the
    whole class is kept when the header or a class ``pytestmark`` holds a knob,
    because then every test method carries it.
    """
    indent = _member_indent(block, head)
    if not indent:
        return None
    starts = statement_starts(block, indent, masked)
    if starts is None or len(starts) < 3:
        return None
    header, *members = split_blocks(block, starts, indent)
    if wanted(header):
        return None
    stripped = [member.lstrip() for member in members]
    if any(
        s.startswith("pytestmark") and wanted(m) for s, m in zip(stripped, members, strict=True)
    ):
        return None
    keep = [
        wanted(member)
        or not s.startswith(("def ", "async ", "@"))
        or s.startswith("def __init__")  # pytest does not collect a class that has one
        for member, s in zip(members, stripped, strict=True)
    ]
    level = Level.of(members)
    keep = _referenced_closure(
        keep, Words(members), level.defined, set(IDENTIFIER.findall(header)), level.candidates()
    )
    keep = _with_redefinitions(keep, level.defined)
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


def narrow(text: str, wanted: Wanted, imported: frozenset[str] = frozenset()) -> Narrowed | None:
    """The blocks of ``text`` that can matter, or None to parse it whole.

    ``wanted(block)`` says whether a block holds a knob token; ``imported`` are the
    names the file imports from modules that hold one (``@skip_on_win``, a mixin of
    marked tests): a block that uses one is kept, and a class that inherits one whole.
    None is returned when nothing would be dropped, when the tokenizer is unsure, and
    when a module-level ``pytestmark`` reaches tests that hold no token themselves.
    """
    masked = blank_strings(text)
    starts = statement_starts(text, "", masked)
    if starts is None or len(starts) < 3:
        return None
    blocks = split_blocks(text, starts)
    stripped = [block.lstrip() for block in blocks]
    holds_token = [wanted(block) for block in blocks]
    level = Level.of(blocks)
    callables = _named_callables(blocks, holds_token)
    keep = _kept(blocks, stripped, holds_token, level, imported, callables)
    if keep is None:
        return None
    inherited = bases_of_kept(level, keep, wanted) | inheriting(level, imported)
    keep = [k or index in inherited for index, k in enumerate(keep)]
    pieces, whole = _pieces(blocks, keep, inherited, level, wanted, masked)
    # A body that calls an imported name is read too: a retry decorator there
    # retries the checks of the function it calls.
    stubbed = with_stubs(pieces, wanted, _trial_names(blocks, level) | imported, callables)
    if whole and len(stubbed) == len(pieces):
        return None
    return join_pieces(stubbed, "\r\n" if "\r\n" in text else "\n")


def _kept(
    blocks: list[str],
    stripped: list[str],
    holds_token: list[bool],
    level: Level,
    imported: frozenset[str],
    callables: set[str],
) -> list[bool] | None:
    """Which top-level blocks can matter: those holding a token, imports, guarded
    imports, ``__test__``, blocks using a name that stands for a knob, and what kept
    blocks refer to or check with. None when a module ``pytestmark`` (at the top level
    or in a branch of an ``if``/``try``/``with``) can apply a knob, or a top-level
    statement can skip the module: it reaches every test, though they hold no token
    themselves, so the whole file is parsed."""
    words = Words(blocks)
    defined = level.defined
    # Names that stand for a knob (`gpu_flaky = pytest.mark.flaky(...)`, a wrapper
    # function, an imported alias): a block that uses one is kept, though it
    # holds no token itself (`@gpu_flaky` alone says nothing).
    aliases: set[str] = set(imported)
    for s, name, token in zip(stripped, defined, holds_token, strict=True):
        if not token:
            continue
        if s.startswith(("import ", "from ")):
            aliases.update(IDENTIFIER.findall(s.split("import", 1)[-1]))
        elif name is not None:
            aliases.add(name)
    aliases -= _COMMON_WORDS
    branches = [
        _bound_in_branches(block) if s.startswith(_GUARDED) else set()
        for block, s in zip(blocks, stripped, strict=True)
    ]
    if any(
        (s.startswith("pytestmark") or "pytestmark" in branch)
        and (token or _uses(aliases, blocks[index], words, index))
        for index, (s, token, branch) in enumerate(
            zip(stripped, holds_token, branches, strict=True)
        )
    ):
        return None
    if any(_skips_module(s) for s in stripped):
        return None
    keep = [
        token
        or s.startswith(("import ", "from "))
        or (s.startswith(_GUARDED) and ("import" in s or "pytestmark" in branch))
        or s.startswith("__test__")  # a module that opts out of collection
        or _uses(aliases, blocks[index], words, index)
        or (not s.startswith(_DEFINITIONS) and _PASSES_TEST_CLASS.search(s) is not None)
        or "(globals()" in s  # a module-dict installer (``installed_classes``)
        for index, (s, token, branch) in enumerate(
            zip(stripped, holds_token, branches, strict=True)
        )
    ]
    callables = _named_callables(blocks, holds_token)
    candidates = [
        c or name in callables for c, name in zip(level.candidates(), defined, strict=True)
    ]
    keep = _referenced_closure(keep, words, defined, set(), candidates, branches)
    return _with_redefinitions(_checked_by_loops(level, keep, words), defined)


def _skips_module(stripped: str) -> bool:
    """Whether a top-level block, not a definition, may skip every test of the module as
    it is imported (``module_skips``): like a module ``pytestmark``, it reaches tests
    holding no token."""
    if stripped.startswith((*_DEFINITIONS, "import ", "from ")):
        return False
    return "allow_module_level" in stripped or ("SkipTest" in stripped and "raise" in stripped)


# A knob's argument that names a function whose code decides what it hides: flaky's
# ``rerun_filter=rerun_when`` (read by ``module_index._returned``).
_NAMED_CALLABLE = re.compile(r"\brerun_filter[ \t]*=[ \t]*([A-Za-z_]\w*)")


def _named_callables(blocks: list[str], holds_token: list[bool]) -> set[str]:
    """The functions knob blocks name as their filters: kept though they do not loop."""
    return {
        name
        for block, token in zip(blocks, holds_token, strict=True)
        if token and "rerun_filter" in block
        for name in _NAMED_CALLABLE.findall(block)
    }


def _with_redefinitions(keep: list[bool], defined: Sequence[str | None]) -> list[bool]:
    """``keep`` with every other definition of a name a kept block defines: the last
    definition is the one Python keeps (a test defined twice runs once, as written
    last), so a plain test that replaces a marked one must be parsed too."""
    names = {name for name, kept in zip(defined, keep, strict=True) if kept and name is not None}
    return [kept or name in names for kept, name in zip(keep, defined, strict=True)]


def _trial_names(blocks: list[str], level: Level) -> set[str]:
    """Functions and methods that loop or read the environment (trial helpers), or
    skip while they run (a gate the test calls first): a body that calls one is not
    stubbed."""
    trial_names = {
        name
        for name, head, hinted, skips in zip(
            level.defined, level.heads, level.hinted, level.skips, strict=True
        )
        if name is not None and (hinted or skips) and head is not None
    }
    for index, hinted in enumerate(level.hinted):
        if hinted and level.is_class(index):
            trial_names |= member_trial_names(blocks[index])
    return trial_names


def _pieces(
    blocks: list[str],
    keep: list[bool],
    inherited: set[int],
    level: Level,
    wanted: Wanted,
    masked: str,
) -> tuple[list[tuple[int, str]], bool]:
    """The kept text as (first line in the file, text) pieces, a kept class cut down to
    the members that matter; and whether every block was kept whole."""
    pieces: list[tuple[int, str]] = []
    line = 1
    offset = 0  # the blocks cover the text in order
    whole = True
    for index, (block, kept) in enumerate(zip(blocks, keep, strict=True)):
        if kept:
            members = (
                None
                if index in inherited
                else _class_members(
                    block, level.heads[index], wanted, masked[offset : offset + len(block)]
                )
            )
            if members is None:
                pieces.append((line, block))
            else:
                whole = False
                pieces += [(line + at, piece) for at, piece in members]
        else:
            whole = False
        line += block.count("\n")
        offset += len(block)
    return pieces, whole
