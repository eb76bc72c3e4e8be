"""Skips a test applies through a function it calls first: ``skip_unless_mac()``.

A suite writes its platform gate once, as a function whose body does ``if
sys.platform != "darwin": pytest.skip(...)``, and each test calls it as its first
statement. The test then runs only where the condition does not hold, exactly as
when the ``if`` is written in the test; taken for an ordinary call, the skip would
be lost and the numbers given as if the test ran everywhere.

A call counts when it is a statement of the test's own body, before anything that
checks or can leave the test (an ``assert``, a ``raise``, an assertion call, a
compound statement), and the function it names (of the module, a method of the
test's class, or imported from a module of the repository, as ``called_functions``
resolves it) has no way out early but its skips: no ``return``, ``raise`` (other
than of a skip exception) or ``yield``. Its skips keep the guards written in it,
quoted as there, and the last clause names the call, so a reader can find the
condition: "skipped where `sys.platform != "darwin"` (in `skip_unless_mac()`)".
A skip with no guard skips the test wherever it runs, as one written inline.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import replace

from detlint.readers.python.facts import Mark
from detlint.readers.python.helper_retries import Helper
from detlint.readers.python.module_index import Function
from detlint.readers.python.names import dotted
from detlint.readers.python.trial_checks import called, own_nodes, skips

_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.Match,
)
_CHECK_PREFIXES = ("assert", "fail")


def helper_skips(test: Function, callee: Callable[[ast.Call], Helper | None]) -> list[Mark]:
    """The skips of the functions ``test`` calls before any check (``callee`` names
    the function a call of its body calls), each naming the call in its condition."""
    marks: list[Mark] = []
    for call in _leading_calls(test.body):
        helper = callee(call)
        if helper is None or helper.function is test or not _leaves_only_by_skips(helper):
            continue
        where = f"`{dotted(call.func) or called(call)}()`"
        for mark in helper.runs(helper.function):
            if mark.kind != "skip-call":
                continue
            guards = mark.guards
            if guards:
                guards = (*guards[:-1], f"{guards[-1]} (in {where})")
            step = f"through {where}"
            marks.append(replace(mark, scope="body", guards=guards, via=(*mark.via, step)))
    return marks


def _leading_calls(body: list[ast.stmt]) -> Iterator[ast.Call]:
    """The calls made as statements of a test's body before its first statement that
    checks, branches, loops or can leave it."""
    for statement in body:
        if isinstance(statement, _COMPOUND) or type(statement).__name__ == "TryStar":
            return
        if any(_ends_or_checks(node) for node in ast.walk(statement)):
            return
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            yield statement.value


def _ends_or_checks(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert | ast.Raise | ast.Return | ast.Yield | ast.YieldFrom):
        return True
    return called(node).startswith(_CHECK_PREFIXES)


def _leaves_only_by_skips(helper: Helper) -> bool:
    """Whether a function's only ways out before its end are its skips."""
    for node in own_nodes(helper.function.body):
        if isinstance(node, ast.Raise) and skips(node):
            continue
        if isinstance(node, ast.Return | ast.Raise | ast.Yield | ast.YieldFrom):
            return False
    return True
