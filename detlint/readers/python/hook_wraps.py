"""Conftest hooks that wrap the function of the items they pick by name.

``pytest_collection_modifyitems`` (or another ``pytest_*`` hook) can retry chosen
tests without a marker: ``if item.nodeid in FLAKY: item.obj = retry(item.obj)``. The
item's function is replaced after collection, so only a decorator that wraps the call
(a retry decorator) still acts; a marker put on the new function comes too late.
The condition around the statement picks the tests: a name, a node id or a part of
one found in a list, a glob, or every item when there is no condition. Conditions
that pick nothing by name stay guards on the marks, quoted.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace

from detlint.readers.python.facts import NamedWrap
from detlint.readers.python.guards import negated, quoted
from detlint.readers.python.named_wraps import WrapReader, applied
from detlint.readers.python.names import dotted

_ITEM_NAMES = {"name": "name", "originalname": "name", "nodeid": "nodeid"}
_WRAPPED = ("obj", "function", "_obj")
Context = tuple[tuple[str, ast.AST, object], ...]  # ("if", test, holds) / ("for", target, iter)
Selection = tuple[tuple[str, ...] | None, str, str]  # names, how they match, their source


def hook_wraps(reader: WrapReader) -> list[NamedWrap]:
    """``item.obj = DECO(item.obj)`` in each ``pytest_*`` function of the module."""
    index = reader.index
    wraps: list[NamedWrap] = []
    if ".obj" not in index.source and '"obj"' not in index.source:
        return wraps
    for name, function in index.functions.items():
        if not name.startswith("pytest_") or not index.is_block(function.body):
            continue
        for statement, context in _contexts(function.body, ()):
            decorator = _item_wrap(statement)
            marks = reader.marks(decorator, late=True) if decorator is not None else ()
            if marks:
                wraps.append(_picked(reader, marks, context, name))
    return wraps


def _item_wrap(statement: ast.stmt) -> ast.expr | None:
    """The decorator of ``item.obj = DECO(item.obj)`` or ``setattr(item, "obj", ...)``."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target, value = statement.targets[0], statement.value
        if not (isinstance(target, ast.Attribute) and target.attr in _WRAPPED):
            return None
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if dotted(call.func) != "setattr" or len(call.args) != 3:
            return None
        name, value = call.args[1], call.args[2]
        if not (isinstance(name, ast.Constant) and name.value in _WRAPPED):
            return None
    else:
        return None
    decorator = applied(value)
    wrapped = value.args[0] if isinstance(value, ast.Call) and value.args else None
    if decorator is None or not isinstance(wrapped, ast.Attribute) or wrapped.attr not in _WRAPPED:
        return None
    return decorator


def _contexts(body: list[ast.stmt], context: Context) -> Iterator[tuple[ast.stmt, Context]]:
    for statement in body:
        yield statement, context
        if isinstance(statement, ast.If):
            yield from _contexts(statement.body, (*context, ("if", statement.test, True)))
            yield from _contexts(statement.orelse, (*context, ("if", statement.test, False)))
        elif isinstance(statement, ast.For):
            inner = (*context, ("for", statement.target, statement.iter))
            yield from _contexts(statement.body, inner)
        elif isinstance(statement, ast.With | ast.Try):
            yield from _contexts(statement.body, context)


def _picked(reader: WrapReader, marks: tuple, context: Context, hook: str) -> NamedWrap:  # type: ignore[type-arg]
    loops: dict[str, ast.expr] = {}
    selection: Selection | None = None
    guards: list[str] = []
    conditions = 0
    for kind, node, value in context:
        if kind == "for":
            if isinstance(node, ast.Name) and isinstance(value, ast.expr):
                loops[node.id] = value
            continue
        assert isinstance(node, ast.expr)
        conditions += 1
        found = _selection(reader, node, loops) if value is True else None
        if found is not None and selection is None:
            selection = found
            continue
        text = reader.index.text(node)
        guards.append(quoted(text) if value else negated(text))
    via = f"hook {hook}"
    guarded = tuple(
        replace(mark, via=(via, *mark.via), guards=(*mark.guards, *guards)) for mark in marks
    )
    if selection is not None:
        names, match, source = selection
        return NamedWrap(names, match, source, guarded)  # type: ignore[arg-type]
    if conditions == 0:
        return NamedWrap(None, "all", f"every item of hook {hook}", guarded)
    condition = next(node for kind, node, _ in context if kind == "if")
    source = quoted(reader.index.text(condition))
    return NamedWrap(None, "name", source, tuple(replace(m, guards=()) for m in guarded))


def _selection(reader: WrapReader, test: ast.expr, loops: dict[str, ast.expr]) -> Selection | None:
    """The names a condition picks items by, when it is such a condition."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        attribute = _item_attribute(left)
        if attribute is not None and isinstance(op, ast.In):
            return _listed(reader, right, _ITEM_NAMES[attribute])
        if attribute is not None and isinstance(op, ast.Eq):
            return _listed(reader, ast.Tuple([right], ast.Load()), _ITEM_NAMES[attribute])
        if _item_attribute(right) is not None and isinstance(op, ast.In):
            return _looped(reader, left, loops, "within")
    if isinstance(test, ast.Call):
        name = dotted(test.func) or ""
        if name == "any" and len(test.args) == 1 and isinstance(test.args[0], ast.GeneratorExp):
            generator = test.args[0]
            inner = dict(loops)
            for comprehension in generator.generators:
                if isinstance(comprehension.target, ast.Name):
                    inner[comprehension.target.id] = comprehension.iter
            return _selection(reader, generator.elt, inner)
        globbed = name.rsplit(".", 1)[-1] in ("fnmatch", "fnmatchcase") and len(test.args) == 2
        if globbed and _item_attribute(test.args[0]) is not None:
            return _looped(reader, test.args[1], loops, "glob")
        func = test.func
        ending = isinstance(func, ast.Attribute) and func.attr == "endswith" and test.args
        if ending and isinstance(func, ast.Attribute) and _item_attribute(func.value) is not None:
            return _looped(reader, test.args[0], loops, "nodeid")
    return None


def _item_attribute(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute) and node.attr in _ITEM_NAMES:
        return node.attr
    return None


def _listed(reader: WrapReader, names: ast.expr, match: str) -> Selection:
    return reader.strings(names), match, reader.source(names)


def _looped(
    reader: WrapReader, value: ast.expr, loops: dict[str, ast.expr], match: str
) -> Selection:
    """A loop variable stands for each name its loop goes over; a string for itself."""
    if isinstance(value, ast.Name) and value.id in loops:
        return _listed(reader, loops[value.id], match)
    return _listed(reader, ast.Tuple([value], ast.Load()), match)
