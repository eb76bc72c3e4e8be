"""What ``git ls-files`` says a work tree holds: its .gitignore rules, applied by git.

One call replaces a reimplementation of gitignore semantics. It runs with the
variables that would point git at another repository removed (a pre-commit hook
sets them) and with every setting that runs a program off
(:mod:`detlint.base.git_command`), and any failure (no git, not a work tree, "dubious ownership", a
timeout) gives no listing, so that the walk goes on without gitignore filtering.
"""

from __future__ import annotations

import os
from typing import NamedTuple


class GitListing(NamedTuple):
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


def git_listing(root: str) -> GitListing | None:
    """The files git does not ignore under root, or None when git is unusable here.

    None (missing git, not a work tree, "dubious ownership", timeout) makes the
    caller walk without gitignore filtering: a slower or noisier run is better
    than a failed one.
    """
    if not _is_git_work_tree(root):
        return None
    from detlint.base.git_command import run_git  # only when a directory is walked in git

    listed = run_git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if listed is None:
        return None
    kept: set[str] = set()
    dirs: set[str] = {""}
    for raw in listed.split(b"\0"):
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
    return GitListing(frozenset(kept), frozenset(dirs))
