"""Which test files a pytest run reaches: its targets resolved against the repository.

A run's targets are written relative to the directory it starts in (a step's
working directory, a ``cd``, where tox or make runs); a bare ``pytest`` runs the
``testpaths`` of the config that applies there, or everything below. A large CI
setup runs thousands of steps over the same few directories, so every answer is
memoised per distinct question and the repository's files are searched by
bisection in one sorted list. Paths move between three forms (as listed, relative
to the repository root, as displayed relative to the working directory) by string
operations: pathlib costs more per path than the rest of linking a run.
"""

from __future__ import annotations

import bisect
import fnmatch
import os
import posixpath
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from detlint.base.paths import join, mounted_tail, relativer
from detlint.readers.project.pytest_config import PytestConfig
from detlint.readers.python.options import is_test_module


class TestFiles:
    """The repository's Python files (relative, POSIX) and the test files runs reach."""

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(
        self,
        files: Sequence[str],
        config_for: Callable[[str], PytestConfig],
        relative: Callable[[str], str] = lambda path: path,
        display: Callable[[str], str] = lambda path: path,
    ) -> None:
        self.files = sorted(set(files))  # once each: the files below a target are unique
        self._file_set = frozenset(self.files)
        self.config_for = config_for  # the pytest config for a repository directory
        self.relative = relative  # a displayed path (a config file's) as a repository path
        self._show = display  # a repository path as displayed (relative to the cwd)
        self._tests: dict[tuple[str, ...], list[str]] = {}
        self._under: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}
        self._reached: dict[tuple[str, tuple[str, ...], tuple[str, ...]], tuple[str, ...]] = {}
        self._shown: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}
        self._displayed: dict[str, str] = {}
        # Files a run names that the config's ``python_files`` would not take (tests/
        # check_foo.py): pytest collects a file it is given whatever its name.
        self.named: set[str] = set()

    def reached(
        self, directory: str, written: tuple[str, ...], ignored: tuple[str, ...] = ()
    ) -> tuple[str, ...]:
        """The test files (as displayed, sorted) of a run started in ``directory`` with
        targets ``written``, less those its ``--ignore``/``--ignore-glob`` values
        (``ignored``, as written) leave out. Runs asking the same share one tuple."""
        key = (directory, written, ignored)
        found = self._reached.get(key)
        if found is None and ignored:
            kept = self.reached(directory, written)
            found = self._reached[key] = self._without(kept, directory, ignored)
        if found is None:
            config = self.config_for(directory)
            named = [t for t in written if not t.startswith("-")]
            targets = [
                mapped
                for mapped in (
                    self.mapped(t) if t.startswith("/") else join(directory, t) for t in named
                )
                if mapped is not None
            ]
            if not named:
                config_dir = directory
                if config.path:
                    config_dir = posixpath.dirname(self.relative(config.path))
                targets = [join(config_dir, t) for t in config.testpaths] or [directory]
            if not targets:  # every target lies outside the repository
                found = ()
            elif len(targets) == 1:
                found = self._shown_below(targets[0], config.python_files)
            else:
                # Each target's files come sorted: sorting their concatenation merges runs.
                shown = [f for t in targets for f in self._shown_below(t, config.python_files)]
                found = tuple(sorted(dict.fromkeys(shown)))
            self._reached[key] = found
        return found

    def _without(
        self, files: tuple[str, ...], directory: str, ignored: tuple[str, ...]
    ) -> tuple[str, ...]:
        """``files`` less those below an ``--ignore`` path or matching an
        ``--ignore-glob`` pattern; pytest takes both from where it starts, and matches a
        pattern against the whole path (its ``*`` crosses directories)."""
        paths: list[str] = []
        patterns: list[str] = []
        for value in ignored:
            glob = any(c in value for c in "*?[")
            where = (
                (value.lstrip("/") if glob else self.mapped(value))
                if value.startswith("/")
                else join(directory, value)
            )
            if where is not None:
                (patterns if glob else paths).append(self.display(where.rstrip("/")))
        return tuple(
            f
            for f in files
            if not any(f == p or f.startswith(p + "/") for p in paths)
            and not any(
                fnmatch.fnmatchcase(f, p) or fnmatch.fnmatchcase(f, "*/" + p) for p in patterns
            )
        )

    def nodes(self, directory: str, written: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
        """The node ids targets select, as (test file as displayed, the id after it):
        ``tests/test_a.py::TestB::test_c`` runs only that test of the file. Most runs
        name none."""
        found: list[tuple[str, str]] = []
        for target in written:
            if "::" not in target or target.startswith("-"):
                continue
            path = self.mapped(target) if target.startswith("/") else join(directory, target)
            if path is not None:
                file, _, node = path.partition("::")
                found.append((self.display(file), node))
        return tuple(found)

    def locate(self, base: str, directory: str) -> str:
        """A working directory in the repository. An absolute one is where the CI image
        mounts the checkout (``/workspace/tests``): its longest tail that is a directory
        here is taken (``tests``), else the checkout root."""
        if not directory.startswith("/"):
            return join(base, directory)
        found = mounted_tail(directory, self._is_directory, base)
        return base if found is None else found

    def mapped(self, target: str) -> str | None:
        """An absolute pytest target as a repository path: a container mounts the
        checkout somewhere (``/workspace/<repo>/tests/test_a.py::test_b``), so the
        longest tail of the path that is a file or directory here is taken
        (``tests/test_a.py::test_b``). A path with no such tail is outside the
        repository (a site-packages test suite) and reaches nothing."""
        path, separator, node = target.partition("::")
        found = mounted_tail(path, self._exists)
        return None if found is None else found + separator + node

    def _exists(self, candidate: str) -> bool:
        return candidate in self._file_set or self._is_directory(candidate)

    def _is_directory(self, candidate: str) -> bool:
        index = bisect.bisect_left(self.files, candidate + "/")
        return index < len(self.files) and self.files[index].startswith(candidate + "/")

    def display(self, path: str) -> str:
        found = self._displayed.get(path)
        if found is None:
            found = self._displayed[path] = self._show(path)
        return found

    def _shown_below(self, target: str, python_files: tuple[str, ...]) -> tuple[str, ...]:
        """The test files below a target as displayed, sorted, without repeats."""
        key = (target, python_files)
        found = self._shown.get(key)
        if found is None:
            below = self._below(target, python_files)
            shown = [self.display(path) for path in below]
            # Shown as listed (a run from the root), the files are sorted and unique already.
            # Otherwise displaying keeps their order (it adds or strips one prefix) in all
            # but odd layouts: deduplicating in order, then sorting, costs one comparison a
            # file where a set would cost the whole sort.
            found = below if shown == list(below) else tuple(sorted(dict.fromkeys(shown)))
            self._shown[key] = found
        return found

    def _test_modules(self, python_files: tuple[str, ...]) -> list[str]:
        found = self._tests.get(python_files)
        if found is None:
            found = self._tests[python_files] = []
            named: dict[str, bool] = {}  # a repository repeats its file names
            for path in self.files:
                name = path[path.rfind("/") + 1 :]
                test = named.get(name)
                if test is None:
                    test = named[name] = is_test_module(name, python_files)
                if test:
                    found.append(path)
        return found

    def _below(self, target: str, python_files: tuple[str, ...]) -> tuple[str, ...]:
        """The test files a target names: itself, or every test module below it."""
        key = (target, python_files)
        found = self._under.get(key)
        if found is None:
            path = target.split("::", 1)[0].rstrip("/")
            tests = self._test_modules(python_files)
            if path in ("", "."):
                found = tuple(tests)
            elif path in self._file_set:
                found = (path,)
                if not is_test_module(path[path.rfind("/") + 1 :], python_files):
                    self.named.add(path)
            else:
                prefix = path + "/"
                start = bisect.bisect_left(tests, prefix)
                end = bisect.bisect_left(tests, prefix[:-1] + "0")  # "0" sorts right after "/"
                found = tuple(tests[start:end])
            self._under[key] = found
        return found


def python_files(paths: Iterable[str], root: Path, cwd: Path) -> list[str]:
    """The Python files of a listing (paths relative to ``cwd`` or absolute), relative to
    ``root`` as ``relativer`` gives them. A file counts when ``.py`` is its suffix as
    ``Path.suffix`` says, told from the text: the name ends in ``.py`` and is more
    than that (``.py`` alone is a hidden file without a suffix)."""
    relative = relativer(root, cwd)
    separators = "/" + os.sep
    return [
        relative(path)
        for path in paths
        if path.endswith(".py") and len(path) > 3 and path[-4] not in separators
    ]
