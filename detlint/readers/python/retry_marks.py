"""Marks for the retry decorators a repository defines itself.

``retry_wrappers`` reads a decorator's code into ``RetryReading`` facts, one per way
it retries; each becomes a ``retry-decorator`` mark at the place the test names the
decorator, with the guards it needs (``if not IS_CI: return f`` in the decorator: it
retries where ``IS_CI`` holds). A decorator is read once per set of arguments it is
called with, in the module that defines it.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import replace

from detlint.base.span import Span
from detlint.readers.python.definitions import Definitions, Guarded
from detlint.readers.python.facts import Argument, Mark, RetryReading, Scope
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.names import literal
from detlint.readers.python.retry_libraries import configured_attempts
from detlint.readers.python.retry_wrappers import read_retries

# How a configured decorator whose code detlint cannot follow is said to retry.
CONFIGURED = "named in retry-decorators"


class RetryReader:
    """The readings of the decorators one module defines, each read once per call shape."""

    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self._read: dict[tuple[int, tuple[object, ...], bool], tuple[Guarded, ...]] = {}

    def readings(
        self, function: Function, arguments: Sequence[Argument], bare: bool
    ) -> tuple[Guarded, ...]:
        key = (id(function), tuple((a.name, a.value) for a in arguments), bare)
        found = self._read.get(key)
        if found is None:
            found = self._read[key] = read_retries(self.index, function, arguments, bare)
        return found

    def named(
        self, name: str, arguments: Sequence[Argument], bare: bool, configured: bool = False
    ) -> tuple[Guarded, ...] | None:
        """The readings of module-level function ``name`` (None when there is none). A
        name the ``retry-decorators`` setting lists is a retry whatever detlint can follow
        of its code: its limit is then read from the call and the signature's defaults."""
        function = self.index.functions.get(name)
        if function is None or name in self.index.alternatives:
            return None
        found = self.readings(function, arguments, bare)
        if found or not configured:
            return found
        reading = signature_reading(self.index, function, arguments)
        return ((reading, ()),) if reading is not None else ()


def signature_reading(
    index: ModuleIndex, function: Function, arguments: Sequence[Argument]
) -> RetryReading | None:
    """A configured decorator's attempt limit from the keywords it goes by (``max_runs``,
    ``retries``, ...): given at the call, by keyword or position, else the default."""
    signature = function.args
    ordered = [*signature.posonlyargs, *signature.args]
    positional = [argument for argument in arguments if argument.name is None]
    given = {argument.name: argument for argument in arguments if argument.name is not None}
    given.update({p.arg: a for p, a in zip(ordered, positional, strict=False)})
    defaults: dict[str, ast.expr | None] = dict(
        zip(reversed([p.arg for p in ordered]), reversed(signature.defaults), strict=False)
    )
    defaults.update(zip([p.arg for p in signature.kwonlyargs], signature.kw_defaults, strict=True))
    for name in [*(p.arg for p in ordered), *(p.arg for p in signature.kwonlyargs)]:
        default = defaults.get(name)
        if name in given:
            found = configured_attempts([replace(given[name], name=name)])
        elif default is not None:
            value = literal(default)
            if isinstance(default, ast.Name) and default.id in index.assignments:
                value = literal(index.assignments[default.id])
            found = None
            if isinstance(value, int) and not isinstance(value, bool):
                found = configured_attempts([Argument(name, value, index.span(default))])
            if found is not None:
                found = found[0], "the default " + found[1].replace(" at the call", "")
        else:
            found = None
        if found is not None:
            return RetryReading(index.name_span(function), found[0], found[1], CONFIGURED)
    return None


def retry_marks(
    readings: Sequence[Guarded],
    name: str,
    arguments: tuple[Argument, ...],
    bare: bool,
    use: Span,
    scope: Scope,
    via: tuple[str, ...],
    comment: str,
) -> list[Mark]:
    """A ``retry-decorator`` mark per reading, at the use site."""
    return [
        Mark(
            "retry-decorator",
            name,
            arguments,
            bare,
            use,
            scope,
            via,
            reading.definition,
            comment,
            guards=guards,
            retry=reading,
        )
        for reading, guards in readings
    ]


def judged(marks: Sequence[Mark]) -> bool:
    """Whether a decorator's retry marks stand on their own: ones read without a figure
    (its code could not be read) yield to the marks it applies, if it applies any."""
    return not marks or any(mark.retry is None or mark.retry.judged for mark in marks)


def imported_retries(
    defined: tuple[Definitions, str] | None,
    names: tuple[str, str, bool],
    arguments: tuple[Argument, ...],
    bare: bool,
    where: tuple[Span, Scope, tuple[str, ...], str],
) -> list[Mark]:
    """Marks of a retry decorator another module of the repository defines: ``names`` are
    its qualified name, the name as written and whether the setting lists it; ``where``
    the use site, its scope, the path so far and the comment on its line."""
    if defined is None:
        return []
    qualified, written, configured = names
    readings = defined[0].retries(defined[1], arguments, bare, configured)
    if not readings:
        return []
    use, scope, via, comment = where
    label = f"{written} ({qualified})"
    return retry_marks(readings, written, arguments, bare, use, scope, (*via, label), comment)
