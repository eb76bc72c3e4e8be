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
from typing import TYPE_CHECKING

from detlint.base.paths import display_path
from detlint.base.span import Problem, Span
from detlint.readers.project.exclusions import (
    DEFAULT_EXCLUDES,
    DEFAULT_VENDORED,
    ExclusionRules,
    exclusion_rules,
)

if TYPE_CHECKING:
    from detlint.readers.project.git_listing import GitListing
    from detlint.readers.project.settings import Settings


_ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini")


_NOT_FOUND = "path does not exist"
_BROKEN_LINK = "path does not exist (broken symbolic link)"


@dataclass(frozen=True)
class Discovery:
    """The outcome of expanding the user's paths: files to lint, paths that could not
    be, and the vendored directories skipped (as displayed)."""

    root: Path
    names: tuple[str, ...]  # the files, absolute, in the order they are linted
    problems: tuple[Problem, ...]
    vendored: tuple[str, ...] = ()

    @functools.cached_property
    def files(self) -> tuple[Path, ...]:
        """The files as paths, made on first use: a run that reuses a stored result
        (``cli/run_cache.py``) needs only the names, and ten thousand paths take a
        tenth of a second to make."""
        return tuple(map(Path, self.names))


def _reason(error: OSError) -> str:
    """The OS's short reason in lower case ("permission denied"), without path or errno."""
    reason = " ".join((error.strerror or type(error).__name__).split())
    return reason[:1].lower() + reason[1:] if reason[1:2].islower() else reason


def _walk(
    start: str,
    start_rel: str,
    rules: ExclusionRules,
    listing: GitListing | None,
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
    stack: list[tuple[str, str, GitListing | None]] = [(start, start_rel, listing)]
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


def discover_files(paths: Sequence[Path], cwd: Path, settings: Settings) -> Discovery:
    """The files a check of ``paths`` (already widened to the projects they configure)
    reads, as ``settings`` scope them. ``--show-files`` lists exactly these, so it is
    one function."""
    from detlint.base.source import unsaved_paths

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
    expansion = _Expansion(
        root, exclusion_rules(tuple(exclude), tuple(vendored), tuple(default_excludes))
    )
    for target in targets:
        if (
            force_exclude
            and target != root
            and _is_under(target, root)
            and expansion.rules.skips_path(_relative(target, root))
        ):
            continue
        if target in unsaved:
            expansion.files.add(target)
        else:
            expansion.add(target, respect_gitignore)
    shown = sorted({(display_path(Path(p), cwd), message) for p, message in expansion.problems})
    return Discovery(
        root=Path(root),
        names=tuple(sorted(expansion.files, key=_path_order)),
        problems=tuple(Problem(Span.file(path), message) for path, message in shown),
        vendored=tuple(sorted({display_path(Path(p), cwd) for p in expansion.skipped})),
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
            rel = _relative(target, self.root)
            listing = self._listing
            active = listing if listing is not None and rel in listing.dirs else None
            if active is not None and rel in active.kept:  # the target is a submodule
                active = None
            _walk(target, rel, self.rules, active, self.files, self.problems, self.skipped)
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
    rules = exclusion_rules(tuple(exclude), tuple(vendored), tuple(default_excludes))
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
    from detlint.readers.project.git_listing import git_listing

    listing = git_listing(root) if respect_gitignore else None
    files: set[str] = set()
    _walk(root, "", exclusion_rules(exclude, vendored, default_excludes), listing, files, [])
    return tuple(sorted(files, key=_path_order))


def clear_cache() -> None:
    """Forget cached repository listings, so that the next call sees the disk as it is now."""
    _repository_files.cache_clear()
