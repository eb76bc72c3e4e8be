"""Checks a loop's calls make through functions found beyond its module's own.

CPython's ``test_socketserver`` passes ``self.dgram_examine`` to ``run_server``,
whose ``for i in range(3): testfunc(...)`` runs it: each iteration checks as
``dgram_examine`` does. ``test_threading`` loops ``for i in range(20): ...
support.wait_process(pid, exitcode=10)``, a function of ``test.support`` that raises
``AssertionError`` on the wrong exit code: each iteration checks. A callable passed
in counts when the caller calls the loop's function once (the argument names one
function). A function of another module counts only from a module of the tests (a
path part names ``test``: ``test.support``, ``tests/helpers.py``) and only on an
``assert``, an assertion call or ``raise AssertionError`` of its own: a library's
``assert`` guards an invariant, and its other raises (``ValueError`` on a bad
argument) are not checks of what a trial computed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from pathlib import PurePath

from detlint.readers.python.method_helpers import CalledHelpers
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.trial_checks import CallCheck, called, holds_checks, own_nodes

# A qualified name -> the index of the repository module that binds it, and the name there.
ForeignName = Callable[[str], "tuple[ModuleIndex, str] | None"]
_ASSERTION_ERRORS = frozenset({"AssertionError", "failureException"})
_CHECK_PREFIXES = ("assert", "fail")


def no_foreign_name(qualified: str) -> tuple[ModuleIndex, str] | None:
    return None


class ForeignChecks:
    """Whether a qualified name is a checking function of another repository module,
    each name looked up once."""

    def __init__(self, foreign: ForeignName) -> None:
        self.foreign = foreign
        self._found: dict[str, bool] = {}

    def __call__(self, qualified: str) -> bool:
        found = self._found.get(qualified)
        if found is None:
            found = self._found[qualified] = self._asserts(qualified)
        return found

    def _asserts(self, qualified: str) -> bool:
        if qualified.startswith(("pytest.", "unittest.", "numpy.", "torch.")):
            return False  # their assertion helpers are named as such
        defined = self.foreign(qualified)
        if defined is None:
            return False
        index, name = defined
        if not any("test" in part.lower() for part in PurePath(index.path).parts):
            return False  # a library's own ``assert`` guards an invariant, not a trial
        function = index.functions.get(name)
        return function is not None and asserts_itself(function)


def asserts_itself(function: Function) -> bool:
    """Whether a function fails its caller on a check of its own: an ``assert``, an
    assertion call (``self.assertEqual``, ``pytest.fail``), ``raise AssertionError``."""
    for node in own_nodes(function.body):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Raise) and node.exc is not None:
            error = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = error.attr if isinstance(error, ast.Attribute) else getattr(error, "id", "")
            if name in _ASSERTION_ERRORS:
                return True
        if called(node).startswith(_CHECK_PREFIXES):
            return True
    return False


def passed_functions(
    helpers: CalledHelpers, caller: Function, callee: Function
) -> dict[str, Function]:
    """The parameters of ``callee`` that the one call ``caller`` makes to it binds to
    functions of the module (``self.dgram_examine``, a function defined in the caller);
    none when the caller calls it more than once (which one a loop runs is unsure)."""
    calls = [
        call
        for call in helpers.index.body(caller, ast.Call)
        if (resolved := helpers.callee(caller, call)) is not None and resolved[1] is callee
    ]
    if len(calls) != 1:
        return {}
    call = calls[0]
    positional = [*callee.args.posonlyargs, *callee.args.args]
    if isinstance(call.func, ast.Attribute) and positional:
        positional = positional[1:]  # ``self.method(...)``: ``self`` is bound already
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return {}
    pairs = [(parameter.arg, arg) for parameter, arg in zip(positional, call.args, strict=False)]
    pairs += [(keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg]
    found: dict[str, Function] = {}
    for name, value in pairs:
        function = _named_function(helpers, caller, value)
        if function is not None:
            found[name] = function
    return found


def _named_function(helpers: CalledHelpers, caller: Function, value: ast.expr) -> Function | None:
    """The function an argument names: one defined in the caller, else the module's."""
    if isinstance(value, ast.Name):
        for node in own_nodes(caller.body):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == value.id:
                return node
    resolved = helpers.named(caller, value)
    return None if resolved is None else resolved[1]


def call_check(
    index: ModuleIndex, passed: Mapping[str, Function], foreign: ForeignChecks
) -> CallCheck:
    """Whether a call checks through a function passed in or one of another module."""

    def check(call: ast.Call) -> bool:
        func = call.func
        if isinstance(func, ast.Name) and func.id in passed:
            return holds_checks(index, passed[func.id])
        if isinstance(func, ast.Name) and func.id in index.functions:
            return False
        qualified = index.imports.qualify(func)
        return qualified is not None and foreign(qualified)

    return check
