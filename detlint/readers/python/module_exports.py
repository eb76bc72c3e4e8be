"""What one module offers the others: the names they import, the fixtures they use.

A test module imports a mark alias, a retry decorator or a class decorator from a
helper module or a conftest.py, uses its fixtures, and runs under its hooks; the
module that defines them is read once and answers for each name when first asked.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from detlint.readers.python.body_marks import BodyMarks
from detlint.readers.python.definitions import Guarded
from detlint.readers.python.exported_marks import marks_named
from detlint.readers.python.facts import Argument, Mark, NamedWrap, Replay, TrialCount
from detlint.readers.python.fixtures import AUTOUSE, is_autouse, is_fixture
from detlint.readers.python.hook_wraps import hook_wraps
from detlint.readers.python.marks import MarkResolver
from detlint.readers.python.module_index import ModuleIndex
from detlint.readers.python.named_wraps import ModuleWraps
from detlint.readers.python.replays import ReplayFinder
from detlint.readers.python.test_classes import ClassTree

if TYPE_CHECKING:
    from detlint.readers.python.trials import TrialResolver


class Scanned(Protocol):
    """What the exports read of the scanner of their module (``module_scan``)."""

    index: ModuleIndex
    marks: MarkResolver
    body: BodyMarks
    replays: ReplayFinder
    named: ModuleWraps
    classes: ClassTree[Any]
    trials: TrialResolver

    def fixture_trials(self, name: str) -> TrialCount | None: ...


# (qualified name, importer path) -> the exports of the repository module that defines
# it and the name there, or None.
ForeignLookup = Callable[[str, str], "tuple[ModuleExports, str] | None"]


def no_foreign_module(qualified: str, importer: str) -> tuple[ModuleExports, str] | None:
    return None


class ModuleExports:
    """Names other modules may import or use as fixtures, resolved on first request.

    A helper module can be large and define hundreds of names; only the few a
    test imports are ever resolved.
    """

    def __init__(self, scanner: Scanned) -> None:
        self.scanner = scanner
        self._marks: dict[str, tuple[Mark, ...]] = {}
        self._fixtures: dict[str, TrialCount | None] = {}
        self._fixture_marks: dict[str, tuple[Mark, ...]] = {}

    def fixture_replay(self, name: str) -> Replay | None:
        """What fixture ``name`` replays for the tests that use it (``AUTOUSE``: the first
        autouse fixture that replays something)."""
        scanner = self.scanner
        if name == AUTOUSE:
            return scanner.replays.autouse()
        fixture = scanner.index.functions.get(name)
        if fixture is None or not is_fixture(scanner.index, fixture):
            return None
        return scanner.replays.of_fixture(name, fixture)

    def marks(self, name: str) -> tuple[Mark, ...]:
        """The marks ``name`` stands for: an alias or a mark wrapper; empty otherwise."""
        if name not in self._marks:
            self._marks[name] = tuple(marks_named(self.scanner.marks, name))
        return self._marks[name]

    def retries(
        self, name: str, arguments: tuple[Argument, ...], bare: bool, configured: bool
    ) -> tuple[Guarded, ...] | None:
        """How function ``name``, a decorator, retries a test (None: no such function)."""
        return self.scanner.marks.retries.named(name, arguments, bare, configured)

    def named_wraps(self, name: str) -> tuple[NamedWrap, ...]:
        """The decorators class decorator ``name`` applies to methods by name."""
        function = self.scanner.index.functions.get(name)
        return tuple(self.scanner.named.reader.class_decorator(function)) if function else ()

    @functools.cached_property
    def hook_wraps(self) -> tuple[NamedWrap, ...]:
        """The tests this conftest's hooks wrap by name (``item.obj = retry(item.obj)``)."""
        return tuple(hook_wraps(self.scanner.named.reader))

    def fixture_trials(self, name: str) -> TrialCount | None:
        """The trial count fixture ``name`` returns, if it is one."""
        if name not in self._fixtures:
            self._fixtures[name] = self.scanner.fixture_trials(name)
        return self._fixtures[name]

    def imported(self, name: str) -> str | None:
        """The qualified name a name of this module is imported as, if it is imported."""
        return self.scanner.index.imports.names.get(name)

    def defines_fixture(self, name: str) -> bool:
        function = self.scanner.index.functions.get(name)
        return function is not None and is_fixture(self.scanner.index, function)

    def fixture_marks(self, name: str) -> tuple[Mark, ...]:
        """The skips and xfails fixture ``name`` applies (``AUTOUSE``: every autouse one)."""
        found = self._fixture_marks.get(name)
        if found is None:
            found = self._fixture_marks[name] = self._find_fixture_marks(name)
        return found

    def _find_fixture_marks(self, name: str) -> tuple[Mark, ...]:
        scanner = self.scanner
        if name == AUTOUSE:
            return tuple(
                mark
                for fixture_name, fixture in scanner.index.functions.items()
                if is_fixture(scanner.index, fixture) and is_autouse(scanner.index, fixture)
                for mark in scanner.body.of_fixture(fixture_name, fixture)
            )
        fixture = scanner.index.functions.get(name)
        if fixture is None or not is_fixture(scanner.index, fixture):
            return ()
        return tuple(scanner.body.of_fixture(name, fixture))
