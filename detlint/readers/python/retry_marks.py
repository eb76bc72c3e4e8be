"""Marks for the retry decorators a repository defines itself.

``retry_wrappers`` reads a decorator's code into ``RetryReading`` facts, one per way
it retries; each becomes a ``retry-decorator`` mark at the place the test names the
decorator, with the guards it needs (``if not IS_CI: return f`` in the decorator: it
retries where ``IS_CI`` holds). A decorator is read once per set of arguments it is
called with, in the module that defines it.
"""

from __future__ import annotations

from collections.abc import Sequence

from detlint.base.span import Span
from detlint.readers.python.definitions import Guarded
from detlint.readers.python.facts import Argument, Mark, Scope
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.retry_wrappers import read_retries


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
        self, name: str, arguments: Sequence[Argument], bare: bool
    ) -> tuple[Guarded, ...] | None:
        """The readings of module-level function ``name`` (None when there is none)."""
        function = self.index.functions.get(name)
        if function is None or name in self.index.alternatives:
            return None
        return self.readings(function, arguments, bare)


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
