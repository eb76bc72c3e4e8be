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

from detlint.base.git_command import git_command, git_environment

_GIT_TIMEOUT_SECONDS = 20.0
_GIT_LOCATION_VARIABLES = frozenset(
    {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX"}
)


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
    env = git_environment({k: v for k, v in os.environ.items() if k not in _GIT_LOCATION_VARIABLES})
    command = git_command("show", "--no-textconv", f"HEAD:{relative}")
    import subprocess  # only for a run on a changed dependency or config file

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
    return result.stdout if result.returncode == 0 else None
