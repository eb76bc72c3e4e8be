"""The Python pass over a repository: which files to parse, and the context
(aliases imported from helper modules, fixtures from conftest.py) each needs.

Most test files hold no knob at all, so a byte-level prefilter decides which
files are parsed, and the parsing modules are imported only when the first
candidate turns up. Helper modules and conftest files are parsed lazily, only
when a test file imports from them or asks for one of their fixtures, and each is
parsed at most once per process. Nothing here lists the repository: an imported
module is looked up by the paths its import statement allows.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.paths import display_path
from detlint.base.source import decode_python, read_bytes, refuse_binary
from detlint.base.span import Problem, Span
from detlint.readers.python.conftest_chain import ConftestChain
from detlint.readers.python.imported_modules import ImportedModules
from detlint.readers.python.options import ScanOptions, is_test_module
from detlint.readers.python.param_conftests import FileConftests, ParamConftests
from detlint.readers.python.prefilter import (
    Prefilter,
    may_loop,
    may_replay,
    read_whole,
    runs_itself,
)
from detlint.readers.python.skipping_conftests import SkippingConftests
from detlint.readers.python.wrapping_conftests import WrappingConftests

if TYPE_CHECKING:
    from detlint.readers.python.facts import Mark, ModuleFacts, NamedWrap, Replay, TrialCount
    from detlint.readers.python.module_exports import ModuleExports
    from detlint.readers.python.narrowed import Narrowed


class LoopOnly:
    """What ``scan`` says of a test file the prefilter ruled out that passes its trial
    half (:func:`may_loop`): not parsed now, but worth parsing if a CI step changes
    how its tests report, because a trial loop then counts (DET302). A plain class:
    it holds nothing, and a dataclass costs every run's start-up more to define."""

    __slots__ = ()


class PythonRepository:
    """Scans Python files of one repository, resolving cross-module context lazily."""

    def __init__(
        self,
        root: Path,
        cwd: Path,
        options: ScanOptions,
        prefilter: Prefilter,
        note_loops: bool = False,
    ) -> None:
        self.root = root
        self.cwd = cwd
        self.options = options
        self.prefilter = prefilter
        # Whether ``scan`` tells LoopOnly files apart from the rest it rules out (when
        # pipelines may ask for them: a second read of every test file is then saved).
        self.note_loops = note_loops
        self._exports: dict[str, ModuleExports | None] = {}
        self._parsed: set[str] = set()  # modules parsed for their exports (or tried)
        self.modules = ImportedModules(root, self.exists, prefilter)
        self._displays: dict[str, Path] = {}
        self._exists: dict[str, bool] = {}
        self.conftests = conftests = ConftestChain(root, self.exists)
        self.skipping = SkippingConftests(conftests, self.exports)
        self.wrapping = WrappingConftests(conftests, self.exports)
        self.params = ParamConftests(conftests, self.exports)

    def exists(self, path: str | Path) -> bool:
        """Whether a helper module or conftest.py is there to read (asked per import:
        no run lists the whole repository just to resolve a few names)."""
        key = str(path)
        found = self._exists.get(key)
        if found is None:
            found = self._exists[key] = os.path.isfile(path)
        return found

    # -- public ------------------------------------------------------------

    def scan(self, path: Path, named: bool = False) -> ModuleFacts | Problem | LoopOnly | None:
        """Facts of one file; None (or LoopOnly) when the prefilter rules it out.

        Only test modules and conftest.py files are read: a helper module holds
        no tests, and the aliases it defines are read when a test imports them.
        A file pytest collects whatever ``python_files`` says is a test module too:
        one a CI step names on its command line (``named``), one that runs
        ``pytest.main([__file__])``.
        """
        # Most files are ruled out by their bytes; how a path is shown (pathlib,
        # relative to the working directory) is worked out only for the others.
        data = self._test_bytes(path, named)
        if data is None:
            return None
        if isinstance(data, Problem):
            span = replace(data.span, path=display_path(path, self.cwd))
            return Problem(span, data.message)
        named = named or not self.is_test_file(path)
        imported = self.modules.knob_imports(path, data)
        hooked = self.wrapping.hooked(path, data)
        if not imported and not self.prefilter.wants(data) and not hooked:
            return LoopOnly() if self.note_loops and may_loop(data) else None
        display = display_path(path, self.cwd)
        text = decode_python(data, display)
        if isinstance(text, Problem):
            return text
        from detlint.readers.python.narrowing import narrow
        from detlint.readers.python.parse import TOO_DEEP, syntax_problem

        self._displays[display] = path
        # Only test modules are narrowed: conftest.py and helpers export fixtures
        # and aliases that other files need whole. A module that may seed is read whole
        # too: its seeds sit in test bodies and fixtures that narrowing drops; and so is
        # one whose tests a hook or a loop wraps by name (they carry no knob of their own),
        # or whose tests may request a parametrized fixture (``params``).
        narrowed = None
        whole = hooked or read_whole(data) or self.params.whole(path, data)
        if path.name != "conftest.py" and not whole:
            narrowed = narrow(text, self.prefilter.wants_block, imported)
        attempts = [narrowed, None] if narrowed is not None else [None]
        for attempt in attempts:
            try:
                facts, exports = self._scan_text(display, path, text, attempt, named, imported)
            except SyntaxError as error:
                if attempt is None:
                    return syntax_problem(display, text, error)
                continue  # the cut was wrong; the whole file decides
            except (RecursionError, MemoryError):
                return Problem(Span.file(display), TOO_DEEP)
            if attempt is None:
                self._exports.setdefault(os.path.abspath(path), exports)
            return facts
        raise AssertionError("unreachable: the whole text is always tried last")

    def may_find(self, path: Path) -> bool:
        """Whether ``scan`` of this file can return anything, whatever variables the
        pipelines turn out to set (this repository's prefilter knows none yet).

        A whole-repository run reads its pipelines and sifts its Python files at
        the same time with this; only the files it keeps are scanned once the
        variables are known. A file is dropped only when ``scan`` would rule it
        out for every set of variables: a variable counts in a file that reads the
        environment, and so does a trial loop (:func:`may_loop`).
        """
        data = self._test_bytes(path)
        if data is None:
            return False
        return (
            isinstance(data, Problem)
            or self.prefilter.wants(data)
            or self.prefilter.reads_environment(data)
            or bool(self.modules.knob_imports(path, data))
            or self.wrapping.hooked(path, data)
        )

    def _test_bytes(self, path: Path, named: bool = False) -> bytes | Problem | None:
        """The bytes of a file ``scan`` reads as a test module, None for another; a file
        not named like one is read only to see whether it runs pytest on itself."""
        if named or self.is_test_file(path):
            return refuse_binary(read_bytes(path, ""))  # an ELF named test_x.py: DET901
        if not path.name.endswith(".py"):
            return None
        data = read_bytes(path, "")
        return data if not isinstance(data, Problem) and runs_itself(data) else None

    def is_test_file(self, path: Path) -> bool:
        """Whether ``scan`` reads this file at all: a test module or a conftest.py."""
        return path.name == "conftest.py" or is_test_module(path.name, self.options.python_files)

    def _scan_text(
        self,
        display: str,
        path: Path,
        text: str,
        narrowed: Narrowed | None = None,
        named: bool = False,
        imported: frozenset[str] = frozenset(),
    ) -> tuple[ModuleFacts, ModuleExports]:
        from detlint.readers.python.module_scan import scan_module

        lookup = FixtureLookupForFile(self, path)
        return scan_module(
            display,
            text,
            self.options,
            external=self._external,
            reexport=self._reexport,
            foreign=self._foreign,
            definitions=self._definitions,
            named=named,
            knob_imports=bool(imported),
            fixtures=lookup,
            narrowed=narrowed,
            fixture_marks=lookup.marks,
            fixture_replays=lookup.replay,
            fixture_defined=lookup.defines,
            conftest_wraps=lookup.wraps,
            conftest_fixtures=FileConftests(self.params, path),
        )

    def exports(self, path: Path, needed: bool = False) -> ModuleExports | None:
        """What a helper module or conftest.py defines, parsed once. A module whose
        bytes hold no knob is not parsed unless ``needed``: a name an importer uses
        (a test class, a re-exported module) must be resolved there all the same."""
        key = os.path.abspath(path)
        if key in self._exports:
            found = self._exports[key]
            if found is not None or not needed or key in self._parsed:
                return found
        self._exports[key] = None  # guards against import cycles
        display = display_path(path, self.cwd)
        data = read_bytes(path, display)
        if isinstance(data, Problem):
            return None
        if not needed and not (self.prefilter.may_export(data) or may_replay(data)):
            return None  # no knob, env or seed token: no mark alias, trial or seed fixture
        self._parsed.add(key)
        text = decode_python(data, display)
        if isinstance(text, Problem):
            return None
        self._displays[display] = path
        try:
            _, exports = self._scan_text(display, path, text)
        except (SyntaxError, RecursionError, MemoryError):
            return None
        self._exports[key] = exports
        return exports

    def _defining(self, qualified: str, importer_display: str) -> tuple[Path, list[str]] | None:
        """The repository module a qualified name of an importer points into, and the
        names after it: `from tests.utils import gpu_flaky` -> tests/utils.py defines
        gpu_flaky; `from tests import utils` then `utils.gpu_flaky` -> the same file."""
        importer = self._displays.get(importer_display)
        if importer is None:
            return None
        parts = qualified.split(".")
        for split in range(len(parts) - 1, 0, -1):
            module, names = ".".join(parts[:split]), parts[split:]
            if module.strip(".") == "" and not module.startswith("."):
                continue
            path = self.modules.module_file(module, importer)
            if path is not None:
                return path, names
        return None

    def _external(self, qualified: str, importer_display: str) -> tuple[Mark, ...] | None:
        found = self._defining(qualified, importer_display)
        if found is None:
            return None
        path, names = found
        exports = self.exports(path)
        if exports is None or len(names) != 1:
            return None
        return exports.marks(names[0]) or None

    def _definitions(
        self, qualified: str, importer_display: str
    ) -> tuple[ModuleExports, str] | None:
        """The module that defines a decorator an importer names, when its bytes hold a
        knob (a retry decorator of the repository's own is read there). A package that
        re-exports it (``from torchrl.testing import retry``, whose ``__init__.py`` says
        ``from .utils import retry``, parsed or not) is followed to where it is defined."""
        for _ in range(3):  # a package may re-export from another package
            found = self._defining(qualified, importer_display)
            if found is None or len(found[1]) != 1:
                return None
            path, (name,) = found
            exports = self.exports(path) or self._importing(path, name)
            if exports is not None and name in exports.scanner.index.functions:
                return exports, name
            base = exports.imported(name) if exports else self.modules.reexported(path, name)
            if base is None:
                return None if exports is None else (exports, name)
            qualified, importer_display = base, display_path(path, self.cwd)
        return None

    def _importing(self, path: Path, name: str) -> ModuleExports | None:
        """A module importing ``name`` (``__init__.py``) though it holds no knob."""
        data = read_bytes(path, "")
        if isinstance(data, Problem) or name.encode() not in data or b"import" not in data:
            return None
        return self.exports(path, needed=True)

    def _foreign(self, qualified: str, importer_display: str) -> tuple[ModuleExports, str] | None:
        """The module that defines a class an importer names (a base class), parsed
        whatever its bytes hold: its tests are the subclass's."""
        found = self._defining(qualified, importer_display)
        if found is None or len(found[1]) != 1:
            return None
        exports = self.exports(found[0], needed=True)
        return None if exports is None else (exports, found[1][0])

    def _reexport(self, qualified: str, importer_display: str) -> str | None:
        """What a qualified name stands for where a repository module imports it in
        turn: `from tests import unittest` (tests/__init__.py: `import unittest`) then
        `unittest.skip` is unittest's. Only a module whose bytes import the name is
        parsed for it, and each module once."""
        for _ in range(3):  # a compat module may import from another
            found = self._defining(qualified, importer_display)
            if found is None:
                return None
            path, names = found
            data = read_bytes(path, "")
            if isinstance(data, Problem) or names[0].encode() not in data or b"import" not in data:
                return None
            exports = self.exports(path, needed=True)
            base = exports.imported(names[0]) if exports is not None else None
            if base is None:
                return None
            qualified = ".".join([base, *names[1:]])
            importer_display = display_path(path, self.cwd)
            if not base.startswith("."):
                return qualified
        return None


class FixtureLookupForFile:
    """Fixtures visible to one file: those of conftest.py files in its directory and above.

    A plain class (a lookup that caches, not a fact), cheaper to define than a dataclass."""

    def __init__(self, repository: PythonRepository, path: Path) -> None:
        self.repository = repository
        self.path = path

    @functools.cached_property
    def _skipping(self) -> tuple[ModuleExports, ...]:
        """Asked once per file, though each test's fixtures ask."""
        own = os.path.abspath(self.path)
        return self.repository.skipping.of(os.path.dirname(own), own)

    def _conftests(self) -> Iterator[ModuleExports]:
        """The conftest.py files that reach this file, nearest first, each read when a
        lookup gets that far."""
        for conftest in self._conftest_paths:
            if (exports := self.repository.exports(conftest)) is not None:
                yield exports

    @functools.cached_property
    def _conftest_paths(self) -> list[Path]:
        """Where they are, found once: every fixture of every test of the file asks."""
        own = os.path.abspath(self.path)
        chain = self.repository.conftests.of(os.path.dirname(own))
        return [Path(conftest) for conftest, _ in chain if conftest != own]

    def __call__(self, name: str) -> TrialCount | None:
        for exports in self._conftests():
            found = exports.fixture_trials(name)
            if found is not None:
                return found
        return None

    def wraps(self) -> tuple[NamedWrap, ...]:
        """What the hooks of the conftest.py files that reach this file wrap by name."""
        return tuple(wrap for exports in self._conftests() for wrap in exports.hook_wraps)

    def defines(self, name: str) -> bool:
        """Whether a conftest.py that reaches the file defines fixture ``name``."""
        return any(exports.defines_fixture(name) for exports in self._conftests())

    def replay(self, name: str) -> Replay | None:
        """What conftest fixture ``name`` (the nearest that defines it) replays, or the
        first autouse fixture of a conftest.py that reaches the file (``AUTOUSE``)."""
        from detlint.readers.python.fixtures import AUTOUSE

        for exports in self._conftests():
            if name == AUTOUSE:
                found = exports.fixture_replay(name)
                if found is not None:
                    return found
            elif exports.defines_fixture(name):
                return exports.fixture_replay(name)
        return None

    def marks(self, name: str) -> tuple[Mark, ...]:
        """The skips and xfails of conftest fixture ``name`` (the nearest that defines
        it), or of every autouse fixture that reaches the file (``AUTOUSE``). Only
        conftest files whose bytes can hold a skip or an xfail are read for them."""
        from detlint.readers.python.fixtures import AUTOUSE

        skipping = self._skipping
        if not skipping:
            return ()
        if name == AUTOUSE:
            return tuple(mark for exports in skipping for mark in exports.fixture_marks(name))
        for exports in skipping:
            if exports.defines_fixture(name):
                return exports.fixture_marks(name)
        return ()
