"""The Python pass over a repository: which files to parse, and the context
(aliases imported from helper modules, fixtures from conftest.py) each needs.

Most test files hold no knob at all, so a byte-level prefilter decides which
files are parsed. Helper modules and conftest files are parsed lazily, only
when a test file imports from them or asks for one of their fixtures, and
each is parsed at most once per process.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

from detlint.python_pass.facts import Mark, ModuleFacts, TrialCount
from detlint.python_pass.module_scan import ModuleExports, scan_module
from detlint.python_pass.narrowing import narrow
from detlint.python_pass.options import ScanOptions
from detlint.python_pass.prefilter import Prefilter
from detlint.source import decode_python, read_bytes
from detlint.span import Problem, Span, display_path


def syntax_problem(display: str, text: str, error: cst.ParserSyntaxError) -> Problem:
    """Where the code is invalid: CPython's own parser points at the real spot and
    says it in the words Python users know; libcst's recovery often points a line later."""
    line, column, reason = max(error.raw_line, 1), error.raw_column + 1, error.message
    try:
        ast.parse(text)
    except SyntaxError as python_error:
        line = python_error.lineno or line
        column = python_error.offset or column
        reason = python_error.msg
    except (ValueError, RecursionError, MemoryError):
        pass
    return Problem(
        Span(display, line, column, line, column), f"invalid Python, not analysed: {reason}"
    )


class PythonRepository:
    """Scans Python files of one repository, resolving cross-module context lazily."""

    def __init__(
        self,
        root: Path,
        cwd: Path,
        python_files: Iterable[Path],
        options: ScanOptions,
        prefilter: Prefilter,
    ) -> None:
        self.root = root
        self.cwd = cwd
        self.known = {path.resolve() for path in python_files}
        self.options = options
        self.prefilter = prefilter
        self._exports: dict[Path, ModuleExports | None] = {}
        self._displays: dict[str, Path] = {}

    # -- public ------------------------------------------------------------

    def scan(self, path: Path) -> ModuleFacts | Problem | None:
        """Facts of one file; None when the prefilter rules it out."""
        display = display_path(path, self.cwd)
        data = read_bytes(path, display)
        if isinstance(data, Problem):
            return data
        if not self.prefilter.wants(data):
            return None
        text = decode_python(data, display)
        if isinstance(text, Problem):
            return text
        self._displays[display] = path.resolve()
        narrowed = narrow(text, self.prefilter.wants_text)
        try:
            facts, exports = self._scan_text(display, path, narrowed or text)
        except cst.ParserSyntaxError as error:
            if narrowed is None:
                return syntax_problem(display, text, error)
            try:  # the cut was wrong; the whole file decides
                facts, exports = self._scan_text(display, path, text)
            except cst.ParserSyntaxError as full_error:
                return syntax_problem(display, text, full_error)
            except RecursionError:
                return Problem(Span.file(display), "too deeply nested to analyse; skipped")
        except RecursionError:
            return Problem(Span.file(display), "too deeply nested to analyse; skipped")
        self._exports.setdefault(path.resolve(), exports)
        return facts

    def _scan_text(self, display: str, path: Path, text: str) -> tuple[ModuleFacts, ModuleExports]:
        return scan_module(
            display,
            text,
            self.options,
            external=self._external,
            fixtures=self._fixture_lookup(path),
        )

    # -- context -----------------------------------------------------------

    def exports(self, path: Path) -> ModuleExports | None:
        """What a helper module or conftest.py defines, parsed once."""
        resolved = path.resolve()
        if resolved in self._exports:
            return self._exports[resolved]
        self._exports[resolved] = None  # guards against import cycles
        display = display_path(path, self.cwd)
        data = read_bytes(path, display)
        text = decode_python(data, display) if isinstance(data, bytes) else data
        if isinstance(text, Problem):
            return None
        self._displays[display] = resolved
        try:
            _, exports = scan_module(
                display, text, self.options, self._external, self._fixture_lookup(path)
            )
        except (cst.ParserSyntaxError, RecursionError):
            return None
        self._exports[resolved] = exports
        return exports

    def _module_file(self, module: str, importer: Path) -> Path | None:
        level = len(module) - len(module.lstrip("."))
        parts = [part for part in module.lstrip(".").split(".") if part]
        if level:
            bases = [importer.parent.parents[level - 2] if level > 1 else importer.parent]
        else:
            bases = [importer.parent, *importer.parent.parents]
            bases = [base for base in bases if base == self.root or self.root in base.parents]
        for base in bases:
            candidate = base.joinpath(*parts)
            for path in (candidate.with_suffix(".py"), candidate / "__init__.py"):
                if path in self.known:
                    return path
        return None

    def _external(self, qualified: str, importer_display: str) -> tuple[Mark, ...] | None:
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
            return exports.marks.get(names[0])
        return None

    def _fixture_lookup(self, path: Path) -> FixtureLookupForFile:
        return FixtureLookupForFile(self, path.resolve())


@dataclass(frozen=True)
class FixtureLookupForFile:
    """Fixtures visible to one file: those of conftest.py files in its directory and above."""

    repository: PythonRepository
    path: Path

    def __call__(self, name: str) -> TrialCount | None:
        directory = self.path.parent
        for base in (directory, *directory.parents):
            conftest = base / "conftest.py"
            if conftest != self.path and conftest in self.repository.known:
                exports = self.repository.exports(conftest)
                if exports is not None and name in exports.fixture_trials:
                    return exports.fixture_trials[name]
            if base == self.repository.root:
                break
        return None
