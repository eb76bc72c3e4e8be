"""The functions a test's calls reach in its module: functions by name, and methods
of its class (or of the bases of that class defined in the module) through ``self.``
or ``cls.``.

unittest suites keep the loop a test's checks run in in a method of the class:
CPython's ``test_socketserver`` calls ``self.run_server(...)``, which runs the client
three times; ``test_sys_settrace`` calls ``self.run_test_for_event('call')``, which
loops with ``self.fail`` on each pass. Those loops are the test's as much as those of
a module function it calls. Methods of bases imported from other modules are not
followed: their module is read on its own.
"""

from __future__ import annotations

import ast
import functools

from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.test_classes import base_names

# What a test calls a method of its own class through.
RECEIVERS = frozenset({"self", "cls"})
_MAX_BASES = 10  # how far bases are followed; cycles end here


class CalledHelpers:
    """Resolves the calls of one module's functions to the functions they run."""

    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self._scopes: dict[int, dict[str, Function]] = {}

    @functools.cached_property
    def _owners(self) -> dict[int, ast.ClassDef]:
        """Each method of the module's classes -> the class that defines it."""
        return {
            id(member): klass
            for klass in self.index.classes
            for member in klass.body
            if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef)
        }

    def _methods(self, klass: ast.ClassDef) -> dict[str, Function]:
        """The methods ``self.name`` finds on a class: its own before its bases', the
        bases being the classes of the module it names, depth first."""
        found = self._scopes.get(id(klass))
        if found is None:
            found = self._scopes[id(klass)] = {}
            classes = {node.name: node for node in self.index.classes}
            stack, seen = [klass], 0
            while stack and seen < _MAX_BASES:
                node = stack.pop(0)
                seen += 1
                for member in node.body:
                    if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                        found.setdefault(member.name, member)
                bases = [classes.get(name) for name in base_names(node)]
                stack = [base for base in bases if base is not None and base is not node] + stack
        return found

    def callee(self, function: Function, call: ast.Call) -> tuple[str, Function] | None:
        """The function of the module a call in ``function`` runs, with the name it is
        called by: ``helper(...)``, or ``self.helper(...)`` in a method of a class."""
        return self.named(function, call.func)

    def named(self, function: Function, func: ast.expr) -> tuple[str, Function] | None:
        """The function of the module an expression in ``function`` names: ``helper``,
        or ``self.helper`` in a method of a class."""
        if isinstance(func, ast.Name):
            found = self.index.functions.get(func.id)
            return None if found is None else (func.id, found)
        if not (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in RECEIVERS
        ):
            return None
        klass = self._owners.get(id(function))
        if klass is None:
            return None
        method = self._methods(klass).get(func.attr)
        return None if method is None else (func.attr, method)

    def callees(self, function: Function) -> list[tuple[str, Function, int]]:
        """The module's functions ``function`` calls, in the order of their first call,
        each with how many calls name it."""
        found: dict[int, tuple[str, Function, int]] = {}
        for call in self.index.body(function, ast.Call):
            resolved = self.callee(function, call)
            if resolved is None or resolved[1] is function:
                continue
            name, helper = resolved
            _, _, times = found.get(id(helper), (name, helper, 0))
            found[id(helper)] = (name, helper, times + 1)
        return list(found.values())
