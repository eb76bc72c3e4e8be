"""Reading a changed dependency file's committed copy runs no program the repository names.

A hook run on a changed dependency or config file asks git for the copy the last
commit holds (``git show HEAD:<file>``). That call gets the same settings as every
listing: on a repository whose config names a program for every setting that has
one (``core.fsmonitor``, hooks, a pager, filter and textconv drivers for every
file, an external diff), nothing of it runs, and under strace the programs started
are the Python running detlint and git alone.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from test_git_settings_not_run import ROOT, hostile_repository

DETLINT_HOOK_RUN = (sys.executable, "-m", "detlint", "check", "--no-cache", "pyproject.toml")


def commit_without_its_config(root: Path) -> None:
    """Commit what is staged with the repository's config set aside (committing would
    run its programs), then put the config back."""
    config = root / ".git" / "config"
    hostile = config.read_bytes()
    config.write_text("[core]\n\trepositoryformatversion = 0\n\tbare = false\n")
    identity = ("-c", "user.name=detlint tests", "-c", "user.email=tests@detlint.invalid")
    try:
        subprocess.run(
            ["git", *identity, "commit", "--quiet", "-m", "legacy"], cwd=root, check=True
        )
    finally:
        config.write_bytes(hostile)


def test_the_committed_copy_is_read_with_every_program_off(tmp_path: Path) -> None:
    strace = shutil.which("strace")
    assert strace is not None, "strace is needed (.ci/run installs it)"
    root = hostile_repository(tmp_path / "repo")
    commit_without_its_config(root)
    assert sorted(path.name for path in root.glob("PWNED*")) == []
    # The commit adds flaky beside pytest-rerunfailures: both now read the marker.
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('14.0"]', '14.0", "flaky==3.8.1"]'))
    log = tmp_path / "execve.log"
    result = subprocess.run(
        [strace, "-f", "-qq", "-e", "trace=execve", "-o", str(log), *DETLINT_HOOK_RUN],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    # What the change alters: `reruns=` is no argument of flaky's marker.
    assert [line.split(" ")[:2] for line in result.stdout.splitlines() if " DET" in line] == [
        ["tests/test_a.py:4:2:", "DET102"],
        ["tests/test_b.py:4:2:", "DET102"],
    ]
    # Every program asked for, the tries along PATH that found no file included.
    started = re.findall(r'execve\("([^"]+)", (\[[^]]*)', log.read_text())
    programs = [os.path.basename(path) for path, _ in started]
    assert programs[0] == os.path.basename(sys.executable)
    assert set(programs[1:]) == {"git"}
    shows = re.findall(
        r'^(\d+)\s+execve\("[^"]*/git", (.*"HEAD:pyproject.toml")', log.read_text(), re.M
    )
    assert len({process for process, _ in shows}) == 1  # once, for the one changed file
    assert all('"show", "--no-textconv", "HEAD:pyproject.toml"' in call for _, call in shows)
    assert all('"core.fsmonitor=false"' in arguments for _, arguments in started[1:])
    assert sorted(path.name for path in root.glob("PWNED*")) == []
