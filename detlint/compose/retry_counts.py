"""Reading the counts a retry knob is given: ``reruns=3``, ``max_runs=RERUNS``,
``stop=stop_after_attempt(3)``.

A count written as a literal (or a module constant the scan already replaced
by its literal) is known; anything else is code detlint does not evaluate, and
the caller says the count is unknown rather than guess one.
"""

from __future__ import annotations

import re

from detlint.readers.python.facts import ArgValue, Mark
from detlint.readers.python.retry_libraries import (
    LIBRARY_DECORATORS,
    configured_attempts,
    library_attempts,
)


def count_value(value: ArgValue | None) -> int | None:
    """An integer count: a literal int, a bool (``reruns=True`` is one rerun, as the
    plugins' ``int()`` reads it), or an integer string; None for anything else."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


_BOOLEAN_OPERATORS = re.compile(r"\b(?:and|or|not|is|in)\b|==|!=|<|>")
_COUNT_WORDS = ("RERUN", "RETR", "COUNT", "NUM", "TIMES", "ATTEMPT", "MAX", "RUNS", "N_")


def looks_boolean(source: str) -> bool:
    """Whether code passed where a count goes reads as a condition: ``LINUX and PY39``,
    ``sys.platform == "win32"``, ``WINDOWS``, ``is_ci()``. pytest-rerunfailures reads a
    positional argument as the rerun count, so such a marker reruns once where the
    condition holds and never elsewhere; ``RERUNS`` or ``N_RETRIES`` read as counts."""
    code = source.strip()
    if _BOOLEAN_OPERATORS.search(code):
        return True
    name = code.rsplit(".", 1)[-1]
    if name.endswith("()"):
        name = name[:-2]
        return name.startswith(("is_", "has_", "on_", "running_"))
    if name.isidentifier() and name.isupper() and not any(ch.isdigit() for ch in name):
        return not any(word in name for word in _COUNT_WORDS)
    return name.startswith(("IS_", "HAS_", "ON_"))


def retry_decorator_attempts(mark: Mark) -> tuple[int | None, str]:
    """Total attempts of a retry decorator, and where the count comes from: read from
    the repository's own decorator's code, a library's limit (``stop=stop_after_attempt(3)``,
    ``max_tries=4``), or the keywords a configured decorator is given (``max_runs=3``)."""
    if mark.retry is not None:
        return mark.retry.attempts, mark.retry.origin
    if mark.name in LIBRARY_DECORATORS:
        return library_attempts(mark.name, mark.arguments), ""
    configured = configured_attempts(mark.arguments)
    return configured if configured is not None else (None, "")
