"""What ``@pytest.mark.parametrize`` makes of a test: how many instances, the argument
names it gives values to, and the marks ``pytest.param(..., marks=...)`` puts on some
of them.

A parametrize call is read where it is written: in the test's own decorator, or in
the module that binds it to a name (``parametrize_impl = pytest.mark.parametrize(...)``
in a helper, then ``@parametrize_impl`` in the tests that import it), since the names
its table uses are that module's. The argvalues table is often written once at the
top of the module and passed by name (``CASES = [pytest.param(1, marks=...), 2, 3]``
then ``parametrize("x", CASES)``), or built from such names (``[*BASE, ...]``,
``A + B``): the names are followed to their module assignments.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import replace

from detlint.readers.python.facts import ArgValue, Dynamic, Mark, Parametrized
from detlint.readers.python.locations import call_args
from detlint.readers.python.module_index import ModuleIndex
from detlint.readers.python.names import NotLiteral, dotted, literal
from detlint.readers.python.walk import find_all

PARAMETRIZE = "parametrize"


def parametrized(
    index: ModuleIndex, call: ast.Call, param_marks: Callable[[ast.expr], list[Mark]]
) -> Parametrized:
    """The table of a ``pytest.mark.parametrize(...)`` call of ``index``'s module;
    ``param_marks`` resolves a ``pytest.param``'s ``marks=`` there."""
    args = call_args(call)
    values = [arg for arg in args if arg.keyword is None]
    candidates = values[1:2] or [arg for arg in args if arg.keyword == "argvalues"]
    first = values[:1] or [arg for arg in args if arg.keyword == "argnames"]
    names = argnames(first[0].value) if first else None
    if not candidates:
        return Parametrized(None, None if names is None else tuple(names))
    table = candidates[0].value
    marks = [
        mark
        for found in (c for node in _tables(index, table) for c in find_all(node, ast.Call))
        if index.imports.qualify(found.func) == "pytest.param"
        for arg in call_args(found)
        if arg.keyword == "marks"
        for mark in param_marks(arg.value)
    ]
    return Parametrized(
        count_values(index, table),
        None if names is None else tuple(names),
        tuple(marks),
        None if names is None else _rows(index, table, len(names)),
    )


def _rows(
    index: ModuleIndex, node: ast.expr, width: int
) -> tuple[tuple[ArgValue, ...], ...] | None:
    """The values each instance gives the names, where the table is written out (here,
    or in a module name bound to a list); a value that is no literal is its code."""
    if isinstance(node, ast.Name) and node.id not in index.alternatives:
        value = index.assignments.get(node.id)
        node = value if isinstance(value, ast.List | ast.Tuple) else node
    if not isinstance(node, ast.List | ast.Tuple) or width < 1:
        return None
    rows: list[tuple[ArgValue, ...]] = []
    for element in node.elts:
        if isinstance(element, ast.Starred):
            return None
        if isinstance(element, ast.Call) and index.imports.qualify(element.func) == "pytest.param":
            values: list[ast.expr] = list(element.args)
        elif width == 1:
            values = [element]
        elif isinstance(element, ast.List | ast.Tuple):
            values = list(element.elts)
        else:
            return None
        if len(values) != width or any(isinstance(v, ast.Starred) for v in values):
            return None
        rows.append(tuple(_value(v) for v in values))
    return tuple(rows)


def _value(node: ast.expr) -> ArgValue:
    found = literal(node)
    return Dynamic(ast.unparse(node)) if isinstance(found, NotLiteral) else found


def instances(marks: Iterable[Mark]) -> tuple[int | None, list[tuple[int, Mark]]]:
    """(instances, [(instances covered, mark)]) from the parametrize marks among
    ``marks``. A parametrize that applies only under a condition (an alias defined in
    each branch of an ``if``) makes a number of instances that depends on where the
    test runs: unknown; its ``pytest.param`` marks apply under that condition too."""
    total: int | None = 1
    found: list[tuple[int, Mark]] = []
    for mark in _tables_of(marks):
        table = mark.table
        assert table is not None
        size = None if mark.guards else table.instances
        total = None if total is None or size is None else total * size
        found += [(1, _under(param, mark.guards)) for param in table.param_marks]
    return total, found


def given(marks: Iterable[Mark]) -> frozenset[str] | None:
    """The argument names the parametrize marks among ``marks`` give values to (a
    fixture of that name is then not the test's); None where a name cannot be read."""
    found: set[str] = set()
    for mark in _tables_of(marks):
        assert mark.table is not None
        if mark.table.names is None:
            return None
        found.update(mark.table.names)
    return frozenset(found)


def _tables_of(marks: Iterable[Mark]) -> list[Mark]:
    """The parametrize calls among ``marks`` (a bare ``pytest.mark.parametrize`` gives
    no values: pytest rejects it)."""
    return [
        mark
        for mark in marks
        if mark.kind == "marker" and mark.name == PARAMETRIZE and mark.table is not None
    ]


def _under(mark: Mark, guards: tuple[str, ...]) -> Mark:
    return mark if not guards else replace(mark, guards=(*mark.guards, *guards))


def _tables(index: ModuleIndex, node: ast.expr, depth: int = 0) -> list[ast.expr]:
    """The expressions an argvalues table is written in: itself, and the module
    lists it names (``CASES = [pytest.param(..., marks=...), ...]`` then
    ``parametrize("x", CASES)``, ``[*BASE, pytest.param(...)]``, ``A + B``)."""
    if isinstance(node, ast.Name):
        value = index.assignments.get(node.id)
        return [] if value is None or depth > 4 else _tables(index, value, depth + 1)
    found = [node]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return [*_tables(index, node.left, depth + 1), *_tables(index, node.right, depth + 1)]
    if isinstance(node, ast.List | ast.Tuple):
        for element in node.elts:
            inner = element.value if isinstance(element, ast.Starred) else element
            if isinstance(inner, ast.Name):
                found += _tables(index, inner, depth + 1)
    return found


def count_values(index: ModuleIndex, node: ast.expr, depth: int = 0) -> int | None:
    """How many values a table holds (a parametrize's argvalues, a fixture's params):
    a literal list or tuple, ``range(n)``, or a module name bound to one; None otherwise."""
    if isinstance(node, ast.List | ast.Tuple):
        if any(isinstance(element, ast.Starred) for element in node.elts):
            return None
        return len(node.elts)
    if isinstance(node, ast.Call) and dotted(node.func) == "range":
        bounds = [literal(arg.value) for arg in call_args(node)]
        if len(bounds) == 1 and isinstance(bounds[0], int) and not isinstance(bounds[0], bool):
            return max(bounds[0], 0)
        return None
    if isinstance(node, ast.Name) and node.id in index.assignments and depth < 5:
        # A table bound in branches (``ZARR_FORMATS = [2, 3]`` where zarr imports, else
        # ``[]``) counts only where every branch holds as many values.
        values = [v for v, _ in index.alternatives.get(node.id, [])]
        counts = {
            count_values(index, value, depth + 1) if isinstance(value, ast.expr) else None
            for value in values or [index.assignments[node.id]]
        }
        return counts.pop() if len(counts) == 1 else None
    return None


def argnames(node: ast.expr) -> list[str] | None:
    """The names a parametrize gives values to: ``"a,b"`` or ``["a", "b"]``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [name.strip() for name in node.value.split(",") if name.strip()]
    if isinstance(node, ast.List | ast.Tuple):
        names = [literal(element) for element in node.elts]
        return (
            [n for n in names if isinstance(n, str)]
            if all(isinstance(n, str) for n in names)
            else None
        )
    return None
