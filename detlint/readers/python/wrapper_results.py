"""How one read of a decorator ended: the test called so many times, then failed or
passed, or the read stopped where detlint does not follow.

``wrapper_runs`` holds the read itself; this module applies the decorator to the
stand-in test as the test's module does (``@name`` or ``@name(arguments)``), calls
what it returns as the runner would, and sums the run up as a ``Result``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from detlint.readers.python.facts import Argument, ArgValue, Dynamic
from detlint.readers.python.module_index import Function
from detlint.readers.python.retry_libraries import exception_names
from detlint.readers.python.wrapper_runs import Run
from detlint.readers.python.wrapper_values import (
    TEST,
    TEST_ARGUMENTS,
    Break,
    Closure,
    Continue,
    ExceptionClass,
    GiveUp,
    Instance,
    Library,
    LibraryCalled,
    Partial,
    Raised,
    Returned,
    Unknown,
    Value,
)


@dataclass(frozen=True)
class Result:
    """How one run ended: the test called ``calls`` times, then failed or passed."""

    # "plain" (no retry on this path), "retry", "library", "unread", or "itself" (the
    # decorator returns the test itself: it runs as it is)
    kind: str
    calls: int = 0
    escapes: bool = True
    reason: str = ""
    loop: bool = False  # unread at a retry loop's bound: a retry with an unknown limit
    library: Library | None = None


def result(run: Run, function: Function, arguments: Sequence[Argument], bare: bool) -> Result:
    """Apply ``function`` to the stand-in test and call what it gives, once."""
    top = Closure(function, run.module, top=True)
    args, keywords = call_values(arguments)
    try:
        if bare:
            decorated = run.invoke(top, (TEST,), {})
        else:
            decorated = run.invoke(run.invoke(top, args, keywords), (TEST,), {})
        if decorated is TEST:
            return Result("itself")
        if isinstance(decorated, Library):
            return Result("library", library=decorated)
        if not isinstance(decorated, Closure | Partial | Instance):
            return Result("unread", reason="it returns no function")
        try:
            run.invoke(decorated, (TEST_ARGUMENTS,), {})
        except Raised:
            return Result("retry" if run.calls > 1 else "plain", run.calls)
        return Result("retry" if run.calls > 1 else "plain", run.calls, escapes=False)
    except LibraryCalled as called:
        return Result("library", library=called.library)
    except GiveUp as given:
        return Result("unread", run.calls, reason=given.reason, loop=given.loop)
    except (Raised, Returned, Break, Continue, RecursionError):
        return Result("unread", reason="it leaves early")


def call_values(arguments: Sequence[Argument]) -> tuple[tuple[Value, ...], dict[str, Value]]:
    """The arguments at the call, as the read takes them."""
    args = tuple(_value(a.value) for a in arguments if a.name is None)
    keywords = {a.name: _value(a.value) for a in arguments if a.name is not None}
    return args, keywords


def _value(value: ArgValue) -> Value:
    if isinstance(value, Dynamic):
        names = exception_names(value)
        if names and all(isinstance(v, str) for v in names):
            classes = tuple(ExceptionClass(name.rsplit(".", 1)[-1]) for name in names)
            listed = "(" in value.source or value.source.lstrip().startswith("[")
            return classes[0] if len(classes) == 1 and not listed else classes
        return Unknown(value.source)
    if isinstance(value, tuple):
        return tuple(_value(item) for item in value)  # type: ignore[arg-type]
    return value
