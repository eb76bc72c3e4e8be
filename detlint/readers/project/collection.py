"""What pytest collects: the configured files, classes and functions, and the
directories it does not enter.

A knob on a function pytest never collects is not a finding, and a test pytest
does collect must not be missed because its project names tests its own way
(celery's ``python_classes = "test_*"``, prefect's ``bench_*`` functions). The
Python pass reads a module if *any* config of the run would collect it, keeping
every class and function some config's patterns name; each test is then kept
only if the config that applies to its module collects it.
"""

from __future__ import annotations

import fnmatch
import functools
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.source import read_bytes
from detlint.base.span import Problem
from detlint.readers.python.options import (
    HOOK_TEST,
    UNITTEST_METHOD_PREFIX,
    ScanOptions,
    is_test_module,
    matches_name,
)

if TYPE_CHECKING:
    from detlint.readers.project.pytest_config import PytestConfig
    from detlint.readers.project.pytest_configs import PytestConfigs
    from detlint.readers.python.facts import TestFunction


def _union(*groups: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item for group in groups for item in group))


def scan_options(
    options: ScanOptions,
    config_files: Sequence[Path],
    lint_files: Sequence[Path],
    root: Path,
    configs_of: PytestConfigs,
) -> ScanOptions:
    """``options`` with the collection patterns of every config the run can meet.

    A run over a tree discovers every config file in it: those, and the one that
    applies at the root (it may sit above), are all the configs there are. A run on
    a directory without one asks the config of each file's directory.
    """
    if config_files:
        # Only a config that names its own patterns can change them: the bytes say.
        directories = {path.parent for path in config_files if _names_patterns(path)} | {root}
    else:
        directories = {path.parent for path in lint_files}
    configs = [configs_of.of(directory) for directory in sorted(directories)]
    return ScanOptions(
        python_files=_union(options.python_files, *(c.python_files for c in configs)),
        retry_names=options.retry_names,
        env_readers=options.env_readers,
        python_classes=_union(options.python_classes, *(c.python_classes for c in configs)),
        python_functions=_union(options.python_functions, *(c.python_functions for c in configs)),
    )


def _names_patterns(path: Path) -> bool:
    data = read_bytes(path, "")
    return not isinstance(data, Problem) and any(
        key in data for key in (b"python_files", b"python_classes", b"python_functions")
    )


def collects(config: PytestConfig, test: TestFunction, cwd: Path, named: bool = False) -> bool:
    """Whether pytest, under ``config``, collects ``test`` when it walks the tree; or,
    for a module it is given by name (``named``), when it reads that module."""
    if test.name == HOOK_TEST:
        return True  # a stand-in for the tests a collection hook marks
    if not named and not _collects_module(
        config.path, config.python_files, config.norecursedirs, test.path, str(cwd)
    ):
        return False
    return collects_in_module(config, test)


def collects_in_module(config: PytestConfig, test: TestFunction) -> bool:
    """Whether pytest, under ``config``, collects ``test`` from a module it collects.

    CI linking asks this alone: a step's targets decide which modules it runs (a file
    it names is collected whatever ``python_files`` says), not the walk ``collects``
    describes, while the names of the tests in them are the config's business either way.
    """
    if test.name == HOOK_TEST:
        return True
    if test.unittest:
        if not test.name.startswith(UNITTEST_METHOD_PREFIX):
            return False
    elif not matches_name(test.name, config.python_functions):
        return False
    return (
        test.class_name is None
        or test.unittest
        or all(matches_name(name, config.python_classes) for name in test.class_name.split("::"))
    )


@functools.lru_cache(maxsize=4096)
def _collects_module(
    config: str | None,
    python_files: tuple[str, ...],
    norecursedirs: tuple[str, ...],
    path: str,
    cwd: str,
) -> bool:
    """Whether pytest collects a module: its name matches ``python_files``, and no
    directory between the config's and the module's matches ``norecursedirs``
    (worked out once per module, though each of its tests asks)."""
    if not is_test_module(path.rsplit("/", 1)[-1], python_files):
        return False
    if config is None:
        return True
    root = os.path.dirname(os.path.abspath(os.path.join(cwd, config)))
    relative = os.path.relpath(os.path.dirname(os.path.abspath(os.path.join(cwd, path))), root)
    if relative.startswith(".."):
        return True
    parts = [] if relative == "." else relative.split(os.sep)
    return not any(fnmatch.fnmatch(part, pattern) for part in parts for pattern in norecursedirs)
