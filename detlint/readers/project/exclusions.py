"""Which directories and files a walk of the repository leaves out, compiled once.

Version control, virtualenvs, caches and build output hold copies of other
projects' tests and config; vendored directories hold other projects' code. The
rules are matched for every directory entry of a walk, so the globs are compiled
into one regular expression each and default names without wildcards are a set.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Sequence
from typing import NamedTuple

DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "build",
    "dist",
    "site-packages",
    "*.egg-info",
)
"""Directory names never walked: version control, virtualenvs, caches and build
output hold copies of other projects' tests and config that are not this repository's."""


DEFAULT_VENDORED: tuple[str, ...] = (
    "_vendor",
    "_vendored",
    "vendor",
    "vendored",
    "third_party",
    "third-party",
    "thirdparty",
    "3rdparty",
    "external",
    "extern",
)
"""Directory names that hold other projects' code copied in: skipped by default (the
``vendored-dirs`` setting replaces the list; ``[]`` reads them all), except inside a test
tree (``tests/external/`` holds this project's tests of external services). Git
submodules and nested repositories are vendored too."""


_TEST_TREES = frozenset({"test", "tests", "testing"})


class ExclusionRules(NamedTuple):
    """Exclusion globs compiled once; matching runs for every directory entry.

    NamedTuples here rather than frozen dataclasses: as immutable, and several times
    cheaper to define on the start-up path of every run, a one-file pre-commit run
    included. Default directory names without wildcards are a set, so that a run on
    one file compiles no glob for them.
    """

    default_names: frozenset[str]
    default_dirs: re.Pattern[str] | None
    user: re.Pattern[str] | None
    vendored: frozenset[str] = frozenset()

    def skips_dir(self, name: str, rel: str) -> bool:
        return (
            name in self.default_names
            or (self.default_dirs is not None and self.default_dirs.match(name) is not None)
            or self.skips_file(name, rel)
        )

    def skips_path(self, rel: str) -> bool:
        """Whether a path named explicitly would have been left out of a walk from the
        root: the file itself, or a directory above it, is excluded or vendored
        (``--force-exclude``)."""
        parts = rel.split("/")
        for end in range(1, len(parts)):
            name, prefix = parts[end - 1], "/".join(parts[:end])
            if self.skips_dir(name, prefix) or (self.vendored and self.is_vendored(name, prefix)):
                return True
        return self.skips_file(parts[-1], rel)

    def is_vendored(self, name: str, rel: str) -> bool:
        """A directory of vendored code: by name, outside a test tree."""
        return name in self.vendored and _TEST_TREES.isdisjoint(rel.split("/")[:-1])

    def skips_file(self, name: str, rel: str) -> bool:
        return self.user is not None and (
            self.user.match(name) is not None or self.user.match(rel) is not None
        )


def _compile(patterns: Sequence[str]) -> re.Pattern[str] | None:
    """One regex for many fnmatch globs; case-insensitive where fnmatch is (Windows)."""
    cleaned = [p.strip().removeprefix("./").rstrip("/") for p in patterns]
    cleaned = [p for p in cleaned if p]
    if not cleaned:
        return None
    flags = re.IGNORECASE if os.path.normcase("A") == "a" else 0
    return re.compile("|".join(fnmatch.translate(p) for p in cleaned), flags)


_CASE_FOLDS = os.path.normcase("A") == "a"  # Windows: names match case-insensitively


@functools.lru_cache(maxsize=32)
def exclusion_rules(
    exclude: tuple[str, ...],
    vendored: tuple[str, ...] = DEFAULT_VENDORED,
    default_excludes: tuple[str, ...] = DEFAULT_EXCLUDES,
) -> ExclusionRules:
    names = frozenset() if _CASE_FOLDS else frozenset(n for n in default_excludes if _literal(n))
    globs = [pattern for pattern in default_excludes if pattern not in names]
    return ExclusionRules(names, _compile(globs), _compile(exclude), frozenset(vendored))


def _literal(pattern: str) -> bool:
    """A directory name that matches only itself (no wildcard, no path)."""
    return not any(character in pattern for character in "*?[/") and pattern.strip() == pattern
