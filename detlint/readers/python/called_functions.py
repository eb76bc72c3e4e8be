"""Which function of the repository a call in a module names, for the retries of the
functions a test calls (``helper_retries``).

A call names a function of its own module (``check(...)``), one defined in the test's
own body (``def _assert_called(): ...`` then ``_assert_called()``: a local name hides
the module's), a method of the test's class (``self.check(...)``) or a function
imported from another module of the repository (``check(...)`` after ``from .utils
import check``, ``utils.check(...)`` after ``from tests import utils``). An imported
one is looked up only in a module whose bytes hold a knob (``DefinitionLookup``), and
its own calls resolve there.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from detlint.readers.python.definitions import DefinitionLookup
from detlint.readers.python.facts import Mark
from detlint.readers.python.helper_retries import DecoratorMarks, Helper, named_callee
from detlint.readers.python.module_index import Function, ModuleIndex


class CalledFunctions:
    """The functions calls of one module name, as ``Helper``s whose calls resolve in
    the module that defines them."""

    def __init__(
        self,
        index: ModuleIndex,
        marks: DecoratorMarks,
        definitions: DefinitionLookup,
        runs: Callable[[Function], list[Mark]] = lambda function: [],
    ) -> None:
        self.index = index
        self.marks = marks
        self.definitions = definitions
        self.runs = runs  # the skips and xfails a function of this module applies
        # The functions each test's body defines, by the test's id (kept alive beside).
        self._nested: dict[int, tuple[Function, dict[str, Function]]] = {}

    def helper(self, function: Function) -> Helper:
        """A function of this module a test may call."""
        return Helper(function, self.index, self.marks, self.here, self.runs)

    def here(self, call: ast.Call) -> Helper | None:
        """The function a call in a function of this module (not a method) names."""
        return named_callee(call, {}, self.local, self.imported)

    def of_test(self, bound: dict[str, Helper], test: Function, call: ast.Call) -> Helper | None:
        """The function a call in ``test`` names, ``bound`` its class's methods."""
        func = call.func
        if isinstance(func, ast.Name):
            kept = self._nested.get(id(test))
            if kept is None:
                kept = self._nested[id(test)] = (test, nested_functions(test))
            if func.id in kept[1]:
                return self.helper(kept[1][func.id])
        return named_callee(call, bound, self.local, self.imported)

    def local(self, name: str) -> Helper | None:
        found = self.index.functions.get(name)
        return None if found is None else self.helper(found)

    def imported(self, func: ast.expr) -> Helper | None:
        """A function imported from a repository module whose bytes hold a knob."""
        qualified = self.index.imports.qualify(func)
        found = None if qualified is None else self.definitions(qualified, self.index.path)
        if found is None:
            return None
        owner = getattr(getattr(found[0], "scanner", None), "called", None)
        defined = owner.index.functions.get(found[1]) if owner is not None else None
        if not isinstance(owner, CalledFunctions) or defined is None:
            return None
        return owner.helper(defined)


def nested_functions(test: Function) -> dict[str, Function]:
    """The functions a test's body defines, by name, outside any function or class
    nested in it: a call of that name in the body runs them, with their decorators (a
    retry on an asserting one retries those checks, as on a function of the module).
    A name defined twice is left out: which one a call runs depends on the order."""
    found: dict[str, Function] = {}
    twice: set[str] = set()
    stack: list[ast.stmt] = list(test.body)
    while stack:
        statement = stack.pop()
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            if statement.name in found:
                twice.add(statement.name)
            found[statement.name] = statement
            continue
        if isinstance(statement, ast.ClassDef):
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(statement, name, None)
            if isinstance(inner, list):
                stack.extend(node for node in inner if isinstance(node, ast.stmt))
        for handler in getattr(statement, "handlers", ()):
            stack.extend(handler.body)
    return {name: function for name, function in found.items() if name not in twice}
