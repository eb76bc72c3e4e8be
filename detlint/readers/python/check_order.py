"""Which of a function's checks run before an imperative skip or xfail, in execution order.

A ``pytest.xfail()`` or ``self.skipTest()`` written after some of a test's checks ends
the test only when it is reached: a violation among the checks that ran before it has
failed the test already, and only the checks after it are hidden. The order is read
from the statements on the path to the call: those before it in its block and in every
block around it ran first; those after it, and the whole body of a loop around it (its
later iterations), run after. The other branch of an ``if`` it is in never runs with it.
A ``try:`` body whose ``except`` clause holds the call ran first, but a violation there
is what raises into the clause when it can take an AssertionError: those checks are
hidden by the call, not run before it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from detlint.readers.python.names import dotted
from detlint.readers.python.retry_libraries import catches_assertion
from detlint.readers.python.trial_checks import own_nodes
from detlint.readers.python.walk import SCOPES as _NESTED

Check = Callable[[ast.AST], bool]
# One level of the path to a call: the block it is in, the index of the statement that
# holds it, and the statement that owns the block (None for the function's body).
_Level = tuple[list[ast.stmt], int, ast.AST | None]


@dataclass(frozen=True)
class CheckOrder:
    """Where a call stands among the checks of the function it is in.

    ``failing_before``: the lines of the checks that run before it and fail the test on
    a violation (straight-line code before it, in its block and those around it, outside
    any loop around it); ``ran_before``: whether any check may run before it (also in
    an earlier pass of a loop, or in a ``try:`` body it catches); ``after``: whether any
    check may run after it or be hidden by it."""

    failing_before: tuple[int, ...]
    ran_before: bool
    after: bool


def check_order(
    body: list[ast.stmt], call: ast.AST, strict: Check, loose: Check, line: Callable[[int], int]
) -> CheckOrder | None:
    """The order of ``call`` among the checks of ``body``: ``strict`` says what surely
    checks (the lines a message names), ``loose`` what may (a call of the module's own
    functions). None when the call is not in ``body`` outside nested functions."""
    path = _path(body, call)
    if path is None:
        return None
    failing: set[int] = set()
    ran_before = after = False
    for block, index, owner in path:
        before = [node for statement in block[:index] for node in own_nodes([statement])]
        later = [node for statement in block[index + 1 :] for node in own_nodes([statement])]
        hidden: tuple[ast.AST, ...] = ()
        if isinstance(owner, ast.For | ast.AsyncFor | ast.While):
            if block is owner.body:
                later += own_nodes(block)  # the passes after this one run the body again
            else:
                before += own_nodes(owner.body)  # `else:` runs after the last pass
        elif isinstance(owner, ast.Try):
            tried = own_nodes(owner.body)
            if block is owner.orelse:
                before += tried  # it ran, and raised nothing
            elif block is owner.finalbody:
                hidden = tried  # a skip in `finally:` replaces what the body raised
            elif any(h.body is block and not _may_catch_assertion(h) for h in owner.handlers):
                before += tried  # a violation there is not what the clause catches
            else:
                hidden = tried  # a violation there raises into the clause
        # A check in the `try:` body ran before it; what the clause catches may be a
        # violation of any call there (one that runs another test's body), hidden by it.
        ran_before = ran_before or any(loose(n) or strict(n) for n in (*before, *hidden))
        caught = any(isinstance(n, ast.Call) or loose(n) or strict(n) for n in hidden)
        after = after or caught or any(loose(node) or strict(node) for node in later)
        failing.update(line(getattr(node, "lineno", 0)) for node in before if strict(node))
    return CheckOrder(tuple(sorted(failing)), ran_before, after)


def _may_catch_assertion(handler: ast.ExceptHandler) -> bool:
    """Whether an ``except`` clause can take an AssertionError: bare, ``Exception``,
    ``AssertionError``, or a class detlint cannot tell."""
    if handler.type is None:
        return True
    nodes = list(handler.type.elts) if isinstance(handler.type, ast.Tuple) else [handler.type]
    names = [dotted(node) for node in nodes]
    if any(name is None or name.endswith("failureException") for name in names):
        return True
    return catches_assertion(name for name in names if name is not None) is not False


def _path(body: list[ast.stmt], target: ast.AST) -> list[_Level] | None:
    """The blocks from ``body`` down to the statement that holds ``target``."""
    for index, statement in enumerate(body):
        if not any(node is target for node in own_nodes([statement])):
            continue
        for block in _blocks(statement):
            inner = _path(block, target)
            if inner is not None:
                _, first_index, _ = inner[0]
                return [(body, index, None), (block, first_index, statement), *inner[1:]]
        return [(body, index, None)]
    return None


def _blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The blocks of statements one statement holds."""
    if isinstance(statement, _NESTED):
        return []
    found: list[list[ast.stmt]] = []
    for field in ("body", "orelse", "finalbody"):
        block = getattr(statement, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            found.append(block)
    found += [handler.body for handler in getattr(statement, "handlers", None) or []]
    found += [case.body for case in getattr(statement, "cases", None) or []]
    return found
