"""What a module asks of the other modules of the repository it imports from.

A test module names a mark alias, a retry decorator or a class decorator that another
module defines (``from tests.helpers import flaky``); that module is found by the
paths its import allows and read once, and answers for its names
(``module_exports.ModuleExports``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from detlint.readers.python.facts import Argument, Mark, NamedWrap, RetryReading

# A reading of a decorator, and the guards where it retries.
Guarded = tuple[RetryReading, tuple[str, ...]]


class Definitions(Protocol):
    """The names one module of the repository defines, as other modules use them."""

    def marks(self, name: str) -> tuple[Mark, ...]:
        """The marks ``name`` stands for: an alias or a mark wrapper."""
        ...

    def retries(
        self, name: str, arguments: tuple[Argument, ...], bare: bool, configured: bool
    ) -> tuple[Guarded, ...] | None:
        """How decorator ``name``, called with ``arguments``, retries a test
        (``configured``: the ``retry-decorators`` setting names it a retry)."""
        ...

    def named_wraps(self, name: str) -> tuple[NamedWrap, ...]:
        """The decorators class decorator ``name`` applies to methods by name."""
        ...


# (qualified name, importer path) -> the module that defines it and the name there.
DefinitionLookup = Callable[[str, str], tuple[Definitions, str] | None]


def nowhere(qualified: str, importer: str) -> tuple[Definitions, str] | None:
    return None
