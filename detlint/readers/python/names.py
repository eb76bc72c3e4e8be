"""Static name resolution and literal values for the Python pass.

``import pytest as pt`` and ``from pytest import mark`` must both lead to
``pytest.mark``; ``from flaky import flaky`` must not be confused with a local
``flaky = pytest.mark.flaky(...)``. This module maps local names to dotted
qualified names from the import statements alone (never importing anything)
and reads literal argument values.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from detlint.readers.python.facts import ArgValue

# What a comparison of two known values gives, by operator (``in`` left to the readers
# that know containers).
COMPARISONS: dict[type[ast.cmpop], Callable[[Any, Any], object]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` -> "a.b.c"; None for anything that is not a plain name chain."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


# Modules that are another's API under another name: unittest2 backports unittest.
_SAME_API = {"unittest2": "unittest"}


def _canonical(module: str) -> str:
    head, dot, rest = module.partition(".")
    return _SAME_API.get(head, head) + dot + rest


@dataclass
class ImportMap:
    """Local name -> qualified dotted name, from a module's import statements.

    Relative imports keep their leading dots (``.helpers.flaky_gpu``) so that
    cross-module resolution can find the file next to the importer.
    """

    names: dict[str, str] = field(default_factory=dict)

    def add(self, statement: ast.Import | ast.ImportFrom) -> None:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname is not None:
                    self.names[alias.asname] = _canonical(alias.name)
                else:
                    head = alias.name.split(".")[0]
                    self.names[head] = _canonical(head)
            return
        if statement.names[0].name == "*":
            return
        module = "." * statement.level + _canonical(statement.module or "")
        separator = "" if module.endswith(".") or not module else "."
        for alias in statement.names:
            local = alias.asname if alias.asname is not None else alias.name
            self.names[local] = f"{module}{separator}{alias.name}"

    def add_assignment(self, name: str, value: ast.expr) -> None:
        """A module-level ``name = value``: pytest imported by a helper binds the module."""
        if binds_pytest(value):
            self.names[name] = "pytest"

    def qualify(self, node: ast.AST) -> str | None:
        """The qualified name of a name chain, or None when its head is not imported."""
        name = dotted(node)
        return None if name is None else self.qualify_name(name)

    def qualify_name(self, name: str) -> str | None:
        """``qualify`` of a dotted name as written."""
        head, _, rest = name.partition(".")
        if head not in self.names:
            return None
        base = self.names[head]
        return f"{base}.{rest}" if rest else base


def binds_pytest(value: ast.expr) -> bool:
    """Whether a value is pytest imported by a helper: ``importorskip("pytest")``,
    ``import_module("pytest")``, ``support.import_helper.import_module('pytest')``.

    A call whose first argument is the literal module name ``"pytest"`` gives the module
    (or skips or fails the file), so the name it is bound to reads ``@pytest.mark...``
    as ``import pytest`` would.
    """
    return (
        isinstance(value, ast.Call)
        and bool(value.args)
        and isinstance(value.args[0], ast.Constant)
        and value.args[0].value == "pytest"
    )


class NotLiteral:
    """The value of an expression that is not a literal (its code is read only if needed)."""

    def __repr__(self) -> str:
        return "NOT_LITERAL"


NOT_LITERAL: Final = NotLiteral()

_CONSTANT_TYPES = (bool, int, float, str, type(None))


def literal(node: ast.AST) -> ArgValue | NotLiteral:
    """The value of a literal expression: a number, string, bool, None, a
    negative number, or a list or tuple of those (as a tuple)."""
    if isinstance(node, ast.Constant):
        value = node.value
        return value if isinstance(value, _CONSTANT_TYPES) else NOT_LITERAL
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = literal(node.operand)
        if isinstance(inner, int | float) and not isinstance(inner, bool):
            return -inner
        return NOT_LITERAL
    if isinstance(node, ast.JoinedStr):
        # An f-string reason ("flaky on {platform}, see #12") is read as its text, with
        # each replacement field as written: what it says is in the constant parts.
        parts: list[str] = []
        for piece in node.values:
            if isinstance(piece, ast.Constant) and isinstance(piece.value, str):
                parts.append(piece.value)
            else:
                field = piece.value if isinstance(piece, ast.FormattedValue) else piece
                parts.append("{" + ast.unparse(field) + "}")
        return "".join(parts)
    if isinstance(node, ast.List | ast.Tuple):
        items = [
            literal(item.value if isinstance(item, ast.Starred) else item) for item in node.elts
        ]
        if not any(isinstance(item, NotLiteral) for item in items):
            return tuple(items)
    return NOT_LITERAL
