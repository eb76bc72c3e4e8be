"""The pytest config of each directory one run asks about: one cache per run.

Linking asks once per test file and composing CI runs once per directory a step
starts in, so each directory's files are parsed once and each answer is kept (a
later run, or ``--fix``'s next round, starts afresh and reads edited files again).
The reading itself (``pytest_config.py``) is imported only when a config is first
asked for: a run on files without knobs may never ask.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.paths import display_path

if TYPE_CHECKING:
    from detlint.readers.project.pytest_config import PytestConfig
    from detlint.readers.project.pytest_config_files import RawConfig


class PytestConfigs:
    """The config pytest would read for each directory one run asks about.

    One cache per run: linking asks once per test file and composing CI runs once per
    directory a step starts in, so each directory's files are parsed once and each
    answer is kept (a later run, or ``--fix``'s next round, starts afresh and reads
    edited files again). Paths are made absolute without resolving symlinks, as
    pytest does, so a symlinked tree finds the config next to the link.
    """

    def __init__(self, cwd: Path) -> None:
        self._cwd = os.path.abspath(cwd)
        self._found: dict[str, PytestConfig] = {}
        self._loaded: dict[str, RawConfig | None] = {}
        self._in_repository: dict[str, PytestConfig] = {}

    def of(self, start: Path | str) -> PytestConfig:
        """The config for tests under directory ``start`` (walking up to ``/``)."""
        key = os.path.abspath(start)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._find(key)
        return found

    def rerun_any(self, directories: set[Path]) -> bool:
        """Whether pytest's config reruns the tests of some of these directories: its
        reruns reach every test it collects, knob or not, so every test file is then
        read, for each such test to count with the layer it gets (a byte test first
        spares the parse)."""
        from detlint.readers.project.scope import may_rerun

        if not may_rerun(directories):
            return False
        for directory in directories:
            config = self.of(directory)
            if config.reruns or config.force_reruns or config.retries or config.force_flaky:
                return True
        return False

    def in_repository(self, root: Path, directory: str) -> PytestConfig:
        """``of(root / directory)`` for a directory relative to the repository root, by
        the string alone once asked (composing CI asks it for every run)."""
        found = self._in_repository.get(directory)
        if found is None:
            found = self._in_repository[directory] = self.of(root / directory)
        return found

    def _load(self, directory: str) -> RawConfig | None:
        if directory not in self._loaded:
            from detlint.readers.project.pytest_config_files import load_directory

            self._loaded[directory] = load_directory(Path(directory))
        return self._loaded[directory]

    def _find(self, start: str) -> PytestConfig:
        from detlint.readers.project.pytest_config import EMPTY_CONFIG, ConfigReader, is_file

        cwd = Path(self._cwd)
        nearest_pyproject: Path | None = None
        for directory in (Path(start), *Path(start).parents):
            raw = self._load(str(directory))
            if raw is not None:
                return ConfigReader(raw, display_path(raw.path, cwd)).config()
            if nearest_pyproject is None and is_file(directory / "pyproject.toml"):
                nearest_pyproject = directory / "pyproject.toml"
        if nearest_pyproject is not None:
            # pytest's fallback: with no config anywhere, the nearest pyproject.toml becomes
            # the config file (and sets rootdir) even without a pytest table; it configures
            # nothing.
            return replace(EMPTY_CONFIG, path=display_path(nearest_pyproject, cwd))
        return EMPTY_CONFIG


def find_pytest_config(start: Path, cwd: Path) -> PytestConfig:
    """The config pytest would read for tests under directory ``start``, read afresh
    (a run asks its :class:`PytestConfigs`)."""
    return PytestConfigs(cwd).of(start)
