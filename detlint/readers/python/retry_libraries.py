"""What the retry libraries do to a test they wrap, from the arguments they are given.

tenacity (``retry``), backoff (``on_exception``, ``on_predicate``), retrying and the
``retry`` package each take the attempt limit and the exceptions they retry under
their own names: ``stop=stop_after_attempt(3)``, ``max_tries=4``,
``stop_max_attempt_number=5``, ``tries=3``; ``retry=retry_if_exception_type(IOError)``,
``backoff.on_exception(expo, ConnectionError)``, ``exceptions=(OSError,)``. A
violation is an assertion failure, so a decorator that retries only other exceptions
(or only on a returned value) lets it fail the test at once.

Decorators named in the ``retry-decorators`` setting are someone else's: their
attempt limit is read from the usual keywords (``max_runs=3``, ``retries=2``), each
with what it is taken to mean.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from detlint.readers.python.facts import Argument, ArgValue, Dynamic

TENACITY = "tenacity.retry"
BACKOFF_EXCEPTION = "backoff.on_exception"
BACKOFF_PREDICATE = "backoff.on_predicate"
RETRYING = "retrying.retry"
RETRY_PACKAGE = ("retry.retry", "retry.api.retry")
LIBRARY_DECORATORS = frozenset(
    {TENACITY, BACKOFF_EXCEPTION, BACKOFF_PREDICATE, RETRYING, *RETRY_PACKAGE}
)

# What a violation raises, and the classes that catch it (subclasses match in an
# `except` clause and in the libraries' filters).
ASSERTION = "AssertionError"
ASSERTION_CATCHERS = frozenset({ASSERTION, "Exception", "BaseException"})
EXCEPTION_NAME = re.compile(r"(?:\w+\.)*\w*(?:Error|Exception|Exit|Interrupt|Warning|Failure)")
# Exception classes no AssertionError is: unittest's and pytest's skips, iteration's end.
OTHER_EXCEPTIONS = frozenset({"SkipTest", "Skipped", "StopIteration", "StopAsyncIteration"})
_NAME = re.compile(r"[A-Za-z_][\w.]*")
_STOP_AFTER = re.compile(r"stop_after_attempt\(\s*(\d+)\s*\)")

# Keywords a configured decorator's attempt limit goes by: the attempts in all, the
# retries after the first attempt, and words that could mean either (read as attempts,
# and the message says so).
ATTEMPT_KEYWORDS = ("attempts", "max_attempts", "max_runs", "tries", "max_tries")
RETRY_KEYWORDS = ("retries", "max_retries", "reruns")
AMBIGUOUS_KEYWORDS = ("times", "count", "n")


@dataclass(frozen=True)
class Catching:
    """Whether a retry takes an assertion failure: True, False (it retries other
    exceptions only), None (code detlint does not evaluate decides); ``what`` quotes
    the filter."""

    assertions: bool | None
    what: str = ""


RETRIES_ANY = Catching(True)


def catches_assertion(names: Iterable[str], subclasses: bool = True) -> bool | None:
    """Whether exception classes named ``names`` take an AssertionError: True, False
    when every name is another exception class, None when some name is not one."""
    listed = [name.rsplit(".", 1)[-1] for name in names]
    if (ASSERTION_CATCHERS if subclasses else {ASSERTION}).intersection(listed):
        return True
    if all(EXCEPTION_NAME.fullmatch(name) or name in OTHER_EXCEPTIONS for name in listed):
        return False
    return None


def exception_names(value: ArgValue | None) -> list[str] | None:
    """The exception classes an argument lists (``ConnectionError``, ``(OSError,
    TimeoutError)``), or None when it is not a list of names."""
    if isinstance(value, Dynamic):
        text = value.source.strip().strip("[]()")
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if parts and all(_NAME.fullmatch(part) for part in parts):
            return parts
        return None
    if isinstance(value, tuple) and value:
        found: list[str] = []
        for item in value:
            names = exception_names(item) if isinstance(item, Dynamic) else None
            if names is None:
                return None
            found += names
        return found
    return None


def _keyword(arguments: Sequence[Argument], name: str, position: int = -1) -> ArgValue | None:
    for argument in arguments:
        if argument.name == name:
            return argument.value
    positional = [argument.value for argument in arguments if argument.name is None]
    return positional[position] if 0 <= position < len(positional) else None


def _count(value: ArgValue | None) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def library_attempts(name: str, arguments: Sequence[Argument]) -> int | None:
    """The attempts in all a library decorator makes, when its limit is a literal."""
    if name == TENACITY:
        stop = _keyword(arguments, "stop")
        found = _STOP_AFTER.search(stop.source) if isinstance(stop, Dynamic) else None
        return int(found.group(1)) if found else None
    if name in (BACKOFF_EXCEPTION, BACKOFF_PREDICATE):
        return _count(_keyword(arguments, "max_tries"))
    if name == RETRYING:
        return _count(_keyword(arguments, "stop_max_attempt_number"))
    if name in RETRY_PACKAGE:
        tries = _count(_keyword(arguments, "tries", 1))
        return tries if tries is not None and tries > 0 else None  # -1: until it passes
    return None


def configured_attempts(arguments: Sequence[Argument]) -> tuple[int, str] | None:
    """The attempt limit a configured decorator is given at its call, and how it was
    read: ``max_runs=3`` is 3 attempts, ``retries=3`` is 4, ``times=3`` is taken as 3."""
    for argument in arguments:
        value = argument.value
        if argument.name == "stop" and isinstance(value, Dynamic):
            found = _STOP_AFTER.search(value.source)
            if found:
                return int(found.group(1)), f"stop={value.source} at the call"
        count = _count(value)
        if argument.name is None or count is None:
            continue
        written = f"{argument.name}={count} at the call"
        if argument.name in ATTEMPT_KEYWORDS:
            return count, written
        if argument.name in RETRY_KEYWORDS:
            return count + 1, f"{written}, after a first attempt"
        if argument.name in AMBIGUOUS_KEYWORDS:
            return count, f"{written}, taken as the number of attempts"
    return None


def library_catching(name: str, arguments: Sequence[Argument]) -> Catching:
    """What a library decorator retries, from its filter arguments."""
    if name == TENACITY:
        return _tenacity_catching(_keyword(arguments, "retry"))
    if name == BACKOFF_PREDICATE:
        return Catching(
            False, "on_predicate retries on the value the test returns, not on an exception"
        )
    if name == BACKOFF_EXCEPTION:
        if _keyword(arguments, "giveup") is not None:
            return Catching(None, f"giveup={_shown(_keyword(arguments, 'giveup'))}")
        return _listed(_keyword(arguments, "exception", 1), "exception")
    if name == RETRYING and _keyword(arguments, "retry_on_exception") is not None:
        return Catching(
            None, f"retry_on_exception={_shown(_keyword(arguments, 'retry_on_exception'))}"
        )
    if name in RETRY_PACKAGE:
        return _listed(_keyword(arguments, "exceptions", 0), "exceptions")
    return RETRIES_ANY


def _tenacity_catching(value: ArgValue | None) -> Catching:
    """tenacity's ``retry=``: every exception by default; ``retry_if_exception_type``
    lists the classes retried, ``retry_if_not_exception_type`` those that are not, and
    ``retry_if_result`` retries on the value returned only. ``retry_always`` calls the
    function again after a pass too, until the stop: the outcome is the last attempt's,
    as often failing as a single call, so it hides no violation (a stability check,
    ``with pytest.raises(RetryError)`` around it)."""
    if value is None:
        return RETRIES_ANY
    source = value.source.strip() if isinstance(value, Dynamic) else repr(value)
    if re.fullmatch(r"(?:tenacity\.)?retry_always", source):
        return Catching(False, f"retry=`{source}` runs every attempt, passing or not")
    call = re.fullmatch(r"(?:tenacity\.)?(retry_if_\w+)\((.*)\)", source, re.DOTALL)
    if call is None or "|" in source or "&" in source:
        return Catching(None, f"retry=`{source}`")
    kind, inside = call.group(1), call.group(2).strip()
    names = exception_names(Dynamic(inside)) if inside else ["Exception"]
    caught = catches_assertion(names) if names is not None else None
    if kind == "retry_if_exception_type" and caught is not None:
        return Catching(caught, f"retry=`{source}`")
    if kind == "retry_if_not_exception_type" and caught is not None:
        return Catching(not caught, f"retry=`{source}`")
    if kind == "retry_if_result":
        return Catching(False, f"retry=`{source}` retries on the value returned, not on an error")
    return Catching(None, f"retry=`{source}`")


def _listed(value: ArgValue | None, keyword: str) -> Catching:
    if value is None:
        return RETRIES_ANY
    names = exception_names(value)
    caught = catches_assertion(names) if names is not None else None
    return Catching(caught, f"{keyword}={_shown(value)}")


def _shown(value: object) -> str:
    if isinstance(value, Dynamic):
        return f"`{value.source}`"
    if isinstance(value, tuple):
        return ", ".join(_shown(item) for item in value)
    return repr(value)
