"""Loops that retry one check until it passes: one trial, however many passes they allow.

``for attempt in range(5): click(); try: expect(x).to_be_visible(); break except
AssertionError: if attempt == 4: raise`` runs its check again only after it failed,
and stops at the first pass that succeeds: a violation that shows on one pass is
hidden by the next, so one attempt of the test checks the step once, not five
times. Such a loop is a retry of one check (the same in a test body and in a
function the test calls), never a loop of trials. Two shapes say so: the loop stops
at a success (a ``break`` or ``return`` of its own), or it swallows the failure of
its check (a ``try`` around a check, or whose handler re-raises only sometimes, with
a handler that neither always fails the test nor counts the failure for a check
after the loop; re-raising only on the last pass still swallows the others). A
``try`` that only steps over an error of the code it runs (``except Timeout:
pass`` before the check) swallows no check.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from detlint.readers.python.loop_tallies import tallies
from detlint.readers.python.walk import SCOPES as _NESTED

_LOOPS = (ast.For, ast.AsyncFor, ast.While)

STOPS = "the loop stops at its first pass that succeeds: a retry of one check, not trials"
SWALLOWS = "the loop swallows a failing pass and tries again: a retry of one check, not trials"
TENACITY = "the loop is tenacity's Retrying: it runs its checks until they pass, not trials"


def retrying_call(call: ast.Call) -> bool:
    """``Retrying(...)``, ``AsyncRetrying(...)``, ``tenacity.Retrying(...)``."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in ("Retrying", "AsyncRetrying")


def tenacity_loop(loop: ast.For | ast.AsyncFor) -> bool:
    """``for attempt in Retrying(...)`` / ``async for attempt in AsyncRetrying(...)``, or
    any loop whose body runs ``with attempt:`` on its own variable (``for attempt in
    retrying:``): tenacity's attempts, each swallowing the failure of its block."""
    if isinstance(loop.iter, ast.Call) and retrying_call(loop.iter):
        return True
    if not isinstance(loop.target, ast.Name):
        return False
    target = loop.target.id
    return any(
        isinstance(statement, ast.With | ast.AsyncWith)
        and any(
            isinstance(item.context_expr, ast.Name) and item.context_expr.id == target
            for item in statement.items
        )
        for statement in loop.body
    )


def retry_reason(loop: ast.For | ast.AsyncFor, checks: Callable[[ast.AST], bool]) -> str:
    """Why a loop is a retry of one check (empty when it is not one); ``checks`` says
    whether a node is a check."""
    if tenacity_loop(loop):
        return TENACITY
    statements = list(_own_statements(loop.body))
    if any(isinstance(node, ast.Break | ast.Return) for node in statements):
        return STOPS
    for node in statements:
        if isinstance(node, ast.Try) and _swallows(node) and _guards_check(node, checks):
            return SWALLOWS
    return ""


def _guards_check(node: ast.Try, checks: Callable[[ast.AST], bool]) -> bool:
    """Whether a ``try`` is around a check, or its handlers raise (on some pass)."""
    inside = [inner for statement in node.body for inner in ast.walk(statement)]
    if any(checks(inner) for inner in inside):
        return True
    return any(
        isinstance(inner, ast.Raise)
        for handler in node.handlers
        for statement in handler.body
        for inner in ast.walk(statement)
    )


def _own_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a loop body, nested blocks included, without those of inner
    loops (their ``break`` is theirs) and of functions defined in it."""
    for statement in body:
        if isinstance(statement, (*_NESTED, *_LOOPS)):
            continue
        yield statement
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(statement, name, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from _own_statements(inner)
        for handler in getattr(statement, "handlers", ()):
            yield from _own_statements(handler.body)
        for case in getattr(statement, "cases", ()):
            yield from _own_statements(case.body)


def _swallows(node: ast.Try) -> bool:
    """Whether a handler of a ``try`` lets the loop go on after its step failed."""
    return any(
        not _always_fails(handler.body) and not tallies(handler.body) for handler in node.handlers
    )


def _always_fails(body: list[ast.stmt]) -> bool:
    """Whether a handler ends the test on every path: a ``raise`` (or ``pytest.fail``,
    ``assert False``) as a statement of its own, not under an ``if``."""
    for statement in body:
        if isinstance(statement, ast.Raise):
            return True
        if isinstance(statement, ast.Assert) and isinstance(statement.test, ast.Constant):
            return not statement.test.value
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            func = statement.value.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name == "fail":
                return True
    return False
