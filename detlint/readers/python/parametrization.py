"""What a test's ``pytest.mark.parametrize`` decorators make of it: how many instances
(the product of their sizes, None when one is not literal), and the marks their
``pytest.param(..., marks=...)`` entries put on the instances they cover.
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
    """The parametrize decorators of one module's tests and classes."""

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
            size = self._count_values(argvalues.value) if argvalues is not None else None
            total = None if total is None or size is None else total * size
            if argvalues is not None:
                param_marks += self._param_marks(argvalues.value)
        return total, param_marks

    def _count_values(self, node: ast.expr) -> int | None:
        if isinstance(node, ast.List | ast.Tuple):
            if any(isinstance(element, ast.Starred) for element in node.elts):
                return None
            return len(node.elts)
        if isinstance(node, ast.Call) and dotted(node.func) == "range":
            bounds = [literal(arg.value) for arg in call_args(node)]
            if len(bounds) == 1 and isinstance(bounds[0], int) and not isinstance(bounds[0], bool):
                return max(bounds[0], 0)
            return None
        if isinstance(node, ast.Name) and node.id in self.index.assignments:
            return self._count_values(self.index.assignments[node.id])
        return None

    def _param_marks(self, node: ast.expr) -> list[tuple[int, Mark]]:
        found: list[tuple[int, Mark]] = []
        for call in find_all(node, ast.Call):
            if self.index.imports.qualify(call.func) != "pytest.param":
                continue
            for arg in call_args(call):
                if arg.keyword == "marks":
                    found += [(1, mark) for mark in self.marks.resolve(arg.value, "param")]
        return found
