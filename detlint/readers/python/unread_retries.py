"""Retry decorators detlint cannot read: named, never silent.

A decorator of the repository's own is read from its code (``retry_wrappers``); one
the read cannot follow would give nothing, and a real retry would go unreported. So a
decorator whose name or parameters say it retries (a name with ``flaky``, ``retry``,
``rerun``, ``repeat`` or ``attempt`` in it, and no ``no``/``skip``/``without``; a
parameter such as ``max_runs``, ``retries``, ``attempts``, ``times`` or
``min_passes``) gets a reading without a figure, saying why, when

- it returns the test itself after setting attributes on it (flocker's
  ``flaky(jira_keys, max_runs=3, min_passes=1)`` sets ``_flaky``): the code that runs
  the test reads them, a runner override detlint does not follow; or
- its code goes where the read does not follow, and it calls the wrapped function
  inside a loop, or hands it to code the read does not follow (``pool.submit(f)``).

A factory applied bare whose inner function never runs the test (``bare_factories``)
gets a reading of its own: the test passes whatever it asserts.

A decorator that calls the test once on every path stays silent, whatever its name.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from detlint.readers.python.bare_factories import NEVER_RUNS, bare_factory, taken_parameter
from detlint.readers.python.facts import Argument, ArgValue, Dynamic, RetryReading
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.names import NOT_LITERAL, literal
from detlint.readers.python.wrapper_results import Result
from detlint.readers.python.wrapper_runs import Run

_NAME_WORDS = frozenset(
    {
        "flaky",
        "flakey",
        "retry",
        "retries",
        "retrying",
        "retried",
        "rerun",
        "reruns",
        "rerunning",
        "repeat",
        "repeated",
        "repeats",
        "repeating",
        "attempt",
        "attempts",
    }
)
_NEGATIONS = frozenset({"no", "not", "non", "without", "skip", "disable", "disabled", "never"})
# Words a parameter's name ends with (``max_runs``, ``min_passes``, ``num_retries``), or
# holds anywhere (``retry_count``), that say it counts runs.
_LAST_WORDS = frozenset({"runs", "tries", "times", "passes", "repeats"})
_ANY_WORDS = frozenset({"retry", "retries", "rerun", "reruns", "attempt", "attempts"})
# The shape of a reading of a decorator that only sets attributes on the test: applied
# to a function the test calls, it changes nothing (the runner reads the test's own).
RECORDS = "records on the test"
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.GeneratorExp, ast.SetComp)


def words(name: str) -> list[str]:
    """The words of a name, lower case: ``repeatWithSuccess`` -> repeat, with, success."""
    return [word.lower() for part in name.split("_") for word in _WORD.findall(part)]


def retry_parameters(function: Function) -> list[str]:
    """The parameters of ``function`` whose names say they count runs."""
    parameters = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    found = []
    for parameter in parameters:
        said = words(parameter.arg)
        if said and (said[-1] in _LAST_WORDS or _ANY_WORDS.intersection(said)):
            found.append(parameter.arg)
    return found


def says_retry(function: Function) -> bool:
    """Whether the decorator's name or parameters say it retries."""
    said = set(words(function.name))
    if said & _NEGATIONS:
        return False
    return bool(said & _NAME_WORDS) or bool(retry_parameters(function))


def unread_reading(
    index: ModuleIndex,
    function: Function,
    arguments: Sequence[Argument],
    bare: bool,
    runs: Sequence[tuple[Run, Result]],
) -> RetryReading | None:
    """A reading without a figure for a decorator that says it retries and that the read
    did not follow (the module docstring's cases), or None."""
    definition = index.name_span(function)
    factory = bare_factory(function) if bare else None
    if factory is not None:
        origin = (
            f"applied without a call, it takes the test as `{factory.taken}` and leaves its "
            f"inner `{factory.inner}` in the test's place, which returns without running the "
            "test"
        )
        return RetryReading(definition, None, origin, NEVER_RUNS, judged=False)
    for run, result in runs:
        if result.kind == "itself" and (run.annotations or run.handed):
            recorded = _recorded(index, function, arguments) or _attributes(run)
            what = (
                f"it only records {recorded} on the test"
                if run.annotations
                else f"it returns the test as it is, after handing it to `{run.handed[0]}`"
            )
            origin = f"{what}, for the code that runs it; detlint does not follow that code"
            return RetryReading(definition, None, origin, RECORDS, judged=False)
    for run, result in runs:
        if run.handed and result.kind in ("plain", "unread") and result.calls == 0:
            origin = f"it hands the test to `{run.handed[0]}`, which detlint does not follow"
            return RetryReading(definition, None, origin, "", judged=False)
    for _, result in runs:
        if result.kind == "unread" and calls_in_loop(index, function):
            origin = f"it calls the test in a loop detlint cannot follow ({result.reason})"
            taken = taken_parameter(function) if bare else None
            if taken is not None:
                origin = (
                    f"applied without a call, it takes the test as `{taken}`; detlint cannot "
                    f"follow its code from there ({result.reason})"
                )
            return RetryReading(definition, None, origin, "", judged=False)
    return None


def calls_in_loop(index: ModuleIndex, function: Function, depth: int = 0) -> bool:
    """Whether a loop in the decorator's code (or in a module function it calls) calls
    one of its parameters, or hands one to a call."""
    parameters = {
        parameter.arg
        for node in ast.walk(function)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for parameter in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        if parameter.arg not in ("self", "cls")
    }
    for loop in ast.walk(function):
        if not isinstance(loop, _LOOPS):
            continue
        for call in ast.walk(loop):
            if isinstance(call, ast.Call) and any(
                isinstance(node, ast.Name) and node.id in parameters
                for node in (call.func, *call.args)
            ):
                return True
    if depth >= 2:
        return False
    return any(
        calls_in_loop(index, index.functions[node.func.id], depth + 1)
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in index.functions
        and index.functions[node.func.id] is not function
    )


def _recorded(index: ModuleIndex, function: Function, arguments: Sequence[Argument]) -> str:
    """The counts the decorator is given, at the call or by default: "max_runs=3,
    min_passes=1"."""
    bound = _bound(index, function, arguments)
    return ", ".join(
        f"{name}={_shown(bound[name])}" for name in retry_parameters(function) if name in bound
    )


def _attributes(run: Run) -> str:
    named = [f"`{name}`" for name in dict.fromkeys(run.annotations) if name != "an attribute"]
    return ", ".join(named) or "an attribute"


def _bound(
    index: ModuleIndex, function: Function, arguments: Sequence[Argument]
) -> dict[str, ArgValue]:
    """The decorator's parameters as the call binds them, else their literal defaults."""
    signature = function.args
    ordered = [p.arg for p in (*signature.posonlyargs, *signature.args)]
    positional = [argument.value for argument in arguments if argument.name is None]
    bound: dict[str, ArgValue] = dict(zip(ordered, positional, strict=False))
    bound.update({a.name: a.value for a in arguments if a.name is not None})
    defaults: list[tuple[str, ast.expr | None]] = list(
        zip(reversed(ordered), reversed(signature.defaults), strict=False)
    )
    defaults += zip([p.arg for p in signature.kwonlyargs], signature.kw_defaults, strict=True)
    for name, default in defaults:
        if name in bound or default is None:
            continue
        if isinstance(default, ast.Name) and default.id in index.assignments:
            default = index.assignments[default.id]
        value = literal(default)
        if value is not NOT_LITERAL:
            bound[name] = value  # type: ignore[assignment]
    return bound


def _shown(value: ArgValue) -> str:
    if isinstance(value, Dynamic):
        return value.source
    return repr(value) if isinstance(value, str) else str(value)
