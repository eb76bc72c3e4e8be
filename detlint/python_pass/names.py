"""Static name resolution and literal values for the Python pass.

``import pytest as pt`` and ``from pytest import mark`` must both lead to
``pytest.mark``; ``from flaky import flaky`` must not be confused with a local
``flaky = pytest.mark.flaky(...)``. This module maps local names to dotted
qualified names from the import statements alone (never importing anything)
and reads literal argument values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from detlint.python_pass.facts import ArgValue, Dynamic


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` -> "a.b.c"; None for anything that is not a plain name chain."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def _module_name(node: cst.BaseExpression | None) -> str:
    if node is None:
        return ""
    return dotted(node) or ""


@dataclass
class ImportMap:
    """Local name -> qualified dotted name, from a module's import statements.

    Relative imports keep their leading dots (``.helpers.flaky_gpu``) so that
    cross-module resolution can find the file next to the importer.
    """

    names: dict[str, str] = field(default_factory=dict)

    def add(self, statement: cst.Import | cst.ImportFrom) -> None:
        if isinstance(statement, cst.Import):
            for alias in statement.names:
                full = _module_name(alias.name)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self.names[alias.asname.name.value] = full
                else:
                    head = full.split(".")[0]
                    self.names[head] = head
            return
        if isinstance(statement.names, cst.ImportStar):
            return
        module = "." * len(statement.relative) + _module_name(statement.module)
        for alias in statement.names:
            name = _module_name(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            separator = "" if module.endswith(".") or not module else "."
            self.names[local] = f"{module}{separator}{name}"

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """The qualified name of a name chain, or None when its head is not imported."""
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head not in self.names:
            return None
        base = self.names[head]
        return f"{base}.{rest}" if rest else base


def literal(node: cst.BaseExpression) -> ArgValue:
    """The value of a literal expression; ``Dynamic`` with its source otherwise."""
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.Float):
        return float(node.evaluated_value)
    if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
        value = node.evaluated_value
        if isinstance(value, str):
            return value
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal(node.expression)
        if isinstance(inner, int | float) and not isinstance(inner, bool):
            return -inner
    if isinstance(node, cst.List | cst.Tuple):
        items = [literal(element.value) for element in node.elements]
        if not any(isinstance(item, Dynamic) for item in items):
            return tuple(items)
    return Dynamic(source(node))


def source(node: cst.CSTNode) -> str:
    """The code of a node, as written."""
    return cst.Module(body=[]).code_for_node(node)
