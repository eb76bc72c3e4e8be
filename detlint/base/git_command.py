"""How detlint runs git (``ls-files``, and ``show`` of a file's committed copy), with every
setting that runs a program off.

detlint lints trees it did not make (a pull request's checkout, an extracted
archive, a CI artifact), and such a tree's ``.git/config`` is part of what it
scans. Several git settings name a program that git then runs: ``core.fsmonitor``
runs on every command that reads the index, ``ls-files`` among them, and hooks,
filter drivers, pagers, external diffs, credential helpers and transports run on
others. So each call turns them off on its command line, where they take
precedence over every config file, and leaves out the system-wide config
(``GIT_CONFIG_NOSYSTEM``): the only program a run of detlint starts is git itself.
The user's own global config is read as git always reads it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

# Each `-c` set here overrides the same key in the repository's config. Settings
# of named drivers (filter.<name>.clean, diff.<name>.textconv) cannot be turned off
# by name in advance; ls-files never converts content (it neither refreshes the
# index nor compares file data), so they are never reached, and a test proves it.
_SAFE_SETTINGS = (
    "core.fsmonitor=false",  # a hook program run whenever the index is read
    "core.untrackedCache=false",  # kept with the fsmonitor's state; nothing to gain
    "core.hooksPath=/dev/null",  # no hook can be found
    "core.pager=cat",
    "pager.ls-files=false",
    "diff.external=",
    "credential.helper=",  # an empty value clears the list of helpers
    "core.askPass=",
    "core.sshCommand=false",
    "protocol.allow=never",  # no transport at all: a listing never needs one
    "submodule.recurse=false",
)

GIT_PREFIX_OPTIONS: tuple[str, ...] = (
    "--no-pager",
    *(part for setting in _SAFE_SETTINGS for part in ("-c", setting)),
)


def git_command(*arguments: str) -> list[str]:
    """``git`` with the settings above, then ``arguments`` (``ls-files ...``)."""
    return ["git", *GIT_PREFIX_OPTIONS, *arguments]


def git_environment(environment: Mapping[str, str]) -> dict[str, str]:
    """``environment`` as every git call gets it: no system config, no pager, no
    prompt for a password, and no optional lock (a listing only reads)."""
    return {
        **environment,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_PAGER": "cat",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
    }


# Variables a hook sets that would point git at another repository than the tree's.
GIT_LOCATION_VARIABLES = frozenset(
    {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX"}
)
GIT_TIMEOUT_SECONDS = 20.0


def run_git(root: str | os.PathLike[str], *arguments: str) -> bytes | None:
    """What ``git ARGUMENTS`` prints in ``root``, run as above with the location
    variables removed; None when git is missing, fails or takes over
    ``GIT_TIMEOUT_SECONDS`` (the caller then reads without git)."""
    import subprocess  # only where a run asks git

    kept = {k: v for k, v in os.environ.items() if k not in GIT_LOCATION_VARIABLES}
    try:
        result = subprocess.run(
            git_command(*arguments),
            cwd=root,
            env=git_environment(kept),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout if result.returncode == 0 else None
