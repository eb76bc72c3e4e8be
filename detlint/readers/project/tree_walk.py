"""One walk of a directory tree: every regular file under it, with the run's exclusions.

Every run walks, a pre-commit run on one file included (the context passes list the
repository), so the walk is built for speed: directories are listed with
``os.scandir`` (the file type comes from the directory entry, so regular files cost no
``stat``), and symlinked directories are never followed, which makes symlink loops
impossible rather than detected.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from detlint.readers.project.exclusions import ExclusionRules
    from detlint.readers.project.git_listing import GitListing


def reason(error: OSError) -> str:
    """The OS's short reason in lower case ("permission denied"), without path or errno."""
    reason = " ".join((error.strerror or type(error).__name__).split())
    return reason[:1].lower() + reason[1:] if reason[1:2].islower() else reason


def walk(
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
            problems.append((directory, f"cannot read directory: {reason(error)}"))
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
                problems.append((entry.path, f"cannot read: {reason(error)}"))


def relative(path: str, root: str) -> str:
    """``path`` relative to ``root`` in POSIX form, "" for the root itself."""
    rel = os.path.relpath(path, root)
    return "" if rel == "." else rel.replace(os.sep, "/")


def path_order(path: str) -> str:
    """Sort key giving pathlib's order (by component) without building Path objects,
    whose comparisons cost more than the rest of a large tree's listing: with the
    separator as NUL, which sorts before any character a name can hold, comparing
    the strings compares their components in turn."""
    return path.replace(os.sep, "\0")
