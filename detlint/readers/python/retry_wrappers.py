"""Whether a decorator defined in the repository retries the test it wraps, and how.

``wrapper_runs`` reads the decorator once per way of deciding the conditions it does
not evaluate; this module turns those runs into ``RetryReading`` facts: the test is
called N times when it fails every time (N - 1 reruns, in the model's terms), where
that N comes from (an argument at the call, the signature's default, a constant), what
the ``except`` clauses take, and under which conditions it retries at all (``if not
IS_CI: return f`` in the decorator retries only where ``IS_CI`` holds). A decorator
that calls the test once on every path is no retry and gives nothing; one that retries
only exceptions an assertion is not (``except ConnectionError``) is read with
``assertions=False``, so that the link step can say it hides no violation. One that
calls a passing test again wants several passes: read as flaky's threshold where it
behaves as one (``wrapper_thresholds``), a repeat when every run must pass, else
without a figure.
"""

from __future__ import annotations

import ast
import copy
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from detlint.base.span import Span
from detlint.readers.python.definitions import Guarded
from detlint.readers.python.facts import Argument, ArgValue, Dynamic, RetryReading
from detlint.readers.python.guards import negated, quoted
from detlint.readers.python.locations import call_args
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.retry_libraries import (
    ASSERTION,
    LIBRARY_DECORATORS,
    library_attempts,
    library_catching,
)
from detlint.readers.python.unread_retries import says_retry, unread_reading
from detlint.readers.python.wrapper_results import Result
from detlint.readers.python.wrapper_results import result as result_of
from detlint.readers.python.wrapper_runs import Run
from detlint.readers.python.wrapper_statements import ANY
from detlint.readers.python.wrapper_thresholds import Passes, Read, passes_wanted
from detlint.readers.python.wrapper_unittest import RUNNER_NAMES
from detlint.readers.python.wrapper_values import (
    ExceptionClass,
    Library,
    Number,
    Scope,
)

MAX_RUNS = 32  # ways of deciding the unknown conditions read, at most

# How a reading says the decorator wants more than one pass (no attempt count then).
PASSES_AGAIN = "it calls a passing test"


def read_retries(
    index: ModuleIndex, function: Function, arguments: Sequence[Argument], bare: bool
) -> tuple[Guarded, ...]:
    """What ``function`` does to the test it decorates (``@name`` when ``bare``, else
    ``@name(arguments)``): a reading per way it retries, with the guards it needs;
    nothing when it calls the test once on every path. One it cannot read is nothing
    too, unless its name or parameters say it retries (``unread_retries``): it is then
    named, with what detlint could not follow."""
    named = says_retry(function)
    if not named and not _may_retry(index, function):
        return ()
    runs = _explore(index, function, arguments, bare, ASSERTION)
    readings = _readings(index, function, arguments, bare, ASSERTION, runs)
    if readings:
        return readings
    readings = tuple(
        (replace(reading, assertions=False), guards)
        for reading, guards in _readings(
            index, function, arguments, bare, ANY, _explore(index, function, arguments, bare, ANY)
        )
    )
    if readings or not named:
        return readings
    unread = unread_reading(index, function, arguments, bare, runs)
    return ((unread, ()),) if unread is not None else ()


def _may_retry(index: ModuleIndex, function: Function, depth: int = 0) -> bool:
    """A cheap look before the read: a retry needs a ``try``, a retry library or
    unittest's runner, here or in a function or class of the module it calls (``def
    retry(times): return repeat(times, 1)``)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Try):
            return True
        named = isinstance(node, ast.Name | ast.Attribute)
        qualified = index.imports.qualify(node) if named else None
        if qualified in LIBRARY_DECORATORS or qualified in RUNNER_NAMES:
            return True
        if depth < 2 and isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            for called in _called(index, node.func.id):
                if called is not function and _may_retry(index, called, depth + 1):
                    return True
    return False


def _called(index: ModuleIndex, name: str) -> list[Function]:
    """The module's function ``name``, or the methods of its class ``name``."""
    if name in index.functions:
        return [index.functions[name]]
    return [
        statement
        for klass in index.classes
        if klass.name == name
        for statement in klass.body
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _readings(
    index: ModuleIndex,
    function: Function,
    arguments: Sequence[Argument],
    bare: bool,
    failure: str,
    runs: list[tuple[Run, Result]],
) -> tuple[Guarded, ...]:
    definition = index.name_span(function)
    found: dict[RetryReading, list[frozenset[str]]] = {}
    for run, result in runs:
        read = Read(index, function, arguments, bare, failure, {m.key: m.value for m in run.met})
        reading = _reading_of(read, run, result, definition)
        if reading is not None:
            found.setdefault(reading, []).append(_guards(run))
    everywhere = len(found) == 1 and sum(map(len, found.values())) == len(runs)
    ordered = sorted(found.items(), key=lambda item: -(item[0].attempts or 0))
    return tuple(
        (reading, () if everywhere else tuple(sorted(frozenset.intersection(*guards))))
        for reading, guards in ordered
    )


def _reading_of(read: Read, run: Run, result: Result, definition: Span) -> RetryReading | None:
    """What one run says: a retry (with its count, or why there is none), a threshold
    of passes, a repeat that wants every run to pass, or nothing (one call)."""
    if result.kind == "plain" and result.escapes and result.calls == 1:
        passes = passes_wanted(read, 1)
        if passes.max_runs is None:
            return None  # it calls the test once, or wants passes in a way not modelled
        return _threshold(run, passes, definition, "every run must pass")
    if result.kind not in ("retry", "library") and not (result.kind == "unread" and result.loop):
        return None
    reading = _reading(run, result, definition, read.failure)
    if result.kind == "library":
        return reading
    passes = passes_wanted(read, result.calls if result.kind == "retry" else 0)
    if passes.calls < 2:
        return reading
    if passes.max_runs is not None and result.escapes:
        return replace(
            _threshold(run, passes, definition, reading.shape),
            catches=reading.catches,
            assertions=reading.assertions,
        )
    often = f"{passes.calls} times"
    if passes.bound:
        said = passes.bound if passes.bound.startswith("`") else "code detlint does not follow"
        often = f"again, as often as {said} says"
    return replace(
        reading, attempts=None, origin=f"{PASSES_AGAIN} {often}, so it is no plain retry"
    )


def _threshold(run: Run, passes: Passes, definition: Span, shape: str) -> RetryReading:
    """A decorator read as flaky's ``max_runs`` and ``min_passes``."""
    origins = " and ".join(sorted(run.origins | passes.origins))
    return RetryReading(
        definition,
        passes.max_runs,
        origins or "a literal bound in the decorator",
        shape,
        min_passes=passes.calls,
    )


def _explore(
    index: ModuleIndex,
    function: Function,
    arguments: Sequence[Argument],
    bare: bool,
    failure: str,
) -> list[tuple[Run, Result]]:
    """One run per way of deciding the unknown conditions met (depth first)."""
    pending: list[dict[int, bool]] = [{}]
    runs: list[tuple[Run, Result]] = []
    while pending and len(runs) < MAX_RUNS:
        decisions = pending.pop()
        run = Run(index, decisions, failure)
        runs.append((run, result_of(run, function, arguments, bare)))
        for place, met in enumerate(run.met):
            if met.key not in decisions:
                branch = {earlier.key: earlier.value for earlier in run.met[:place]}
                branch[met.key] = not met.value
                pending.append(branch)
    return runs


def _guards(run: Run) -> frozenset[str]:
    return frozenset(
        quoted(met.text) if met.value else negated(met.text) for met in run.met if not met.filters
    )


def _reading(run: Run, result: Result, definition: Span, failure: str) -> RetryReading:
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
