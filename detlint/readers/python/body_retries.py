"""Retry loops written in a test's body: ``for attempt in range(3): try: <checks>;
break; except AssertionError: if attempt == 2: raise``.

Such a loop runs its checks again after they failed and stops at the first pass that
succeeds, so a violation among them is reported only if all of its passes show it:
the same arithmetic as a retry decorator with as many attempts, over the checks the
loop holds. ``retry_loops`` already keeps it from being read as trials; this module
reads it as a knob, with a figure only for the one shape whose count is plain: a
``range`` of a literal bound, a ``try`` around the checks with a ``break`` after
them, and a handler that takes an AssertionError and re-raises on the last pass
alone. Any other retry loop stays a retry of one check without a figure.

A loop over tenacity's attempts (``for attempt in Retrying(stop=stop_after_attempt(3)):
with attempt: <checks>``, ``async for`` over ``AsyncRetrying``) is the same layer, its
count the literal ``stop_after_attempt(N)`` of the call, its filter the call's
``retry=``. A stop on time (``stop_after_delay``), none at all (tenacity then retries
until the checks pass), or a ``Retrying`` made elsewhere gives no count: the knob is
named, without a figure.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace

from detlint.base.span import Span
from detlint.readers.python.facts import Argument, Mark, RetryReading
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.retry_libraries import TENACITY, library_attempts, library_catching
from detlint.readers.python.retry_loops import retry_reason, retrying_call, tenacity_loop
from detlint.readers.python.trial_checks import TrialChecks, own_nodes

# ``RetryReading.shape`` of a retry loop in the test body: the rules word it as a loop.
BODY_LOOP = "a retry loop in the test body"
_BLOCKS = (ast.If, ast.With, ast.AsyncWith, ast.Try)
_ASSERTION_TYPES = frozenset({"AssertionError", "Exception", "BaseException"})


def body_retries(function: Function, index: ModuleIndex) -> list[Mark]:
    """A ``retry-decorator`` mark for each counted retry loop of the test's own body
    (not one inside another loop, whose passes would each retry on their own)."""
    marks: list[Mark] = []
    checks = TrialChecks(index, function).checks
    for loop in _top_loops(function.body):
        if tenacity_loop(loop):
            if any(checks(node) for node in own_nodes(loop.body)):
                marks += _tenacity_marks(loop, index)
            continue
        if not isinstance(loop, ast.For):
            continue
        counted = _attempts(loop)
        if counted is None or not retry_reason(loop, checks):
            continue
        attempts, last = counted
        handler = _last_pass_handler(loop, last)
        if handler is None:
            continue
        line = index.original_line(loop.lineno)
        header = index.text(loop).split(":", 1)[0].strip()
        span = Span(index.path, line, loop.col_offset + 1, line, loop.col_offset + 1 + len(header))
        caught = f"except {index.text(handler.type)}" if handler.type is not None else "except"
        reading = RetryReading(span, attempts, "", BODY_LOOP, caught, True)
        marks.append(Mark("retry-decorator", header, (), True, span, "body", retry=reading))
    return marks


def _tenacity_marks(loop: ast.For | ast.AsyncFor, index: ModuleIndex) -> list[Mark]:
    """The knob of a loop over tenacity's attempts: none when its ``retry=`` takes no
    assertion failure (it hides no violation of the checks)."""
    call = loop.iter if isinstance(loop.iter, ast.Call) and retrying_call(loop.iter) else None
    arguments = () if call is None else _arguments(call, index)
    attempts = None if call is None else library_attempts(TENACITY, arguments)
    catching = library_catching(TENACITY, arguments)
    starred = None if call is None else _starred(call, index)
    if call is None:
        origin = f"`{_shown(loop.iter, index)}` gives the attempts; it is not read"
        catching = replace(catching, assertions=None, what=origin)
    elif starred is not None and attempts is None:
        origin = (
            f"its arguments come from `{starred}`, not read; taken to retry an assertion "
            "failure, as tenacity does by default"
        )
        catching = replace(catching, assertions=None, what=origin)
    elif attempts is None:
        stop = next((k.value for k in call.keywords if k.arg == "stop"), None)
        origin = (
            "no stop: tenacity retries until the checks pass"
            if stop is None
            else f"stop=`{' '.join(index.text(stop).split())}`"
        )
    else:
        origin = f"stop_after_attempt({attempts})"
    if catching.assertions is False:
        return []
    head = "async for" if isinstance(loop, ast.AsyncFor) else "for"
    name = f"{head} {index.text(loop.target)} in {_shown(loop.iter, index)}"
    line = index.original_line(loop.lineno)
    span = Span(index.path, line, loop.col_offset + 1, line, loop.col_offset + 1 + len(head))
    reading = RetryReading(
        span, attempts, "" if attempts else origin, BODY_LOOP, catching.what, catching.assertions
    )
    return [Mark("retry-decorator", name, arguments, True, span, "body", retry=reading)]


def _shown(iterable: ast.expr, index: ModuleIndex) -> str:
    """What a loop walks, a call's arguments left out: "AsyncRetrying(...)"."""
    if isinstance(iterable, ast.Call):
        return f"{index.text(iterable.func)}(...)"
    return index.text(iterable)


def _starred(call: ast.Call, index: ModuleIndex) -> str | None:
    """The ``**params`` or ``*args`` of a call, as written: their contents are not read."""
    for keyword in call.keywords:
        if keyword.arg is None:
            return f"**{index.text(keyword.value)}"
    return next((index.text(arg) for arg in call.args if isinstance(arg, ast.Starred)), None)


def _arguments(call: ast.Call, index: ModuleIndex) -> tuple[Argument, ...]:
    return tuple(Argument(arg.keyword, value, span) for arg, span, value in index.arguments(call))


def _top_loops(body: list[ast.stmt]) -> Iterator[ast.For | ast.AsyncFor]:
    """The ``for`` loops of a body outside any other loop and any nested function."""
    for statement in body:
        if isinstance(statement, ast.For | ast.AsyncFor):
            yield statement
        elif isinstance(statement, _BLOCKS):
            for name in ("body", "orelse", "finalbody"):
                yield from _top_loops(getattr(statement, name, []))
            for handler in getattr(statement, "handlers", ()):
                yield from _top_loops(handler.body)


def _attempts(loop: ast.For) -> tuple[int, int] | None:
    """(passes, last value) of ``for NAME in range(N)`` or ``range(START, STOP)`` with
    literal bounds and two passes or more."""
    call = loop.iter
    if not (
        isinstance(loop.target, ast.Name)
        and isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "range"
        and not call.keywords
        and len(call.args) in (1, 2)
    ):
        return None
    bounds = [
        arg.value for arg in call.args if isinstance(arg, ast.Constant) and type(arg.value) is int
    ]
    if len(bounds) != len(call.args):
        return None
    start, stop = (0, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
    return (stop - start, stop - 1) if stop - start >= 2 else None


def _last_pass_handler(loop: ast.For, last: int) -> ast.ExceptHandler | None:
    """The handler of the loop's ``try`` that takes an AssertionError and re-raises on
    the last pass only, when the ``try`` breaks out of the loop after its checks."""
    assert isinstance(loop.target, ast.Name)
    name = loop.target.id
    for statement in loop.body:
        if not isinstance(statement, ast.Try) or not _breaks(statement):
            continue
        for handler in statement.handlers:
            if _takes_assertions(handler) and _raises_on_last(handler.body, name, last):
                return handler
    return None


def _breaks(node: ast.Try) -> bool:
    last = [*node.body, *node.orelse][-1]
    return isinstance(last, ast.Break)


def _takes_assertions(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(t, ast.Name) and t.id in _ASSERTION_TYPES for t in types)


def _raises_on_last(body: list[ast.stmt], name: str, last: int) -> bool:
    """``if NAME == LAST: raise`` (or ``>= LAST``, ``> LAST - 1``, ``+ 1 == LAST + 1``)
    as the handler's first statement, with nothing after it (nor in an ``else:``
    beside it) that fails the test."""
    if len(body) < 1 or not isinstance(body[0], ast.If):
        return False
    test, then, otherwise = body[0].test, body[0].body, body[0].orelse
    if len(then) != 1 or not isinstance(then[0], ast.Raise) or then[0].exc is not None:
        return False
    if any(_fails(statement) for statement in [*otherwise, *body[1:]]):
        return False
    return _is_last_pass(test, name, last)


def _fails(statement: ast.stmt) -> bool:
    return any(isinstance(node, ast.Raise | ast.Assert) for node in ast.walk(statement))


def _is_last_pass(test: ast.expr, name: str, last: int) -> bool:
    """Whether ``test`` holds on the pass where NAME is ``last`` and on no pass before."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if not isinstance(right, ast.Constant) or type(right.value) is not int:
        return False
    bound = right.value
    if _is_plus_one(left, name):
        bound -= 1
    elif not (isinstance(left, ast.Name) and left.id == name):
        return False
    if isinstance(op, ast.Eq | ast.GtE):
        return bound == last
    return isinstance(op, ast.Gt) and bound == last - 1


def _is_plus_one(node: ast.expr, name: str) -> bool:
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Add)
        and isinstance(node.left, ast.Name)
        and node.left.id == name
        and isinstance(node.right, ast.Constant)
        and node.right.value == 1
    )
