"""The Python pass over a repository: which files to parse, and the context
(aliases imported from helper modules, fixtures from conftest.py) each needs.

Most test files hold no knob at all, so a byte-level prefilter decides which
files are parsed, and the parsing modules are imported only when the first
candidate turns up. Helper modules and conftest files are parsed lazily, only
when a test file imports from them or asks for one of their fixtures, and each
is parsed at most once per process. Nothing here lists the repository: an imported module is
looked up by the paths its import statement allows.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.paths import display_path
from detlint.base.source import decode_python, read_bytes
from detlint.base.span import Problem, Span
from detlint.readers.python.options import ScanOptions, is_test_module
from detlint.readers.python.prefilter import (
    HOOK_WRAP_TOKEN,
    IMPERATIVE_TOKENS,
    Prefilter,
    may_loop,
    may_pick,
    may_replay,
    rewraps,
)

if TYPE_CHECKING:
    from detlint.readers.python.facts import Mark, ModuleFacts, NamedWrap, Replay, TrialCount
    from detlint.readers.python.module_scan import ModuleExports
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
        self._displays: dict[str, Path] = {}
        self._exists: dict[str, bool] = {}
        self._skipping: dict[str, tuple[ModuleExports, ...]] = {}
        self._wrapping: dict[str, tuple[NamedWrap, ...]] = {}

    def exists(self, path: Path) -> bool:
        """Whether a helper module or conftest.py is there to read (asked per import,
        so that no run lists the whole repository just to resolve a few names)."""
        key = str(path)
        found = self._exists.get(key)
        if found is None:
            found = self._exists[key] = os.path.isfile(path)
        return found

    # -- public ------------------------------------------------------------

    def scan(self, path: Path) -> ModuleFacts | Problem | LoopOnly | None:
        """Facts of one file; None (or LoopOnly) when the prefilter rules it out.

        Only test modules and conftest.py files are read: a helper module holds
        no tests, and the aliases it defines are read when a test imports them.
        """
        if not self._reads(path):
            return None
        # Most files are ruled out by their bytes; how a path is shown (pathlib,
        # relative to the working directory) is worked out only for the others.
        data = read_bytes(path, "")
        if isinstance(data, Problem):
            span = replace(data.span, path=display_path(path, self.cwd))
            return Problem(span, data.message)
        hooked = self._hooked(path, data)
        if not self.prefilter.wants(data) and not hooked:
            return LoopOnly() if self.note_loops and may_loop(data) else None
        display = display_path(path, self.cwd)
        text = decode_python(data, display)
        if isinstance(text, Problem):
            return text
        from detlint.readers.python.narrowing import narrow
        from detlint.readers.python.parse import TOO_DEEP, syntax_problem

        self._displays[display] = path
        # Only test modules are narrowed: conftest.py and helpers export fixtures and
        # aliases that other files need whole. A module that may seed is read whole too:
        # its seeds sit in test bodies and fixtures that narrowing drops; and so is one
        # whose tests a hook or a loop wraps by name (they carry no knob of their own).
        whole = path.name == "conftest.py" or hooked or rewraps(data) or may_replay(data)
        narrowed = narrow(text, self.prefilter.wants_block) if not whole else None
        attempts = [narrowed, None] if narrowed is not None else [None]
        for attempt in attempts:
            try:
                facts, exports = self._scan_text(display, path, text, attempt)
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
        if not self._reads(path):
            return False
        data = read_bytes(path, "")
        return (
            isinstance(data, Problem)
            or self.prefilter.wants(data)
            or self.prefilter.reads_environment(data)
            or self._hooked(path, data)
        )

    def _reads(self, path: Path) -> bool:
        """Whether ``scan`` reads this file at all: a test module or a conftest.py."""
        return path.name == "conftest.py" or is_test_module(path.name, self.options.python_files)

    def _scan_text(
        self, display: str, path: Path, text: str, narrowed: Narrowed | None = None
    ) -> tuple[ModuleFacts, ModuleExports]:
        from detlint.readers.python.module_scan import scan_module

        lookup = FixtureLookupForFile(self, path)
        return scan_module(
            display,
            text,
            self.options,
            external=self._defining,
            fixtures=lookup,
            narrowed=narrowed,
            fixture_marks=lookup.marks,
            fixture_replays=lookup.replay,
            fixture_defined=lookup.defines,
            conftest_wraps=lookup.wraps,
        )

    # -- context -----------------------------------------------------------

    def exports(self, path: Path) -> ModuleExports | None:
        """What a helper module or conftest.py defines, parsed once."""
        key = os.path.abspath(path)
        if key in self._exports:
            return self._exports[key]
        self._exports[key] = None  # guards against import cycles
        display = display_path(path, self.cwd)
        data = read_bytes(path, display)
        if isinstance(data, Problem) or not (self.prefilter.may_export(data) or may_replay(data)):
            return None  # no knob, env or seed token: no mark alias, trial or seed fixture
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

    def skipping_conftests(self, directory: str, own: str = "") -> tuple[ModuleExports, ...]:
        """The conftest.py files that reach a directory and can skip or xfail in a
        fixture, nearest first (worked out once per directory: every test asks).
        ``own`` is the file asking, when it is a conftest.py itself."""
        found = self._skipping.get(directory)
        if found is None:
            parent = os.path.dirname(directory)
            above = directory != os.path.abspath(self.root) and parent != directory
            inherited = self.skipping_conftests(parent) if above else ()
            found = self._skipping[directory] = self._skipping_conftest(directory) + inherited
        if not found or not own.endswith("conftest.py"):
            return found
        return tuple(exports for exports in found if exports is not self._exports.get(own))

    def _skipping_conftest(self, directory: str) -> tuple[ModuleExports, ...]:
        conftest = Path(directory, "conftest.py")
        if not self.exists(conftest):
            return ()
        data = read_bytes(conftest, "")
        if isinstance(data, Problem) or not any(token in data for token in IMPERATIVE_TOKENS):
            return ()
        exports = self.exports(conftest)
        return (exports,) if exports is not None else ()

    def _hooked(self, path: Path, data: bytes) -> bool:
        """Whether a conftest hook that reaches a test file wraps tests by name
        (``item.obj = retry(item.obj)``) and may pick one of this file's: the file is
        then read whole, whatever its bytes hold."""
        if path.name == "conftest.py":
            return False
        wraps = self._hook_wraps(os.path.dirname(os.path.abspath(path)))
        return any(may_pick(wrap, path.name, data) for wrap in wraps)

    def _hook_wraps(self, directory: str) -> tuple[NamedWrap, ...]:
        """The named wraps of the conftest.py hooks that reach a directory (worked out
        once per directory; only conftest files whose bytes can hold one are read)."""
        found = self._wrapping.get(directory)
        if found is None:
            parent = os.path.dirname(directory)
            above = directory != os.path.abspath(self.root) and parent != directory
            found = self._hook_wraps(parent) if above else ()
            conftest = Path(directory, "conftest.py")
            if self.exists(conftest):
                data = read_bytes(conftest, "")
                if not isinstance(data, Problem) and HOOK_WRAP_TOKEN.search(data):
                    exports = self.exports(conftest)
                    found = (*exports.hook_wraps, *found) if exports is not None else found
            self._wrapping[directory] = found
        return found

    def _module_file(self, module: str, importer: Path) -> Path | None:
        level = len(module) - len(module.lstrip("."))
        parts = [part for part in module.lstrip(".").split(".") if part]
        directory = Path(os.path.abspath(importer)).parent
        root = Path(os.path.abspath(self.root))
        if level:
            bases = [directory.parents[level - 2] if level > 1 else directory]
        else:
            bases = [directory, *directory.parents]
            bases = [base for base in bases if base == root or root in base.parents]
        for base in bases:
            candidate = base.joinpath(*parts)
            for path in (candidate.with_suffix(".py"), candidate / "__init__.py"):
                if self.exists(path):
                    return path
        return None

    def _defining(self, qualified: str, importer_display: str) -> tuple[ModuleExports, str] | None:
        """The module of the repository that defines an imported name, and the name there."""
        importer = self._displays.get(importer_display)
        if importer is None:
            return None
        parts = qualified.split(".")
        # `from tests.utils import gpu_flaky` -> tests/utils.py defines gpu_flaky;
        # `from tests import utils` then `utils.gpu_flaky` -> the same file.
        for split in range(len(parts) - 1, 0, -1):
            module, names = ".".join(parts[:split]), parts[split:]
            if module.strip(".") == "" and not module.startswith("."):
                continue
            path = self._module_file(module, importer)
            if path is None:
                continue
            exports = self.exports(path)
            if exports is None or len(names) != 1:
                return None
            return exports, names[0]
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
        return self.repository.skipping_conftests(os.path.dirname(own), own)

    def _conftests(self) -> Iterator[ModuleExports]:
        """The conftest.py files that reach this file, nearest first."""
        own = os.path.abspath(self.path)
        directory = Path(own).parent
        root = Path(os.path.abspath(self.repository.root))
        for base in (directory, *directory.parents):
            conftest = base / "conftest.py"
            if str(conftest) != own and self.repository.exists(conftest):
                exports = self.repository.exports(conftest)
                if exports is not None:
                    yield exports
            if base == root:
                break

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
