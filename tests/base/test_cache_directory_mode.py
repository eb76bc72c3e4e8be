"""The cache's directories are made for the user alone, whatever the umask.

A cache another user could write is one they could plant entries in; detlint makes
each of its directories with mode 700, so even a run under ``umask 000`` leaves none
that others can read or write, and the next run uses it without a warning.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from repo_expectations import repository_copy

REPO = Path(__file__).parents[1] / "fixtures" / "repos" / "ci_pipelines"
ROOT = Path(__file__).resolve().parents[2]


def test_every_cache_directory_is_the_users_alone(tmp_path: Path) -> None:
    repo = repository_copy(REPO, tmp_path / "repo")
    cache_dir = tmp_path / "cache"
    command = [sys.executable, "-m", "detlint", "check", "--cache-dir", str(cache_dir)]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}

    def check() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command,
            cwd=repo,
            env=environment,
            capture_output=True,
            text=True,
            timeout=60,
            umask=0,
        )

    first = check()
    assert first.returncode == 1, first.stderr
    directories = [cache_dir, *(path for path in cache_dir.rglob("*") if path.is_dir())]
    assert len(directories) >= 3  # the cache, the code's directory, the pipelines'
    assert {path.name: oct(stat.S_IMODE(path.stat().st_mode)) for path in directories} == {
        path.name: oct(0o700) for path in directories
    }
    again = check()
    assert (again.returncode, again.stdout, again.stderr) == (1, first.stdout, "")
