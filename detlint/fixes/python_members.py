"""The members of a module's top-level classes, to check an edit on its member alone.

A test class with a thousand marked methods is one top-level statement, and
checking each fix on the whole statement parses the class once per fix. A member
(a method with its decorators, an assignment) that starts its own line and
shares no line with another statement is checked alone instead: its edited text
as the body of ``if 1:``, after a ``pass`` at the member's indentation. The text
parses there as one block of statements at that indentation, no line leaving it,
exactly when it fits between the class's other members. What fails there is
checked on the whole statement as before (an edit that removes the member's only
statement leaves an empty block, which fails alone and not in the class).
"""

from __future__ import annotations

import ast
import bisect
from typing import NamedTuple

from detlint.fixes.edits import Edit, apply_edits
from detlint.fixes.source_text import SourceText


class Member(NamedTuple):
    """A class member's first line (its first decorator's), last line and indentation."""

    first: int
    last: int
    indent: str


def members(statements: list[ast.stmt], source: SourceText) -> list[Member]:
    """The members of the top-level classes that can be checked alone, in order."""
    found: list[Member] = []
    for statement in statements:
        if not isinstance(statement, ast.ClassDef):
            continue
        body = statement.body
        for index, member in enumerate(body):
            decorators = getattr(member, "decorator_list", [])
            first = min([member.lineno, *(d.lineno for d in decorators)])
            last = member.end_lineno or member.lineno
            before = body[index - 1].end_lineno if index else statement.lineno
            after = body[index + 1].lineno if index + 1 < len(body) else None
            if (before or 0) >= first or (after is not None and after <= last):
                continue  # shares a line with another statement: it starts its line
            line = source.text[source.lines.line_start(first) : source.lines.line_end(first)]
            indent = line[: len(line) - len(line.lstrip(" \t"))]
            if indent:
                found.append(Member(first, last, indent))
    return found


def member_parses(source: SourceText, found: list[Member], edits: list[Edit]) -> bool:
    """Whether ``edits``, all inside one member of ``found``, leave it parsing in its
    class; False also when that cannot be said alone."""
    lines = source.lines
    first_line = source.position(min(edit.start for edit in edits))[0]
    index = bisect.bisect_left(found, first_line, key=lambda member: member.last)
    if index == len(found) or found[index].first > first_line:
        return False
    member = found[index]
    start, end = lines.line_start(member.first), lines.line_end(member.last)
    if any(edit.start < start or edit.end > end for edit in edits):
        return False
    moved = [Edit(e.path, e.start - start, e.end - start, e.content) for e in edits]
    text = apply_edits(source.text[start:end], moved)
    if not text.endswith(("\n", "\r")):
        return False
    try:
        tree = ast.parse(f"if 1:\n{member.indent}pass\n{text}")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return len(tree.body) == 1
