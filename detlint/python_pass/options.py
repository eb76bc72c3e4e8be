"""What the Python pass is told about the repository it reads."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")


@dataclass(frozen=True)
class ScanOptions:
    """What the scan of one module needs from the rest of the repository."""

    python_files: tuple[str, ...] = DEFAULT_PYTHON_FILES
    retry_names: frozenset[str] = frozenset()
    env_readers: frozenset[str] = frozenset()


def is_test_module(filename: str, python_files: tuple[str, ...]) -> bool:
    """Whether pytest collects tests from a file of this name (its ``python_files``)."""
    return any(fnmatch.fnmatch(filename, pattern) for pattern in python_files)
