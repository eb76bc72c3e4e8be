"""What ``@pytest.mark.parametrize`` makes of a test: how many instances, and the marks
``pytest.param(..., marks=...)`` puts on some of them.

The argvalues table is often written once at the top of the module and passed by
name (``CASES = [pytest.param(1, marks=pytest.mark.flaky(reruns=2)), 2, 3]`` then
``parametrize("x", CASES)``), or built from such names (``[*BASE, ...]``,
``A + B``): the names are followed to their module assignments.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from detlint.readers.python.facts import Mark
from detlint.readers.python.locations import call_args
from detlint.readers.python.marks import MarkResolver
from detlint.readers.python.module_index import ModuleIndex
from detlint.readers.python.names import dotted, literal
from detlint.readers.python.walk import find_all


class Parametrization:
    """The parametrizations of one module's tests and classes."""

    def __init__(self, index: ModuleIndex, marks: MarkResolver) -> None:
        self.index = index
        self.marks = marks

    def of(self, decorators: Sequence[ast.expr]) -> tuple[int | None, list[tuple[int, Mark]]]:
        """(instances, [(instances covered, mark)]) from parametrize decorators."""
        total: int | None = 1
        param_marks: list[tuple[int, Mark]] = []
        for call in decorators:
            if not isinstance(call, ast.Call):
                continue
            if self.index.imports.qualify(call.func) != "pytest.mark.parametrize":
                continue
            args = call_args(call)
            values = [arg for arg in args if arg.keyword is None]
            keyword = [arg for arg in args if arg.keyword == "argvalues"]
            candidates = values[1:2] or keyword
            argvalues = candidates[0] if candidates else None
            size = count_values(self.index, argvalues.value) if argvalues is not None else None
            total = None if total is None or size is None else total * size
            if argvalues is not None:
                param_marks += self._param_marks(argvalues.value)
        return total, param_marks

    def given(self, decorators: Sequence[ast.expr]) -> frozenset[str] | None:
        """The argument names parametrize decorators give values to (a fixture of that
        name is then not the test's); None where a name cannot be read."""
        found: set[str] = set()
        for call in decorators:
            if not isinstance(call, ast.Call):
                continue
            if self.index.imports.qualify(call.func) != "pytest.mark.parametrize":
                continue
            args = call_args(call)
            first = [a for a in args if a.keyword is None][:1] or [
                a for a in args if a.keyword == "argnames"
            ]
            names = argnames(first[0].value) if first else None
            if names is None:
                return None
            found.update(names)
        return frozenset(found)

    def _param_marks(self, node: ast.expr) -> list[tuple[int, Mark]]:
        found: list[tuple[int, Mark]] = []
        for call in (call for table in self._tables(node) for call in find_all(table, ast.Call)):
            if self.index.imports.qualify(call.func) != "pytest.param":
                continue
            for arg in call_args(call):
                if arg.keyword == "marks":
                    found += [(1, mark) for mark in self.marks.resolve(arg.value, "param")]
        return found

    def _tables(self, node: ast.expr, depth: int = 0) -> list[ast.expr]:
        """The expressions an argvalues table is written in: itself, and the module
        lists it names (``CASES = [pytest.param(..., marks=...), ...]`` then
        ``parametrize("x", CASES)``, ``[*BASE, pytest.param(...)]``, ``A + B``)."""
        if isinstance(node, ast.Name):
            value = self.index.assignments.get(node.id)
            return [] if value is None or depth > 4 else self._tables(value, depth + 1)
        found = [node]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return [*self._tables(node.left, depth + 1), *self._tables(node.right, depth + 1)]
        if isinstance(node, ast.List | ast.Tuple):
            for element in node.elts:
                inner = element.value if isinstance(element, ast.Starred) else element
                if isinstance(inner, ast.Name):
                    found += self._tables(inner, depth + 1)
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
