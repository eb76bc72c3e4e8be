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

import functools
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from detlint.base.paths import display_path
from detlint.base.source import unsaved_paths
from detlint.base.span import Problem, Span
from detlint.readers.project.exclusions import (
    DEFAULT_EXCLUDES,
    DEFAULT_VENDORED,
    ExclusionRules,
    exclusion_rules,
)
from detlint.readers.project.tree_walk import path_order, reason, relative, walk

if TYPE_CHECKING:
    from detlint.readers.project.git_listing import GitListing
    from detlint.readers.project.settings import Settings
    from detlint.readers.project.vendored_runs import NamedSubtree


_ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini")


_NOT_FOUND = "path does not exist"
_BROKEN_LINK = "path does not exist (broken symbolic link)"


@dataclass(frozen=True)
class Discovery:
    """The outcome of expanding the user's paths: files to lint, paths that could not
    be, the vendored directories skipped (as displayed), and the parts of them read."""

    root: Path
    names: tuple[str, ...]  # the files, absolute, in the order they are linted
    problems: tuple[Problem, ...]
    vendored: tuple[str, ...] = ()
    # The vendored subtrees read because the repository runs tests there (root-relative).
    vendored_read: tuple[NamedSubtree, ...] = ()

    @functools.cached_property
    def files(self) -> tuple[Path, ...]:
        """The files as paths, made on first use: a run that reuses a stored result
        (``cli/run_cache.py``) needs only the names, and ten thousand paths take a
        tenth of a second to make."""
        return tuple(map(Path, self.names))


def _is_under_rel(path: str, directory: str) -> bool:
    """Whether the relative POSIX ``path`` is ``directory`` or lies beneath it."""
    return path == directory or path.startswith(directory + "/")


def _is_under(path: str, directory: str) -> bool:
    try:
        return os.path.commonpath([path, directory]) == directory
    except ValueError:  # different drives on Windows
        return False


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
    return f"cannot read: {reason(error)}"


def discover_files(paths: Sequence[Path], cwd: Path, settings: Settings) -> Discovery:
    """The files a check of ``paths`` (already widened) reads, as ``settings`` scope
    them. ``--show-files`` lists exactly these, so it is one function. A
    ``vendored-dirs`` list of the user's own says what is vendored: no configuration
    line reads into it."""
    default_excludes, exclude = settings.walk_excludes()
    return discover(
        list(paths) or [cwd],
        cwd,
        exclude=exclude,
        respect_gitignore=settings.respect_gitignore,
        vendored=settings.vendored_dirs,
        default_excludes=default_excludes,
        force_exclude=settings.force_exclude,
        unsaved=unsaved_paths(),
        vendored_runs=tuple(settings.vendored_dirs) == DEFAULT_VENDORED,
    )


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
    vendored_runs: bool = True,
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
    input): they count as files whether or not they exist on disk. With
    ``vendored_runs``, the subtrees of skipped vendored directories that the
    repository's configuration runs tests in are read (:func:`vendored_reads`).
    """
    base = os.path.abspath(cwd)
    targets = [os.path.normpath(os.path.join(base, os.fspath(p))) for p in paths] or [base]
    root = str(find_root([Path(t) for t in targets]))
    key = (root, tuple(exclude), respect_gitignore, tuple(vendored), tuple(default_excludes))
    expansion = _Expansion(root, exclusion_rules(*key[1:2], *key[3:]))
    held: list[str] = []  # force-excluded for a vendored directory above them only
    for target in targets:
        if (
            force_exclude
            and target != root
            and _is_under(target, root)
            and expansion.rules.skips_path(relative(target, root))
        ):
            if not expansion.rules._replace(vendored=frozenset()).skips_path(
                relative(target, root)
            ):
                held.append(target)
            continue
        if target in unsaved:
            expansion.files.add(target)
        else:
            expansion.add(target, respect_gitignore)
    wanted = vendored_runs and (expansion.skipped or held)
    named = _add_vendored_runs(expansion, held, key) if wanted else ()
    shown = sorted({(display_path(Path(p), cwd), message) for p, message in expansion.problems})
    return Discovery(
        root=Path(root),
        names=tuple(sorted(expansion.files, key=path_order)),
        problems=tuple(Problem(Span.file(path), message) for path, message in shown),
        vendored=tuple(sorted({display_path(Path(p), cwd) for p in expansion.skipped})),
        vendored_read=named,
    )


def _add_vendored_runs(
    expansion: _Expansion,
    held: list[str],
    key: tuple[str, tuple[str, ...], bool, tuple[str, ...], tuple[str, ...]],
) -> tuple[NamedSubtree, ...]:
    """Add the files of the vendored subtrees the repository runs tests in that lie under
    a walked directory, or that a force-excluded path names; the subtrees so named."""
    reads = vendored_reads(*key)
    root = key[0]
    kept = [target for target in held if target in reads.files]
    expansion.files.update(kept)
    for path in reads.files:
        if any(_is_under(path, walked) for walked in expansion.walked):
            expansion.files.add(path)
    return tuple(
        subtree
        for subtree in reads.named
        if any(_is_under(os.path.join(root, subtree.path), w) for w in expansion.walked)
        or any(_is_under(target, os.path.join(root, subtree.path)) for target in kept)
    )


class _Expansion:
    """The files the user's paths expand to so far, and what could not be expanded;
    ``git ls-files`` runs at most once, when a first directory is to be walked."""

    def __init__(self, root: str, rules: ExclusionRules) -> None:
        self.root = root
        self.rules = rules
        self.files: set[str] = set()
        self.problems: list[tuple[str, str]] = []
        self.skipped: list[str] = []  # vendored directories
        self.walked: list[str] = []  # directories walked
        self._listing: GitListing | None = None
        self._listed = False

    def add(self, target: str, respect_gitignore: bool) -> None:
        """A named file, or every file under a named directory."""
        try:
            mode = os.stat(target).st_mode
        except OSError as error:
            self.problems.append((target, _missing(target, error)))
            return
        except ValueError:  # a NUL character in the path
            self.problems.append((target, _NOT_FOUND))
            return
        if stat.S_ISREG(mode):
            self.files.add(target)
        elif stat.S_ISDIR(mode):
            if respect_gitignore and not self._listed:
                from detlint.readers.project.git_listing import git_listing  # a directory only

                self._listing, self._listed = git_listing(self.root), True
            rel = relative(target, self.root)
            listing = self._listing
            active = listing if listing is not None and rel in listing.dirs else None
            if active is not None and rel in active.kept:  # the target is a submodule
                active = None
            self.walked.append(target)
            walk(target, rel, self.rules, active, self.files, self.problems, self.skipped)
        else:
            self.problems.append((target, "not a regular file or directory; skipped"))


def repository_files(
    root: Path,
    *,
    exclude: Sequence[str] = (),
    respect_gitignore: bool = True,
    vendored: Sequence[str] = DEFAULT_VENDORED,
    default_excludes: Sequence[str] = DEFAULT_EXCLUDES,
    unsaved: Sequence[str] = (),
    vendored_runs: bool = False,
) -> tuple[str, ...]:
    """Every file of the repository under ``root``, with the same exclusion rules as discover,
    as absolute paths in pathlib's order; ``unsaved`` paths (standard input's, as for
    :func:`discover`) count among them whether or not they exist on disk yet. With
    ``vendored_runs`` (the run read some, see :func:`vendored_reads`), the files of the
    vendored subtrees the repository runs tests in count too.

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
    key = (top, tuple(exclude), respect_gitignore, tuple(vendored), tuple(default_excludes))
    listed = _repository_files(*key, vendored_runs)
    if not unsaved:
        return listed
    rules = exclusion_rules(tuple(exclude), tuple(vendored), tuple(default_excludes))
    extra = {
        path
        for path in unsaved
        if _is_under(path, top) and not rules.skips_path(relative(path, top))
    }.difference(listed)
    return tuple(sorted((*listed, *extra), key=path_order)) if extra else listed


class _Listing(NamedTuple):
    """A walk of the whole repository: its files (absolute, in pathlib's order), the
    vendored directories it skipped (relative), and git's listing (None without git)."""

    files: tuple[str, ...]
    skipped: tuple[str, ...]
    git: GitListing | None


@functools.lru_cache(maxsize=16)
def _repository_listing(
    root: str,
    exclude: tuple[str, ...],
    respect_gitignore: bool,
    vendored: tuple[str, ...],
    default_excludes: tuple[str, ...],
) -> _Listing:
    from detlint.readers.project.git_listing import git_listing

    listing = git_listing(root) if respect_gitignore else None
    files: set[str] = set()
    skipped: list[str] = []
    rules = exclusion_rules(exclude, vendored, default_excludes)
    walk(root, "", rules, listing, files, [], skipped)
    skipped_rel = tuple(sorted({relative(path, root) for path in skipped}))
    return _Listing(tuple(sorted(files, key=path_order)), skipped_rel, listing)


@functools.lru_cache(maxsize=16)
def _repository_files(
    root: str,
    exclude: tuple[str, ...],
    respect_gitignore: bool,
    vendored: tuple[str, ...],
    default_excludes: tuple[str, ...],
    vendored_runs: bool,
) -> tuple[str, ...]:
    key = (root, exclude, respect_gitignore, vendored, default_excludes)
    listed = _repository_listing(*key).files
    if vendored_runs and (read := vendored_reads(*key).files):
        return tuple(sorted(read.union(listed), key=path_order))
    return listed


class VendoredReads(NamedTuple):
    """The subtrees of vendored directories the repository's configuration runs tests
    in, and the files read there (absolute, with the conftests on the way down)."""

    named: tuple[NamedSubtree, ...]
    files: frozenset[str]


@functools.lru_cache(maxsize=16)
def vendored_reads(
    root: str,
    exclude: tuple[str, ...],
    respect_gitignore: bool,
    vendored: tuple[str, ...],
    default_excludes: tuple[str, ...],
) -> VendoredReads:
    """What a walk of ``root`` reads in its vendored directories: nothing unless one
    was skipped, and then only what :mod:`vendored_runs` finds named."""
    from detlint.readers.project.vendored_runs import conftests_above, named_subtrees

    listing = _repository_listing(root, exclude, respect_gitignore, vendored, default_excludes)
    if not listing.skipped:
        return VendoredReads((), frozenset())
    git = listing.git
    named = named_subtrees(root, listing.files, listing.skipped, git.kept if git else frozenset())
    rules = exclusion_rules(exclude, vendored, default_excludes)
    unvendored = rules._replace(vendored=frozenset())
    files: set[str] = set()
    for subtree in named:
        if subtree.submodule or unvendored.skips_path(subtree.path + "/-"):
            continue
        top = next(v for v in listing.skipped if _is_under_rel(subtree.path, v))
        for conftest in conftests_above(root, subtree.path, top):
            if git is None or conftest in git.kept:
                files.add(os.path.join(root, conftest))
        start = os.path.join(root, subtree.path)
        if not os.path.isdir(start):
            if git is None or subtree.path in git.kept:
                files.add(start)
        elif git is None or subtree.path in git.dirs:
            walk(start, subtree.path, rules, git, files, [])
    return VendoredReads(named, frozenset(files))


def clear_cache() -> None:
    """Forget cached repository listings, so that the next call sees the disk as it is now."""
    _repository_listing.cache_clear()
    _repository_files.cache_clear()
    vendored_reads.cache_clear()
