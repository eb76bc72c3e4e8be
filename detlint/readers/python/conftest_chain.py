"""The conftest.py files that reach each directory of a repository, with their bytes.

Several readers look facts up in the conftest.py files above a test (fixtures that
skip, hooks that wrap tests by name, fixtures with params); each asks per directory,
and most ask only of files whose bytes can hold what it wants. The chain of each
directory is worked out once and each file read once, for all of them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from detlint.base.source import read_bytes
from detlint.base.span import Problem

# (absolute path, bytes) of each readable conftest.py, nearest first.
Chain = tuple[tuple[str, bytes], ...]


class ConftestChain:
    """The readable conftest.py files that reach each directory, nearest first."""

    def __init__(self, root: Path, exists: Callable[[Path], bool]) -> None:
        self.root = os.path.abspath(root)
        self.exists = exists
        self._found: dict[str, Chain] = {}

    def of(self, directory: str) -> Chain:
        found = self._found.get(directory)
        if found is None:
            parent = os.path.dirname(directory)
            above = directory != self.root and parent != directory
            found = self.of(parent) if above else ()
            conftest = os.path.abspath(os.path.join(directory, "conftest.py"))
            if self.exists(Path(conftest)):
                data = read_bytes(Path(conftest), "")
                if not isinstance(data, Problem):
                    found = ((conftest, data), *found)
            self._found[directory] = found
        return found
