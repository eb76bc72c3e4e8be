"""What the Python pass is told about the repository it reads, and pytest's
collection rules: which files, classes and functions are tests."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from dataclasses import dataclass

DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")
DEFAULT_PYTHON_CLASSES = ("Test",)
DEFAULT_PYTHON_FUNCTIONS = ("test",)
# unittest's loader takes the methods of a TestCase whatever pytest's python_functions say.
UNITTEST_METHOD_PREFIX = "test"


@dataclass(frozen=True)
class ScanOptions:
    """What the scan of one module needs from the rest of the repository.

    The collection patterns are those of every pytest config the run can meet
    (the defaults among them): a module is read, and its classes and functions
    kept, if any config would collect them, and the link step keeps only what
    the config that applies to each module collects.
    """

    python_files: tuple[str, ...] = DEFAULT_PYTHON_FILES
    retry_names: frozenset[str] = frozenset()
    env_readers: frozenset[str] = frozenset()
    python_classes: tuple[str, ...] = DEFAULT_PYTHON_CLASSES
    python_functions: tuple[str, ...] = DEFAULT_PYTHON_FUNCTIONS


def is_test_module(filename: str, python_files: tuple[str, ...]) -> bool:
    """Whether pytest collects tests from a file of this name (its ``python_files``).

    ``fnmatch`` per pattern, as pytest matches them; the patterns are joined
    into one regular expression because every file of a run is asked.
    """
    if not python_files:
        return False
    return _patterns(python_files).match(os.path.normcase(filename)) is not None


@functools.lru_cache(maxsize=16)
def _patterns(python_files: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(fnmatch.translate(os.path.normcase(p)) for p in python_files))


def matches_name(name: str, patterns: tuple[str, ...]) -> bool:
    """pytest's rule for ``python_classes`` and ``python_functions``: each entry is a
    prefix, or a glob when it holds a wildcard (``Test*``, ``*_tests``, ``test_*``)."""
    for pattern in patterns:
        if name.startswith(pattern):
            return True
        if any(char in pattern for char in "*?[") and fnmatch.fnmatchcase(name, pattern):
            return True
    return False


# The name of the stand-in test a collection hook's marks are judged on: it reaches
# tests detlint cannot enumerate statically (``facts.hook_tests``).
HOOK_TEST = "<tests marked by a hook>"
