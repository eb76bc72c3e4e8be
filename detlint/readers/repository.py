"""The repository one run reads, as the later stages ask about it.

Composing a test's policy, and a CI run's, asks questions that only reading the
repository answers: every file it holds, the pytest config of a directory, the
rerun plugin a test file's project declares, the text of a script a step calls,
and the facts of test files the Python pass had no reason to parse (a file a
retried CI step runs, whose trial loop now counts). One object answers them for
the whole run, keeping each answer, so that the compose stage calls down into
the readers instead of taking callbacks from the engine.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.paths import display_path
from detlint.base.progress import NULL_PROGRESS, Progress, counting
from detlint.base.source import decode_text, read_bytes, set_max_bytes, unsaved_paths
from detlint.base.span import Problem
from detlint.readers.project.discovery import repository_files
from detlint.readers.python.repository import LoopOnly, PythonRepository

if TYPE_CHECKING:
    from detlint.readers.dependencies.declarations import PluginEvidence
    from detlint.readers.project.projects import Projects
    from detlint.readers.project.pytest_configs import PytestConfigs
    from detlint.readers.project.settings import Settings
    from detlint.readers.python.facts import ModuleFacts

# A Python build's output under a build/ directory (setuptools' lib, bdist, temp, scripts).
_BUILD_OUTPUT = re.compile(r"/build/(?:lib|bdist|temp|scripts-)[^/]*/")

# Below this many files, worker start-up costs more than reading them here.
PARALLEL_THRESHOLD = 200


class Repository:
    """What one run knows of the repository at ``root``, seen from ``cwd``."""

    def __init__(
        self, root: Path, cwd: Path, settings: Settings, jobs: int, vendored_runs: bool = False
    ) -> None:
        self.root = root
        # Whether the run read vendored subtrees the repository runs tests in: then
        # ``files()`` holds them (a run that read none never looks for them).
        self.vendored_runs = vendored_runs
        self.cwd = cwd
        self.jobs = jobs
        self._configs: PytestConfigs | None = None
        self._settings = settings
        set_max_bytes(settings.max_file_size)  # every file of the run is read under it
        self._python: PythonRepository | None = None
        self._with_trials: PythonRepository | None = None
        self._whole: PythonRepository | None = None
        self._projects: Projects | None = None
        # The files commands of the run's pipelines called (relative to the root), as
        # ``called_text`` read them: a command written in any other file no pipeline runs.
        self.called: set[str] = set()

    @property
    def configs(self) -> PytestConfigs:
        """pytest's config of each directory asked about, read once for the run (made
        when first asked: a run on files without knobs may never ask)."""
        if self._configs is None:
            from detlint.readers.project.pytest_configs import PytestConfigs

            self._configs = PytestConfigs(self.cwd)
        return self._configs

    @property
    def configs_read(self) -> PytestConfigs | None:
        """The configs, if the run asked for any."""
        return self._configs

    def files(self) -> tuple[str, ...]:
        """Every file of the repository (absolute), with the run's exclusion rules; an
        unsaved new file counts, since the steps that run it gate it."""
        settings = self._settings
        default_excludes, exclude = settings.walk_excludes()
        return repository_files(
            self.root,
            exclude=exclude,
            respect_gitignore=settings.respect_gitignore,
            vendored=settings.vendored_dirs,
            default_excludes=default_excludes,
            unsaved=unsaved_paths(),
            vendored_runs=self.vendored_runs,
        )

    def script_files(self) -> tuple[str, ...]:
        """``files()`` with ``build/`` directories walked, for the scripts a project runs
        by hand: many keep their build and test launchers there (``build/rocm/*.py``).
        What a Python build writes under it (``build/lib*/``, ``build/bdist*/``,
        ``build/temp*/``, ``build/scripts-*/``) is still output, and left out."""
        settings = self._settings
        default_excludes, exclude = settings.walk_excludes()
        files = repository_files(
            self.root,
            exclude=exclude,
            respect_gitignore=settings.respect_gitignore,
            vendored=settings.vendored_dirs,
            default_excludes=tuple(name for name in default_excludes if name != "build"),
        )
        return tuple(path for path in files if _BUILD_OUTPUT.search(path) is None)

    @property
    def projects(self) -> Projects:
        """The projects among the repository's dependency files (placed once, when a
        test's plugin evidence is first needed): each test reads its own project's."""
        if self._projects is None:
            from detlint.readers.dependencies.install_commands import installer_requirements
            from detlint.readers.dependencies.listing import dependency_listing
            from detlint.readers.project.projects import Projects

            listing = dependency_listing(self.root, self.files)
            conftests = [Path(f) for f in self.files() if os.path.basename(f) == "conftest.py"]
            self._projects = Projects(
                self.root, listing.paths, self.cwd, listing.installed, conftests
            )
            for directory, requirement in installer_requirements(
                self.root, listing.installers, self.cwd
            ):
                self._projects.add_installed(directory, requirement)
        return self._projects

    def evidence_for(self, path: str | Path) -> PluginEvidence:
        """The plugin evidence of the project a file belongs to."""
        return self.projects.evidence_for(path)

    def called_text(self, path: str) -> str | None:
        """A file a command calls (a script, tox.ini, a Makefile; relative to the root)
        as text, or None when it is not there or not text."""
        target = self.root / path
        if not target.is_file():
            return None
        data = read_bytes(target, display_path(target, self.cwd), max_bytes=1_000_000)
        text = data if isinstance(data, Problem) else decode_text(data, "")
        if isinstance(text, Problem):
            return None
        self.called.add(path)
        return text

    @property
    def python(self) -> PythonRepository:
        """The Python pass the run read its test files with (set by the engine)."""
        if self._python is None:
            raise RuntimeError("the Python pass has not been set up")
        return self._python

    @python.setter
    def python(self, repository: PythonRepository) -> None:
        self._python = repository

    def scan(
        self,
        files: Sequence[Path],
        trials: bool = False,
        named: bool = False,
        whole: bool = False,
    ) -> list[ModuleFacts]:
        """The facts of test files read for context: those a CI run reaches that the
        Python pass did not parse. ``trials``: with the trial prefilter, so that a file
        whose only knob is its trial loop is read too; ``named``: files pytest is given
        by name, read as test modules whatever their names; ``whole``: every test of the
        file listed, none cut away (a CI run that reruns a file's marked test reruns its
        other tests too). Files that do not parse, or hold nothing, give no facts (their
        problems are the run's own business elsewhere)."""
        python = self._context_pass(trials, whole)
        if named:
            found = [python.scan(path, named=True) for path in files]
        else:
            found = scan_files(python, list(files), self.jobs)
        return [result for result in found if not isinstance(result, Problem | LoopOnly | None)]

    def _context_pass(self, trials: bool, whole: bool) -> PythonRepository:
        """The Python pass ``scan`` reads with: the run's own, one that counts trial
        loops, or one that reads every test file whole (each made once, when asked)."""
        python = self.python
        if whole:
            if self._whole is None:
                # What the pass learned of conftest.py files and helper modules does not
                # depend on how much of a test file it reads: shared, not parsed again.
                self._whole = copy.copy(python)
                self._whole.prefilter = python.prefilter.replaced(everything=True)
            return self._whole
        if trials:
            if self._with_trials is None:
                self._with_trials = PythonRepository(
                    self.root, self.cwd, python.options, python.prefilter.replaced(trials=True)
                )
            return self._with_trials
        return python


def scan_files(
    repository: PythonRepository,
    files: list[Path],
    jobs: int,
    progress: Progress = NULL_PROGRESS,
) -> list[ModuleFacts | Problem | LoopOnly | None]:
    """Read, prefilter and parse every file: in this process for a few files, in
    forked processes (which inherit the repository, never pickled) for many.

    ``progress`` counts the files this process reads; with workers, it does one
    share of ``jobs`` and each of its files counts for ``jobs``."""
    scan = repository.scan
    if jobs <= 1 or len(files) < PARALLEL_THRESHOLD:
        if progress is not NULL_PROGRESS:
            scan = counting(scan, progress)
        return [scan(path) for path in files]
    from detlint.base.parallel import fork_map

    if progress is not NULL_PROGRESS:
        scan = counting(scan, progress, jobs)
    return fork_map(scan, files, jobs)
