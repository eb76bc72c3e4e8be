"""Named files whose change reaches past themselves: dependency and config files.

A commit that only adds ``pytest-rerunfailures`` to ``requirements-test.txt`` turns
every ``@pytest.mark.flaky`` of the project from inert into a rerun; one that only
edits ``pytest.ini``, ``detlint.toml`` or a ``conftest.py`` (the mark alias its tests use)
changes what every test there is judged by.
Linting such a file alone would report nothing about the tests it changes, so a run
that names one (a pre-commit hook passes exactly the files a commit touches) checks
the project it configures instead: the directory it declares for, as
:mod:`detlint.readers.project.projects` assigns dependency files, or the config file's own
directory. That run then reports what ``detlint check`` of that directory would, so
a hook and a run from the root agree. And a run on files without knobs still
reports the reruns pytest's config sets for every test (DET104), which a byte test
of the config files that reach them (``may_rerun``) tells cheaply; and which tests
the Python pass keeps depends on whether files were named or a tree was given
(``options_for_run``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

from detlint.base.source import stand_in, unsaved_paths
from detlint.readers.python.options import ScanOptions, is_test_module

# The files pytest reads its configuration from (the engine reads the same set).
PYTEST_CONFIG_FILES = frozenset(
    {
        "pytest.toml",
        ".pytest.toml",
        "pytest.ini",
        ".pytest.ini",
        "pyproject.toml",
        "tox.ini",
        "setup.cfg",
    }
)
# Names that may configure tests beyond themselves; anything else named is linted alone.
# A cheap test on the name comes first, so that a run on test modules imports nothing more.
# conftest.py holds the fixtures, hooks and mark aliases of every test below it: a commit
# that changes the wrapper 50 rerun tests use changes all their findings.
_CONFIG_NAMES = PYTEST_CONFIG_FILES | {"detlint.toml", "conftest.py"}
_MAYBE_DEPENDENCIES = (".txt", ".in", ".toml", ".lock", ".yml", ".yaml")
_DEPENDENCY_MODULES = frozenset({"setup.py", "noxfile.py", "Pipfile"})


def _may_configure(name: str) -> bool:
    return (
        name in _CONFIG_NAMES
        or name in _DEPENDENCY_MODULES
        or name.lower().endswith(_MAYBE_DEPENDENCIES)
    )


def widened(paths: Sequence[Path], cwd: Path) -> list[Path]:
    """``paths`` with each dependency or config file replaced by the directory of the
    project it configures (under the repository root, at most the root itself)."""
    if not any(_may_configure(path.name) for path in paths):
        return list(paths)
    from detlint.readers.dependencies.declarations import is_dependency_file
    from detlint.readers.project.discovery import find_root
    from detlint.readers.project.projects import owner_directory

    top = Path(os.path.abspath(find_root([cwd / path for path in paths])))
    result: list[Path] = []
    for path in paths:
        absolute = Path(os.path.abspath(cwd / path))
        if not _may_configure(path.name) or not absolute.is_file():
            result.append(path)
        elif path.name in _CONFIG_NAMES:
            result.append(absolute.parent)
        elif is_dependency_file(absolute, top):
            result.append(owner_directory(absolute, top))
        else:
            result.append(path)
    return result


# Words a pytest config must hold to set reruns for every test (DET104).
_RERUN_CONFIG_TOKENS = (b"rerun", b"retries", b"force-flaky", b"force_flaky")


def may_rerun(directories: set[Path]) -> bool:
    """Whether any config file pytest could read for these directories mentions reruns.

    A cheap byte test over the candidate files up the tree (each directory
    looked at once), so that a run on files without knobs loads and parses
    pytest's configuration only when a global rerun setting can be there.
    """
    seen: set[Path] = set()
    for directory in directories:
        for base in (directory, *directory.parents):
            if base in seen:
                break
            seen.add(base)
            for name in PYTEST_CONFIG_FILES:
                try:
                    data = stand_in(base / name)
                    if data is None:
                        data = (base / name).read_bytes()
                except OSError:
                    continue
                if any(token in data for token in _RERUN_CONFIG_TOKENS):
                    return True
    return False


def options_for_run(
    options: ScanOptions,
    paths: Sequence[Path],
    lint_files: Sequence[Path],
    config_files: Sequence[Path],
    cwd: Path,
) -> tuple[ScanOptions, bool]:
    """What the Python pass of a run over ``paths`` (the Python files and pytest config
    files it discovered) keeps as tests, and whether the collection patterns of the
    configs it meets must be added (``collection.scan_options``).

    The tests a config collects under its own patterns (celery's test_* classes) must
    be read: the scan keeps whatever a config the run meets collects, and linking keeps
    what the module's own config does. A run over a tree reads the patterns of the
    configs it meets; a run on files named one by one (pre-commit) keeps every class and
    function of those that hold a knob (linking reads their configs anyway), and asks
    the configs only when a file's name is not one the default patterns take.
    """
    unsaved = unsaved_paths()
    named = bool(paths) and all(
        os.path.isfile(cwd / path) or os.path.abspath(cwd / path) in unsaved for path in paths
    )
    if named and not config_files:
        options = dataclasses.replace(options, python_classes=("",), python_functions=("",))
    return options, (
        not named
        or bool(config_files)
        or any(not is_test_module(path.name, options.python_files) for path in lint_files)
    )
