"""A file's text as the last commit holds it: what a commit that changes it changes.

A pre-commit hook passes a changed dependency or config file; what the commit
alters is the difference between the project read with the file as committed
(``HEAD``) and as it is now. Git runs once per such file, only then, with the
variables that would point it at another repository removed (a hook sets them)
and every setting that runs a program off (``git_command``); any failure (no
git, no commit yet, a file the last commit does not hold) gives None, and the
caller reports as if the file were new.
"""

from __future__ import annotations

import os
from pathlib import Path

from detlint.base.git_command import run_git


def committed_bytes(path: Path, root: Path) -> bytes | None:
    """The bytes ``HEAD`` holds for the file at ``path`` (absolute) in the work tree at
    ``root``; None when git cannot say or the last commit has no such file."""
    if not os.path.lexists(os.path.join(root, ".git")):
        return None
    try:
        relative = Path(os.path.relpath(path, root)).as_posix()
    except ValueError:  # another drive on Windows
        return None
    if relative.startswith("../"):
        return None
    return run_git(root, "show", "--no-textconv", f"HEAD:{relative}")
