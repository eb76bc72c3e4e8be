"""Whether the checks of a loop look at what each iteration computed, in one test.

``fresh_values`` says what an expression computes; here it is asked about the checks
of one loop of one test, with what the test around them defines: a ``raise`` or
``fail(...)`` under the loop's ``if`` checks that ``if``'s test, as an ``assert`` of
it would (``if not isinstance(col, Quiver): raise AssertionError(...)``), and a
function the test (or its module) defines that only looks values up
(``expected(row.ref)``) computes nothing new, so calling it in a check makes no
iteration a fresh trial.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence

from detlint.readers.python.fresh_values import (
    checked_conditions,
    computed,
    fresh_names,
    looks_up,
)
from detlint.readers.python.module_index import Function, ModuleIndex


class FreshChecks:
    """The loops of one test function, asked whether their checks read fresh values."""

    def __init__(self, index: ModuleIndex, function: Function) -> None:
        self.index = index
        self.function = function
        self._looking_up: dict[str, bool] = {}

    def any_fresh(
        self, loop: ast.For | ast.AsyncFor, nodes: Sequence[ast.AST], checking: list[ast.AST]
    ) -> bool:
        """Whether a check of ``loop`` (whose own nodes are ``nodes``) looks at what its
        iteration computed."""
        lookups = self._lookups(nodes)
        fresh = fresh_names(nodes, lookups)
        conditions = checked_conditions(loop.body)
        for node in checking:
            tests = conditions.get(id(node))
            if tests is not None:
                if any(computed(test, fresh, lookups) for test in tests):
                    return True
            elif computed(node, fresh, lookups):
                return True
        return False

    def element(self, element: ast.expr) -> bool:
        """Whether a comprehension's element computes afresh (``all(run(x) for x in
        xs)``), not a look-up (``all(row == expected(row) for row in rows)``)."""
        return computed(element, set(), self._lookups(list(ast.walk(element))))

    def _lookups(self, nodes: Sequence[ast.AST]) -> frozenset[str]:
        """The functions called by name in ``nodes`` that only look values up: defined
        in the test (its last definition of the name) or else in its module."""
        names = {
            node.func.id
            for node in nodes
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        return frozenset(name for name in names if self._looks_up(name))

    def _looks_up(self, name: str) -> bool:
        known = self._looking_up.get(name)
        if known is None:
            definition = self._nested.get(name) or self.index.functions.get(name)
            known = self._looking_up[name] = definition is not None and looks_up(definition)
        return known

    @functools.cached_property
    def _nested(self) -> dict[str, Function]:
        """The functions the test defines, by name (the last definition of each), found
        in one walk of the test."""
        return {
            node.name: node
            for node in ast.walk(self.function)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node is not self.function
        }
