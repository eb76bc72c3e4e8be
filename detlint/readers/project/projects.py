"""Which project of a repository each test belongs to, for its plugin evidence.

A monorepo holds several projects, each declaring its own test dependencies: a
``flaky`` marker in ``b/tests`` means what ``b``'s dependencies say, not what a
sibling ``a/pyproject.toml`` declares. A test belongs to the nearest directory
above it whose own dependency files (``pyproject.toml``, ``setup.cfg``,
``requirements*.txt``, ``tox.ini``, ``pixi.toml``...) name pytest: a package
whose ``pyproject.toml`` only builds it is still tested by the environment its
parent declares. The repository root is the last resort, never a directory above
it. Each dependency file counts for the nearest such project above it, so
``a/requirements/test.txt`` is ``a``'s; and the answer does not depend on which
files a run lints: a pre-commit run on one file and a run from the root agree.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from detlint.base.source import read_bytes
from detlint.base.span import Problem
from detlint.readers.dependencies.declarations import (
    PluginEvidence,
    Requirement,
    declares_dependencies,
    is_dependency_file,
    read_plugin_evidence,
)
from detlint.readers.python.own_markers import (
    NO_OWN_MARKERS,
    FileMarkers,
    OwnMarkers,
    read_own_markers,
)


class Projects:
    """The projects among a repository's dependency files, and each one's evidence."""

    def __init__(
        self,
        root: Path,
        files: Sequence[Path],
        cwd: Path,
        installed: frozenset[Path] = frozenset(),
        conftests: Sequence[Path] = (),
    ) -> None:
        self.root = Path(os.path.abspath(root))
        # The conftest.py files (absolute), read for the markers each project's own code
        # registers and reads when its evidence is first asked for.
        self.conftests = tuple(Path(os.path.abspath(path)) for path in conftests)
        self.cwd = cwd
        # Files read as requirements files because something installs them with -r.
        self.installed = installed
        by_directory: dict[Path, list[Path]] = {}
        for path in files:
            if not is_dependency_file(path, self.root, installed):
                continue  # a listing without git holds every file
            by_directory.setdefault(_owner(Path(os.path.abspath(path)), self.root), []).append(path)
        # A directory is a project when one of its own dependency files names pytest
        # (``_names_pytest``).
        self.roots = {self.root} | {
            directory
            for directory, held in by_directory.items()
            if any(_names_pytest(path, directory) for path in held)
        }
        self._files: dict[Path, list[Path]] = {}
        for directory, held in by_directory.items():
            self._files.setdefault(self.project_of(directory), []).extend(held)
        self._evidence: dict[Path, PluginEvidence] = {}
        self._installed: dict[Path, list[Requirement]] = {}
        self._marker_files: FileMarkers = {}  # each conftest read once (``own_markers``)

    def add_installed(self, directory: str, requirement: Requirement) -> None:
        """A plugin a CI step installs, working in ``directory`` (relative to the root):
        evidence for the project that directory belongs to."""
        project = self.project_of(Path(os.path.abspath(self.root / directory)))
        self._installed.setdefault(project, []).append(requirement)
        self._evidence.pop(project, None)

    def project_of(self, directory: Path) -> Path:
        """The nearest project at or above ``directory`` (absolute), else the root."""
        for candidate in (directory, *directory.parents):
            if candidate in self.roots:
                return candidate
            if candidate == self.root:
                break
        return self.root

    def evidence_for(self, path: str | Path) -> PluginEvidence:
        """The plugin evidence of the project a file (relative to the cwd, or
        absolute) belongs to."""
        directory = Path(os.path.abspath(self.cwd / path)).parent
        return self.evidence_of(self.project_of(directory))

    def evidence_of(self, project: Path) -> PluginEvidence:
        found = self._evidence.get(project)
        if found is None:
            files = self._files.get(project, [])
            found = read_plugin_evidence(self.root, files, self.cwd, self.installed)
            # Only a project that declares its dependencies somewhere (and whose
            # files could all be read) says a missing plugin is missing.
            declares = declares_dependencies(project, files, self.installed)
            declares = declares and not found.problems
            installed = tuple(self._installed.get(project, ()))
            found = PluginEvidence(
                (*found.requirements, *installed),
                found.problems,
                declares or bool(installed),
                enabler_ignore_flaky=found.enabler_ignore_flaky,
                seed_plugins=found.seed_plugins,
                own_markers=self._own_markers(project),
            )
            self._evidence[project] = found
        return found

    def combined(self, paths: Sequence[Path]) -> PluginEvidence:
        """One evidence for reports on a run over ``paths``: the project they sit in
        and every project below them (a run from the root: all of them), with the
        problems of the files below the paths."""
        absolute = [os.path.abspath(self.cwd / path) for path in paths]
        start = Path(os.path.commonpath(absolute)) if absolute else self.root
        if not start.is_dir():
            start = start.parent
        chosen = {self.project_of(start)} | {
            project for project in self.roots if project == start or start in project.parents
        }
        found = [self.evidence_of(project) for project in sorted(chosen)]
        requirements = {r: None for e in found for r in e.requirements}
        # Problems only of files the run covers: a broken file elsewhere in the project
        # above is reported by a run over it.
        inside = str(start) + os.sep
        problems = {
            p: None
            for e in found
            for p in e.problems
            if os.path.abspath(self.cwd / p.span.path).startswith(inside)
        }
        return PluginEvidence(
            tuple(sorted(requirements, key=lambda r: (r.span, r.plugin, r.source))),
            tuple(sorted(problems, key=lambda p: (p.span, p.message))),
            any(e.declares for e in found),
            enabler_ignore_flaky=next(
                (e.enabler_ignore_flaky for e in found if e.enabler_ignore_flaky is not None), None
            ),
            seed_plugins=frozenset().union(*(e.seed_plugins for e in found)),
            own_markers=sum((e.own_markers for e in found), NO_OWN_MARKERS),
        )

    def _own_markers(self, project: Path) -> OwnMarkers:
        """What the conftest.py files that reach the project's tests register and read:
        its own (those of no project below it) and those of the directories above it."""
        reaching = [
            path
            for path in self.conftests
            if self.project_of(path.parent) == project or path.parent in project.parents
        ]
        if not reaching:
            return NO_OWN_MARKERS
        return read_own_markers(reaching, self.root, self.cwd, self._marker_files)


# Directories that keep a project's dependency files for it: `requirements/test.txt`,
# `ci/environment.yml`, `.github/requirements.txt` are the parent project's.
_HOLDERS = frozenset(
    {"requirements", "requirements.d", "reqs", "deps", "ci", ".ci", ".github", "conda", "envs"}
)


def _owner(path: Path, root: Path) -> Path:
    """The directory a dependency file declares for: its own, or the one above the
    outermost folder that keeps such files (``requirements/fabric/test.txt`` is the
    root's, ``a/ci/environment.yml`` is ``a``'s)."""
    directory = path.parent
    try:
        parts = directory.relative_to(root).parts
    except ValueError:
        return directory
    for index, part in enumerate(parts):  # the outermost: requirements/fabric/test.txt
        if part.lower() in _HOLDERS:
            return root.joinpath(*parts[:index])
    return directory


owner_directory = (
    _owner  # for detlint.readers.project.scope: the project a changed dependency file configures
)


# ``pytest`` itself (a requirement, ``[tool.pytest.ini_options]``), not the first word of
# a plugin's name (``pytest-timeout``, ``pytest_asyncio``).
_PYTEST = re.compile(rb"(?<![\w-])pytest(?![\w-])", re.IGNORECASE)
# pytest's own configuration files, which no dependency reader takes.
_PYTEST_INI = ("pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml")


def _names_pytest(path: Path, directory: Path) -> bool:
    """Whether a dependency file makes its directory a project: it names pytest itself,
    or a pytest plugin beside a pytest configuration of the directory's own (the
    environment its ``pytest.ini`` runs in). Plugins listed alone
    (``backends/arm/requirements-arm-tosa.txt``: ``pytest-timeout``) are added to the
    environment of the project above, whose rerun plugin then reads the tests' markers."""
    data = read_bytes(path, str(path))
    if isinstance(data, Problem) or b"pytest" not in data.lower():
        return False
    if _PYTEST.search(data) is not None:
        return True
    return any(os.path.isfile(directory / name) for name in _PYTEST_INI)
