"""Whether a decorator defined in the repository retries the test it wraps, and how.

``wrapper_runs`` reads the decorator once per way of deciding the conditions it does
not evaluate; this module turns those runs into ``RetryReading`` facts: the test is
called N times when it fails every time (N - 1 reruns, in the model's terms), where
that N comes from (an argument at the call, the signature's default, a constant), what
the ``except`` clauses take, and under which conditions it retries at all (``if not
IS_CI: return f`` in the decorator retries only where ``IS_CI`` holds). A decorator
that calls the test once on every path is no retry and gives nothing; one that retries
only exceptions an assertion is not (``except ConnectionError``) is read with
``assertions=False``, so that the link step can say it hides no violation.
"""

from __future__ import annotations

import ast
import copy
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from detlint.base.span import Span
from detlint.readers.python.definitions import Guarded
from detlint.readers.python.facts import Argument, ArgValue, Dynamic, RetryReading
from detlint.readers.python.guards import negated, quoted
from detlint.readers.python.locations import call_args
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.retry_libraries import (
    ASSERTION,
    LIBRARY_DECORATORS,
    exception_names,
    library_attempts,
    library_catching,
)
from detlint.readers.python.wrapper_runs import Run
from detlint.readers.python.wrapper_statements import ANY
from detlint.readers.python.wrapper_values import (
    TEST,
    Break,
    Closure,
    Continue,
    ExceptionClass,
    GiveUp,
    Library,
    LibraryCalled,
    Number,
    Partial,
    Raised,
    Returned,
    Scope,
    Unknown,
    Value,
)

MAX_RUNS = 32  # ways of deciding the unknown conditions read, at most

# How a reading says the decorator wants more than one pass (no attempt count then).
PASSES_AGAIN = "it calls a passing test"


@dataclass(frozen=True)
class _Result:
    """How one run ended: the test called ``calls`` times, then failed or passed."""

    kind: str  # "plain" (no retry on this path), "retry", "library", "unread"
    calls: int = 0
    escapes: bool = True
    reason: str = ""
    loop: bool = False  # unread at a retry loop's bound: a retry with an unknown limit
    library: Library | None = None


def read_retries(
    index: ModuleIndex, function: Function, arguments: Sequence[Argument], bare: bool
) -> tuple[Guarded, ...]:
    """What ``function`` does to the test it decorates (``@name`` when ``bare``, else
    ``@name(arguments)``): a reading per way it retries, with the guards it needs;
    nothing when it calls the test once on every path, or cannot be read."""
    if not _may_retry(index, function):
        return ()
    readings = _readings(index, function, arguments, bare, ASSERTION)
    if readings:
        return readings
    return tuple(
        (replace(reading, assertions=False), guards)
        for reading, guards in _readings(index, function, arguments, bare, ANY)
    )


def _may_retry(index: ModuleIndex, function: Function, depth: int = 0) -> bool:
    """A cheap look before the read: a retry needs a ``try`` or a retry library, here
    or in a function of the module it calls (``def retry(times): return
    repeat(times, 1)``)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Try):
            return True
        named = isinstance(node, ast.Name | ast.Attribute)
        if named and index.imports.qualify(node) in LIBRARY_DECORATORS:
            return True
        if depth < 2 and isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called = index.functions.get(node.func.id)
            if called not in (None, function) and _may_retry(index, called, depth + 1):
                return True
    return False


def _readings(
    index: ModuleIndex,
    function: Function,
    arguments: Sequence[Argument],
    bare: bool,
    failure: str,
) -> tuple[Guarded, ...]:
    runs = _explore(index, function, arguments, bare, failure)
    definition = index.name_span(function)
    found: dict[RetryReading, list[frozenset[str]]] = {}
    for run, result in runs:
        if result.kind in ("retry", "library") or (result.kind == "unread" and result.loop):
            reading = _reading(run, result, definition, failure)
            again = _passing_calls(index, function, arguments, bare, failure, run)
            if result.kind != "library" and again > 1:
                reading = replace(
                    reading,
                    attempts=None,
                    origin=f"{PASSES_AGAIN} {again} times, so it is no plain retry",
                )
            found.setdefault(reading, []).append(_guards(run))
    everywhere = len(found) == 1 and sum(map(len, found.values())) == len(runs)
    ordered = sorted(found.items(), key=lambda item: -(item[0].attempts or 0))
    return tuple(
        (reading, () if everywhere else tuple(sorted(frozenset.intersection(*guards))))
        for reading, guards in ordered
    )


def _explore(
    index: ModuleIndex,
    function: Function,
    arguments: Sequence[Argument],
    bare: bool,
    failure: str,
) -> list[tuple[Run, _Result]]:
    """One run per way of deciding the unknown conditions met (depth first)."""
    pending: list[dict[int, bool]] = [{}]
    runs: list[tuple[Run, _Result]] = []
    while pending and len(runs) < MAX_RUNS:
        decisions = pending.pop()
        run = Run(index, decisions, failure)
        runs.append((run, _result(run, function, arguments, bare)))
        for place, met in enumerate(run.met):
            if met.key not in decisions:
                branch = {earlier.key: earlier.value for earlier in run.met[:place]}
                branch[met.key] = not met.value
                pending.append(branch)
    return runs


def _passing_calls(
    index: ModuleIndex,
    function: Function,
    arguments: Sequence[Argument],
    bare: bool,
    failure: str,
    failing: Run,
) -> int:
    """How often the decorator calls a test that passes, decided as ``failing`` was.

    A retry calls a passing test once; a decorator that wants several passes
    (``while passes < min_passes``) calls it again, and how often it then reports a
    failure depends on the order of passes and failures, which the always-failing
    read does not see: such a decorator gets no figure.
    """
    decisions = {met.key: met.value for met in failing.met}
    run = Run(index, decisions, failure, passing=True)
    _result(run, function, arguments, bare)
    return run.calls


def _result(run: Run, function: Function, arguments: Sequence[Argument], bare: bool) -> _Result:
    top = Closure(function, run.module, top=True)
    args, keywords = _call_values(arguments)
    try:
        if bare:
            decorated = run.invoke(top, (TEST,), {})
        else:
            decorated = run.invoke(run.invoke(top, args, keywords), (TEST,), {})
        if decorated is TEST:
            return _Result("plain")
        if isinstance(decorated, Library):
            return _Result("library", library=decorated)
        if not isinstance(decorated, Closure | Partial):
            return _Result("unread", reason="it returns no function")
        try:
            run.invoke(decorated, (), {})
        except Raised:
            return _Result("retry" if run.calls > 1 else "plain", run.calls)
        return _Result("retry" if run.calls > 1 else "plain", run.calls, escapes=False)
    except LibraryCalled as called:
        return _Result("library", library=called.library)
    except GiveUp as given:
        return _Result("unread", run.calls, reason=given.reason, loop=given.loop)
    except (Raised, Returned, Break, Continue, RecursionError):
        return _Result("unread", reason="it leaves early")


def _call_values(arguments: Sequence[Argument]) -> tuple[tuple[Value, ...], dict[str, Value]]:
    """The arguments at the call, as the read takes them."""
    args = tuple(_value(a.value) for a in arguments if a.name is None)
    keywords = {a.name: _value(a.value) for a in arguments if a.name is not None}
    return args, keywords


def _value(value: ArgValue) -> Value:
    if isinstance(value, Dynamic):
        names = exception_names(value)
        if names and all(isinstance(v, str) for v in names):
            classes = tuple(ExceptionClass(name.rsplit(".", 1)[-1]) for name in names)
            return classes[0] if len(classes) == 1 and "(" not in value.source else classes
        return Unknown(value.source)
    if isinstance(value, tuple):
        return tuple(_value(item) for item in value)  # type: ignore[arg-type]
    return value


def _guards(run: Run) -> frozenset[str]:
    return frozenset(
        quoted(met.text) if met.value else negated(met.text) for met in run.met if not met.filters
    )


def _reading(run: Run, result: _Result, definition: Span, failure: str) -> RetryReading:
    filters = [met.text for met in run.met if met.filters]
    catches = ", ".join(f"`{text}`" for text in dict.fromkeys(filters or run.caught_by))
    if result.kind == "library" and result.library is not None:
        library = result.library
        written = _library_arguments(run, library)
        catching = library_catching(library.name, written)
        attempts = library_attempts(library.name, written)
        return RetryReading(
            definition,
            attempts,
            _origin(run, "a literal limit in the decorator")
            if attempts is not None
            else f"{library.name} is given no attempt limit it reads",
            library.name,
            catching.what,
            catching.assertions,
        )
    shapes = Counter(shape for shape in run.shapes if shape)
    shape = shapes.most_common(1)[0][0] if shapes else ""
    if result.kind == "unread":
        origin = f"its limit is {result.reason}" if result.reason.startswith("`") else ""
        return RetryReading(definition, None, origin or result.reason, shape or "a loop", catches)
    return RetryReading(
        definition,
        result.calls,
        _origin(run, "a literal bound in the decorator"),
        shape or "a second call",
        catches,
        None if filters and failure != ANY else True,
        swallows=not result.escapes,
    )


def _origin(run: Run, literal: str) -> str:
    return " and ".join(sorted(run.origins)) or literal


def _library_arguments(run: Run, library: Library) -> tuple[Argument, ...]:
    """A retry library's arguments as literals where the decorator's own values make
    them known (``stop=stop_after_attempt(n)`` with ``n`` = 5 reads as
    ``stop_after_attempt(5)``)."""
    if library.call is None:
        return ()
    found = []
    for arg in call_args(library.call):
        if arg.star:
            continue
        run.counting = True
        try:
            value = _written(run, arg.value, library.scope)
        finally:
            run.counting = False
        found.append(Argument(arg.keyword, value, run.index.span(arg.value)))
    return tuple(found)


def _written(run: Run, expression: ast.expr, scope: Scope) -> ArgValue:
    found = run.value(expression, scope)
    plain = found.value if isinstance(found, Number) else found
    if isinstance(plain, int | float | str | bool) or plain is None:
        return plain
    if isinstance(found, ExceptionClass):
        return Dynamic(found.name)
    substituted = _Substitute(run, scope).visit(copy.deepcopy(expression))
    return Dynamic(ast.unparse(substituted))


class _Substitute(ast.NodeTransformer):
    """Names with known integer values replaced by the values."""

    def __init__(self, run: Run, scope: Scope) -> None:
        self.run = run
        self.scope = scope

    def visit_Name(self, node: ast.Name) -> ast.expr:
        found = self.run.name(node.id, self.scope)
        if isinstance(found, Number):
            return ast.Constant(found.value)
        if isinstance(found, int) and not isinstance(found, bool):
            return ast.Constant(found)
        return node
