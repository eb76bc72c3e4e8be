"""What the Python pass is told about the repository it reads."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from dataclasses import dataclass

DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")


@dataclass(frozen=True)
class ScanOptions:
    """What the scan of one module needs from the rest of the repository."""

    python_files: tuple[str, ...] = DEFAULT_PYTHON_FILES
    retry_names: frozenset[str] = frozenset()
    env_readers: frozenset[str] = frozenset()


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
