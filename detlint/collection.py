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
import os
from collections.abc import Iterable
from pathlib import Path

from detlint.pytest_config import PytestConfig, find_pytest_config
from detlint.python_pass.facts import HOOK_TEST, TestFunction
from detlint.python_pass.options import (
    DEFAULT_PYTHON_CLASSES,
    DEFAULT_PYTHON_FILES,
    DEFAULT_PYTHON_FUNCTIONS,
    UNITTEST_METHOD_PREFIX,
    ScanOptions,
    is_test_module,
    matches_name,
)


def _union(*groups: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item for group in groups for item in group))


def scan_options(
    options: ScanOptions, config_files: Iterable[Path], lint_files: Iterable[Path], cwd: Path
) -> ScanOptions:
    """``options`` with the collection patterns of every config the run can meet:
    the configs next to the config files discovered, and those of linted files whose
    names the default patterns would not collect (a run on a few files)."""
    directories = {path.parent for path in config_files}
    directories |= {
        path.parent for path in lint_files if not is_test_module(path.name, DEFAULT_PYTHON_FILES)
    }
    configs = [find_pytest_config(directory, cwd) for directory in sorted(directories)]
    return ScanOptions(
        python_files=_union(DEFAULT_PYTHON_FILES, *(c.python_files for c in configs)),
        retry_names=options.retry_names,
        env_readers=options.env_readers,
        python_classes=_union(DEFAULT_PYTHON_CLASSES, *(c.python_classes for c in configs)),
        python_functions=_union(DEFAULT_PYTHON_FUNCTIONS, *(c.python_functions for c in configs)),
    )


def collects(config: PytestConfig, test: TestFunction, cwd: Path) -> bool:
    """Whether pytest, under ``config``, collects ``test`` when it walks the tree."""
    if test.name == HOOK_TEST:
        return True  # a stand-in for the tests a collection hook marks
    filename = test.path.rsplit("/", 1)[-1]
    if not is_test_module(filename, config.python_files):
        return False
    if test.unittest:
        if not test.name.startswith(UNITTEST_METHOD_PREFIX):
            return False
    elif not matches_name(test.name, config.python_functions):
        return False
    if (
        test.class_name is not None
        and not test.unittest
        and not all(
            matches_name(name, config.python_classes) for name in test.class_name.split("::")
        )
    ):
        return False
    return not _in_skipped_directory(config, test.path, cwd)


def _in_skipped_directory(config: PytestConfig, path: str, cwd: Path) -> bool:
    """Whether a directory between the config's and the module matches ``norecursedirs``."""
    if config.path is None:
        return False
    root = os.path.dirname(os.path.abspath(cwd / config.path))
    module = os.path.abspath(cwd / path)
    relative = os.path.relpath(os.path.dirname(module), root)
    if relative.startswith(".."):
        return False
    parts = [] if relative == "." else relative.split(os.sep)
    return any(fnmatch.fnmatch(part, pattern) for part in parts for pattern in config.norecursedirs)
