"""Filters decide what a retry or an xfail masks.

A violation in a nondeterminism test is an assertion failure (``assert`` or
``pytest.fail``), so a rerun that only follows ``only_rerun="Timed out"``, a
``rerun_except=AssertionError``, pytest-retry's ``only_on=[ConnectionError]`` or
an ``xfail(raises=TimeoutError)`` does not mask it: the violation fails the
test as if the knob were not there. A filter detlint cannot decide statically
(a callable, a name it cannot follow) is reported as such, with both outcomes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from detlint.compose.rerun_callables import reruns_assertions
from detlint.readers.python.facts import ArgValue, Dynamic, Mark
from detlint.readers.python.retry_libraries import (
    LIBRARY_DECORATORS,
    Catching,
    catches_assertion,
    exception_names,
    library_catching,
)

# What pytest-rerunfailures matches its regular expressions against for an assertion.
_ASSERTION_TEXT = "AssertionError: "


@dataclass(frozen=True)
class Filtered:
    """What a filter does to a violation: ``masks`` True (it reaches the knob), False
    (it does not: the knob lets it fail), None (detlint cannot tell). ``what`` says
    why, quoting the filter."""

    masks: bool | None
    what: str
    label: str = ""  # the filter as written, for phrases: "rerun_filter=`check`"


PASSES = Filtered(True, "")


def _names(value: ArgValue) -> list[str] | None:
    """Exception names a filter value lists (last parts), or None when it is not a list
    of names; an empty tuple lists none."""
    if isinstance(value, tuple) and not value:
        return []
    names = exception_names(value)
    return None if names is None else [name.rsplit(".", 1)[-1] for name in names]


def _patterns(value: ArgValue) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, tuple) and all(isinstance(item, str) for item in value):
        return [item for item in value if isinstance(item, str)]
    return None


def _regex_matches(patterns: Iterable[str]) -> bool | None:
    found = False
    for pattern in patterns:
        try:
            if re.search(pattern, _ASSERTION_TEXT):
                found = True
        except re.error:
            return None
    return found


def matches_violation(value: ArgValue, subclasses: bool = True) -> bool | None:
    """Whether a filter value (regular expressions, exception classes) matches an
    assertion failure; None when it cannot be told."""
    patterns = _patterns(value)
    if patterns is not None:
        return _regex_matches(patterns)
    names = _names(value)
    if names is not None:
        return catches_assertion(names, subclasses)
    return None


def _shown(value: object) -> str:
    if isinstance(value, Dynamic):
        return f"`{value.source}`"
    if isinstance(value, tuple):
        return ", ".join(_shown(item) for item in value)
    return repr(value)


def rerunfailures_filter(
    mark: Mark | None, only_rerun: tuple[str, ...], rerun_except: tuple[str, ...]
) -> Filtered:
    """pytest-rerunfailures: the marker's filters replace the configured ones; a failure
    is rerun if it matches ``only_rerun`` (when set) and not ``rerun_except``."""
    only: ArgValue | None = tuple(only_rerun) if only_rerun else None
    exclude: ArgValue | None = tuple(rerun_except) if rerun_except else None
    source = "the configured"
    if mark is not None and (mark.has_keyword("only_rerun") or mark.has_keyword("rerun_except")):
        only, exclude, source = mark.keyword("only_rerun"), mark.keyword("rerun_except"), "its"
    if only is not None:
        matched = matches_violation(only)
        if matched is False:
            return Filtered(
                False,
                f"{source} only_rerun={_shown(only)} reruns only failures that match it; "
                "an assertion violation is not rerun",
            )
        if matched is None:
            label = f"only_rerun={_shown(only)}"
            return Filtered(None, f"{source} {label} decides what is rerun", label)
    if exclude is not None:
        matched = matches_violation(exclude)
        if matched is True:
            return Filtered(
                False,
                f"{source} rerun_except={_shown(exclude)} excludes assertion failures; "
                "an assertion violation is not rerun",
            )
        if matched is None:
            label = f"rerun_except={_shown(exclude)}"
            return Filtered(None, f"{source} {label} decides what is rerun", label)
    return PASSES


def retry_filter(mark: Mark) -> Filtered:
    """pytest-retry: ``only_on`` and ``exclude`` list exception types, matched exactly
    (a subclass does not match)."""
    if mark.has_keyword("only_on"):
        value = mark.keyword("only_on")
        matched = matches_violation(value, subclasses=False) if value is not None else True
        if matched is False:
            return Filtered(
                False,
                f"only_on={_shown(value)} retries only those exact exception types; "
                "an assertion violation is not retried",
            )
        if matched is None:
            label = f"only_on={_shown(value)}"
            return Filtered(None, f"{label} decides what is retried", label)
    if mark.has_keyword("exclude"):
        value = mark.keyword("exclude")
        matched = matches_violation(value, subclasses=False) if value is not None else False
        if matched is True:
            return Filtered(False, "exclude=AssertionError: an assertion violation is not retried")
        if matched is None:
            label = f"exclude={_shown(value)}"
            return Filtered(None, f"{label} decides what is retried", label)
    return PASSES


def flaky_filter(mark: Mark) -> Filtered:
    """The flaky package: ``rerun_filter`` is a callable detlint does not run; a lambda
    testing the failure's class, inline or as a module function that returns it, is read
    (``rerun_callables``)."""
    value = mark.keyword("rerun_filter")
    if value is None:
        positional = mark.positional()
        value = positional[2] if len(positional) > 2 else None
    if value is None:
        return PASSES
    label = f"rerun_filter={_shown(value)}"
    reruns = (
        reruns_assertions(value.returns or value.source) if isinstance(value, Dynamic) else None
    )
    if reruns is False:
        return Filtered(
            False,
            f"{label} reruns only the failures it accepts, and an assertion failure is not "
            "one: an assertion violation is not rerun",
        )
    if reruns is True:
        return PASSES
    return Filtered(None, f"{label} decides what is rerun", label)


def xfail_filter(mark: Mark) -> Filtered:
    """``xfail(raises=...)``: a failure with any other exception is a real failure."""
    if not mark.has_keyword("raises"):
        return PASSES
    value = mark.keyword("raises")
    matched = matches_violation(value) if value is not None else True
    if matched is False:
        return Filtered(
            False, f"XFAIL only for raises={_shown(value)}; an assertion violation fails the test"
        )
    if matched is None:
        label = f"raises={_shown(value)}"
        return Filtered(None, f"{label} decides what is an expected failure", label)
    return PASSES


def skip_filter(mark: Mark) -> Filtered:
    """A skip reached only in ``except OSError:`` (no clause on its path takes an
    AssertionError): it runs after another error ended the checks, so a violation
    fails the test before any skip, as with ``xfail(raises=OSError)``."""
    if not mark.caught:
        return PASSES
    return Filtered(
        False,
        f"{mark.name}() at line {mark.span.line} runs only in `except {mark.caught}:`; "
        "an assertion violation fails the test",
    )


def decorator_filter(mark: Mark) -> Filtered:
    """What a retry decorator retries: the except clauses of the repository's own (read
    from its code), a library's filter (``retry=retry_if_exception_type(IOError)``,
    ``backoff.on_exception(expo, ConnectionError)``); a configured decorator's is unknown
    to detlint and taken to retry everything."""
    reading = mark.retry
    if reading is not None:
        if reading.assertions is False:
            return Filtered(
                False,
                f"{mark.name} catches only {reading.catches}: an assertion violation fails "
                "the test at its first attempt",
            )
        if reading.assertions is None:
            label = reading.catches
            return Filtered(None, f"{label} decides what {mark.name} retries", label)
        return PASSES
    if mark.name not in LIBRARY_DECORATORS:
        return PASSES
    catching: Catching = library_catching(mark.name, mark.arguments)
    if catching.assertions is False:
        return Filtered(
            False, f"{mark.name}: {catching.what}; an assertion violation is not retried"
        )
    if catching.assertions is None:
        return Filtered(None, f"{catching.what} decides what {mark.name} retries", catching.what)
    return PASSES
