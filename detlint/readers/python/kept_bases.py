"""The class blocks a narrowed file keeps whole because classes it keeps inherit from
them: their marks, their tests, or what makes the kept class a test class at all."""

from __future__ import annotations

import re

from detlint.readers.python.block_levels import Level
from detlint.readers.python.blocks import IDENTIFIER
from detlint.readers.python.body_stubs import Wanted

_CLASS_BASES = re.compile(r"^[ \t]*class[ \t]+\w+[ \t]*\(([^)]*)\)", re.M)


def bases_of_kept(level: Level, keep: list[bool], wanted: Wanted) -> set[int]:
    """The class blocks that kept classes with a knob of their own inherit from, to
    keep whole: a subclass runs its base's tests under its own marks (a skip on
    `TestGevent(DrainerTests)`). A class whose knobs sit on its own methods needs its
    bases only to be collected: `MappingTestCase(TestBase)` is a unittest.TestCase
    through `TestBase` alone (``_collected_through_bases``)."""
    blocks = level.blocks
    classes = {
        name: index
        for index, name in enumerate(level.defined)
        if name is not None and level.is_class(index)
    }
    found: set[int] = set()
    pending = [
        index
        for index, kept in enumerate(keep)
        if kept
        and level.is_class(index)
        and (_class_knob(level, index, wanted) or _collected_through_bases(level, index))
    ]
    while pending:
        index = pending.pop()
        head = level.heads[index]
        if head is None or head.group(1) != "class":
            continue
        bases = _CLASS_BASES.search(blocks[index], head.start())
        for name in IDENTIFIER.findall(bases.group(1)) if bases else ():
            base = classes.get(name)
            if base is not None and base not in found and base != index:
                found.add(base)
                pending.append(base)
    return found


def _collected_through_bases(level: Level, index: int) -> bool:
    """Whether a class's name and own bases leave its collection to its bases: a name
    the default ``Test*`` pattern misses and no base named ``...TestCase``."""
    block, head = level.blocks[index], level.heads[index]
    if head is None or head.group(1) != "class":
        return False
    bases = _CLASS_BASES.search(block, head.start())
    if bases is None or "TestCase" in bases.group(1):
        return False
    name = level.defined[index] or ""
    return not name.startswith("Test")


def inheriting(level: Level, imported: frozenset[str]) -> set[int]:
    """The class blocks whose bases name an imported class that holds a knob: kept
    whole, since a method of their own may replace an inherited test."""
    if not imported:
        return set()
    found: set[int] = set()
    for index, head in enumerate(level.heads):
        if head is not None and head.group(1) == "class":
            bases = _CLASS_BASES.search(level.blocks[index], head.start())
            if bases and not imported.isdisjoint(IDENTIFIER.findall(bases.group(1))):
                found.add(index)
    return found


def _class_knob(level: Level, index: int, wanted: Wanted) -> bool:
    """Whether a class block holds a knob on the class itself: in its decorators or
    class line, or in a class-level ``pytestmark``."""
    block, head = level.blocks[index], level.heads[index]
    if head is None or head.group(1) != "class":
        return False
    line_end = block.find("\n", head.end())
    header = block[: line_end if line_end >= 0 else len(block)]
    return wanted(header) or ("pytestmark" in block and wanted(block))
