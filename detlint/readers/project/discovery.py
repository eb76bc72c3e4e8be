"""Which files to lint, where the repository starts, and every file it holds.

Discovery is the first thing every run does, including a pre-commit run on one
file, so it is built for speed: directories are listed with ``os.scandir`` (the
file type comes from the directory entry, so regular files cost no ``stat``),
exclusion globs are compiled into one regular expression, and .gitignore rules
come from a single ``git ls-files`` call instead of a reimplementation of
gitignore semantics. Symlinked directories are never followed, which makes
symlink loops impossible rather than detected.

Paths are kept as the user spelled them (made absolute lexically, never
resolved): findings must point at the path the user knows, and a resolved
path through a symlinked checkout would not be under the working directory.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from detlint.base.paths import display_path
from detlint.base.span import Problem, Span

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

_ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini")

_GIT_TIMEOUT_SECONDS = 20.0

# Set by git hooks (pre-commit runs inside one) and by wrappers; they would point
# `git ls-files` at another repository or index than the root being linted.
_GIT_LOCATION_VARIABLES = frozenset(
    {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX"}
)

_NOT_FOUND = "path does not exist"
_BROKEN_LINK = "path does not exist (broken symbolic link)"


@dataclass(frozen=True)
class Discovery:
    """The outcome of expanding the user's paths: files to lint, paths that could not
    be, and the vendored directories skipped (as displayed)."""

    root: Path
    files: tuple[Path, ...]
    problems: tuple[Problem, ...]
    vendored: tuple[str, ...] = ()


class _Rules(NamedTuple):
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
def _rules(
    exclude: tuple[str, ...],
    vendored: tuple[str, ...] = DEFAULT_VENDORED,
    default_excludes: tuple[str, ...] = DEFAULT_EXCLUDES,
) -> _Rules:
    names = frozenset() if _CASE_FOLDS else frozenset(n for n in default_excludes if _literal(n))
    globs = [pattern for pattern in default_excludes if pattern not in names]
    return _Rules(names, _compile(globs), _compile(exclude), frozenset(vendored))


def _literal(pattern: str) -> bool:
    """A directory name that matches only itself (no wildcard, no path)."""
    return not any(character in pattern for character in "*?[/") and pattern.strip() == pattern


class _Listing(NamedTuple):
    """What ``git ls-files`` reports, as paths relative to the root in POSIX form.

    ``kept`` holds files, symlinks, submodules and untracked nested repositories
    (the last two are directories whose content is kept without git filtering);
    ``dirs`` holds every directory with something kept beneath it, so that a
    wholly ignored directory is pruned without being listed.
    """

    kept: frozenset[str]
    dirs: frozenset[str]


def _is_git_work_tree(root: str) -> bool:
    """True when root or an ancestor holds ``.git`` (a directory, or a file in worktrees)."""
    current = root
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


def _git_listing(root: str) -> _Listing | None:
    """The files git does not ignore under root, or None when git is unusable here.

    None (missing git, not a work tree, "dubious ownership", timeout) makes the
    caller walk without gitignore filtering: a slower or noisier run is better
    than a failed one.
    """
    if not _is_git_work_tree(root):
        return None
    env = {k: v for k, v in os.environ.items() if k not in _GIT_LOCATION_VARIABLES}
    env["GIT_OPTIONAL_LOCKS"] = "0"  # a read-only listing must not contend for index.lock
    command = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    import subprocess  # only when a directory is walked in a git work tree

    try:
        result = subprocess.run(
            command,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None
    kept: set[str] = set()
    dirs: set[str] = {""}
    for raw in result.stdout.split(b"\0"):
        if not raw:
            continue
        # Untracked nested repositories are listed once, as "dir/".
        rel = os.fsdecode(raw).rstrip("/")
        kept.add(rel)
        slash = rel.rfind("/")
        while slash > 0:
            parent = rel[:slash]
            if parent in dirs:
                break
            dirs.add(parent)
            slash = parent.rfind("/")
    return _Listing(frozenset(kept), frozenset(dirs))


def _reason(error: OSError) -> str:
    """The OS's short reason in lower case ("permission denied"), without path or errno."""
    reason = " ".join((error.strerror or type(error).__name__).split())
    return reason[:1].lower() + reason[1:] if reason[1:2].islower() else reason


def _walk(
    start: str,
    start_rel: str,
    rules: _Rules,
    listing: _Listing | None,
    files: set[str],
    problems: list[tuple[str, str]],
    vendored: list[str] | None = None,
) -> None:
    """Add every regular file under ``start`` to ``files``, following no symlinked directory.
    Vendored directories skipped are added to ``vendored``.

    ``start_rel`` is ``start`` relative to the root in POSIX form ("" for the root);
    globs are matched against it extended by each entry's name. With a
    ``listing``, files git ignores are dropped and ignored directories pruned.
    """
    stack: list[tuple[str, str, _Listing | None]] = [(start, start_rel, listing)]
    while stack:
        directory, rel, active = stack.pop()
        try:
            with os.scandir(directory) as iterator:
                entries = list(iterator)
        except OSError as error:
            problems.append((directory, f"cannot read directory: {_reason(error)}"))
            continue
        prefix = f"{rel}/" if rel else ""
        for entry in entries:
            name = entry.name
            child = prefix + name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if rules.skips_dir(name, child):
                        continue
                    nested = active is not None and child in active.kept
                    if rules.vendored and (nested or rules.is_vendored(name, child)):
                        if vendored is not None:  # a submodule, a nested repository
                            vendored.append(entry.path)
                        continue
                    if active is None or nested:
                        # Unfiltered; or a submodule or nested repository, kept whole.
                        stack.append((entry.path, child, None))
                    elif child in active.dirs:
                        stack.append((entry.path, child, active))
                    # else: nothing under it survives .gitignore; prune it unlisted
                    continue
                if rules.skips_file(name, child) or (
                    active is not None and child not in active.kept
                ):
                    continue
                if entry.is_file():  # follows a symlink; costs a stat only for symlinks
                    files.add(entry.path)
                # else: a broken symlink (a checkout's link into a build tree or a
                # submodule not cloned: nothing to read, and nothing a maintainer acts
                # on), a symlinked directory (never followed), FIFO, socket or device
            except OSError as error:  # e.g. a symlink pointing at itself
                problems.append((entry.path, f"cannot read: {_reason(error)}"))


def _relative(path: str, root: str) -> str:
    """``path`` relative to ``root`` in POSIX form, "" for the root itself."""
    rel = os.path.relpath(path, root)
    return "" if rel == "." else rel.replace(os.sep, "/")


def _is_under(path: str, directory: str) -> bool:
    try:
        return os.path.commonpath([path, directory]) == directory
    except ValueError:  # different drives on Windows
        return False


def _path_order(path: str) -> str:
    """Sort key giving pathlib's order (by component) without building Path objects,
    whose comparisons cost more than the rest of a large tree's listing: with the
    separator as NUL, which sorts before any character a name can hold, comparing
    the strings compares their components in turn."""
    return path.replace(os.sep, "\0")


def find_root(paths: Sequence[Path]) -> Path:
    """The repository root for these paths.

    The nearest ancestor of their common directory (itself included) holding
    ``.git`` wins, even over a nearer ``pyproject.toml``: in a monorepo the CI
    YAML and the lock files live at the git root, not in the package directory.
    Without git, the nearest directory with Python project or pytest config;
    else the common directory itself. No paths means the working directory.
    """
    directories = []
    for path in paths or [Path.cwd()]:
        absolute = os.path.abspath(path)
        directories.append(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
    try:
        common = os.path.commonpath(directories)
    except ValueError:  # different drives on Windows: no common directory
        common = directories[0]
    marked: str | None = None
    current = common
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return Path(current)
        if marked is None and any(
            os.path.isfile(os.path.join(current, marker)) for marker in _ROOT_MARKERS
        ):
            marked = current
        parent = os.path.dirname(current)
        if parent == current:
            return Path(marked or common)
        current = parent


def _missing(target: str, error: OSError) -> str:
    """The message for an explicit path that ``stat`` cannot reach."""
    if isinstance(error, FileNotFoundError):
        return _BROKEN_LINK if os.path.islink(target) else _NOT_FOUND
    return f"cannot read: {_reason(error)}"


def discover(
    paths: Sequence[Path],
    cwd: Path,
    *,
    exclude: Sequence[str] = (),
    respect_gitignore: bool = True,
    vendored: Sequence[str] = DEFAULT_VENDORED,
    default_excludes: Sequence[str] = DEFAULT_EXCLUDES,
    force_exclude: bool = False,
    unsaved: Sequence[str] = (),
) -> Discovery:
    """Expand the user's paths (files and directories; ``[cwd]`` when empty) into files to lint.

    A file named explicitly is linted even when excluded or ignored, as with
    ruff without ``--force-exclude``: the user asked for it. With
    ``force_exclude`` (pre-commit names every staged file), a path that a walk
    from the root would leave out (by ``exclude``, the default directories or a
    vendored directory above it) stays out, so that a hook and a run from the
    root agree. An explicitly named directory is walked even if its own name is
    excluded or ignored; entries below it are filtered by their own names and
    paths, and by .gitignore unless git ignores the whole directory. ``git
    ls-files`` runs at most once, and only when a directory is to be walked.
    ``unsaved`` holds absolute paths whose text comes from elsewhere (standard
    input): they count as files whether or not they exist on disk.
    """
    base = os.path.abspath(cwd)
    targets = [os.path.normpath(os.path.join(base, os.fspath(p))) for p in paths] or [base]
    root = str(find_root([Path(t) for t in targets]))
    rules = _rules(tuple(exclude), tuple(vendored), tuple(default_excludes))
    files: set[str] = set()
    problems: list[tuple[str, str]] = []
    skipped: list[str] = []
    listing: _Listing | None = None
    listed = False
    for target in targets:
        if (
            force_exclude
            and target != root
            and _is_under(target, root)
            and rules.skips_path(_relative(target, root))
        ):
            continue
        if target in unsaved:
            files.add(target)
            continue
        try:
            mode = os.stat(target).st_mode
        except OSError as error:
            problems.append((target, _missing(target, error)))
            continue
        except ValueError:  # a NUL character in the path
            problems.append((target, _NOT_FOUND))
            continue
        if stat.S_ISREG(mode):
            files.add(target)
        elif stat.S_ISDIR(mode):
            if respect_gitignore and not listed:
                listing, listed = _git_listing(root), True
            rel = _relative(target, root)
            active = listing if listing is not None and rel in listing.dirs else None
            if active is not None and rel in active.kept:  # the target is a submodule
                active = None
            _walk(target, rel, rules, active, files, problems, skipped)
        else:
            problems.append((target, "not a regular file or directory; skipped"))
    shown = sorted({(display_path(Path(p), cwd), message) for p, message in problems})
    return Discovery(
        root=Path(root),
        files=tuple(Path(f) for f in sorted(files, key=_path_order)),
        problems=tuple(Problem(Span.file(path), message) for path, message in shown),
        vendored=tuple(sorted({display_path(Path(p), cwd) for p in skipped})),
    )


def repository_files(
    root: Path,
    *,
    exclude: Sequence[str] = (),
    respect_gitignore: bool = True,
    vendored: Sequence[str] = DEFAULT_VENDORED,
    default_excludes: Sequence[str] = DEFAULT_EXCLUDES,
    unsaved: Sequence[str] = (),
) -> tuple[str, ...]:
    """Every file of the repository under ``root``, with the same exclusion rules as discover,
    as absolute paths in pathlib's order; ``unsaved`` paths (standard input's, as for
    :func:`discover`) count among them whether or not they exist on disk yet.

    Strings, not ``Path`` objects: a large repository lists thousands of files, and
    a run on one file (a pre-commit hook) keeps a few of them; building a ``Path``
    for every one would cost more than the walk's filtering.

    The context passes (dependency pins, pytest config, conftest aliases) read
    from here even when one file is linted, so the answer is cached per
    arguments; unreadable directories are silently skipped, since they are not
    what the user asked to lint. Call :func:`clear_cache` if files may have
    changed since (long-lived processes, tests).
    """
    top = os.path.abspath(root)
    listed = _repository_files(
        top, tuple(exclude), respect_gitignore, tuple(vendored), tuple(default_excludes)
    )
    if not unsaved:
        return listed
    rules = _rules(tuple(exclude), tuple(vendored), tuple(default_excludes))
    extra = {
        path
        for path in unsaved
        if _is_under(path, top) and not rules.skips_path(_relative(path, top))
    }.difference(listed)
    return tuple(sorted((*listed, *extra), key=_path_order)) if extra else listed


@functools.lru_cache(maxsize=16)
def _repository_files(
    root: str,
    exclude: tuple[str, ...],
    respect_gitignore: bool,
    vendored: tuple[str, ...],
    default_excludes: tuple[str, ...],
) -> tuple[str, ...]:
    listing = _git_listing(root) if respect_gitignore else None
    files: set[str] = set()
    _walk(root, "", _rules(exclude, vendored, default_excludes), listing, files, [])
    return tuple(sorted(files, key=_path_order))


def clear_cache() -> None:
    """Forget cached repository listings, so that the next call sees the disk as it is now."""
    _repository_files.cache_clear()
