"""What is in the cache directory never runs code, never blocks a run, and a cache
directory others can write is not used.

Entries are written by detlint, but anyone who can write the directory (a cache
restored from another CI job, a shared directory) can put anything there: a
pickle that runs a command when loaded, a FIFO or a device under an entry's name.
A run then gives the same report a run without the cache gives, and runs nothing.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import pytest
from repo_expectations import repository_copy, run_check

from detlint.base import cache_pickle
from detlint.base.facts_cache import FactsCache, code_fingerprint, unsafe
from detlint.cli import run_cache
from detlint.rules.finding import Finding

REPO = Path(__file__).parents[1] / "fixtures" / "repos" / "ci_pipelines"
ROOT = Path(__file__).resolve().parents[2]


class Planted:
    """Pickles into a call of ``os.system``: what a planted entry would hold."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return os.system, (self.command,)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repository_copy(REPO, tmp_path / "repo")


def stored_entries(cache_dir: Path) -> list[Path]:
    """Every entry of both kinds (pipeline facts and whole-check results)."""
    base = cache_dir / code_fingerprint()
    return sorted(p for p in base.glob("*/*") if p.is_file() and p.name != ".pruned")


def detlint_check(repo: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """``python -m detlint check`` in ``repo``, given a minute: a blocked run fails."""
    return subprocess.run(
        [sys.executable, "-m", "detlint", "check", "--output-format", "json", *arguments],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_planted_pickle_runs_nothing(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_cache, "RACY_SECONDS", -60.0)  # keep the whole check's result too
    cache_dir = tmp_path / "cache"
    fresh = run_check(repo, "--cache-dir", str(cache_dir))
    stored = stored_entries(cache_dir)
    assert {entry.parent.name for entry in stored} == {"pipelines", "runs-check"}
    marker = tmp_path / "PWNED"
    planted = pickle.dumps(Planted(f"touch {marker}"))
    for entry in stored:
        header = entry.read_bytes()[:41] if entry.parent.name == "runs-check" else b""
        entry.write_bytes(header + planted)
    assert run_check(repo, "--cache-dir", str(cache_dir)) == fresh
    assert not marker.exists()


def test_only_detlint_fact_classes_are_built() -> None:
    finding = pickle.dumps(Finding.__new__(Finding))  # a frozen data class of detlint's
    assert isinstance(cache_pickle.loads(finding), Finding)
    refused = [
        pickle.dumps(Planted("true")),
        pickle.dumps(getattr),  # a way to reach any attribute of what it is given
        pickle.dumps(run_cache.run_cache),  # a function of detlint's, not a fact
        pickle.dumps(run_cache.RunCache),  # a class of detlint's that is not plain data
    ]
    for data in refused:
        with pytest.raises(pickle.UnpicklingError, match="may not name"):
            cache_pickle.loads(data)


def test_a_fifo_in_the_cache_does_not_block_a_run(repo: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    time.sleep(2.5)  # the tree is no longer racily new: the whole check's result is kept too
    fresh = detlint_check(repo, "--cache-dir", str(cache_dir))
    assert fresh.returncode == 1
    assert '"DET401"' in fresh.stdout
    stored = stored_entries(cache_dir)
    assert {entry.parent.name for entry in stored} == {"pipelines", "runs-check"}
    for entry in stored:
        entry.unlink()
        os.mkfifo(entry)
    again = detlint_check(repo, "--cache-dir", str(cache_dir))
    assert (again.returncode, again.stdout) == (fresh.returncode, fresh.stdout)


@pytest.mark.parametrize("mode", [0o770, 0o707], ids=["group-writable", "world-writable"])
def test_a_cache_others_can_write_is_not_used(repo: Path, tmp_path: Path, mode: int) -> None:
    cache_dir = tmp_path / "cache"
    fresh = detlint_check(repo, "--cache-dir", str(cache_dir))
    marker = tmp_path / "PWNED"
    for entry in stored_entries(cache_dir):
        entry.write_bytes(pickle.dumps(Planted(f"touch {marker}")))
    cache_dir.chmod(mode)
    again = detlint_check(repo, "--cache-dir", str(cache_dir))
    assert (again.returncode, again.stdout) == (fresh.returncode, fresh.stdout)
    assert again.stderr == (
        f"detlint: warning: cache directory {cache_dir} not used (writable by others, "
        f"mode {mode:o}); running without a cache\n"
    )
    assert not marker.exists()


def test_a_cache_directory_of_another_user_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir(mode=0o700)
    assert unsafe(cache_dir) is None
    owner = os.stat(cache_dir).st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1)
    assert unsafe(cache_dir) == f"owned by user {owner}, not by this user ({owner + 1})"
    cache = FactsCache(cache_dir, "pipelines")
    assert not cache.readable()
    cache.prepare()  # lists nothing there, so nothing is read
    assert cache.get(FactsCache.key(b"x", "a.yml")) is None


def test_a_cache_directory_that_is_a_file_is_a_warning(repo: Path, tmp_path: Path) -> None:
    not_a_directory = tmp_path / "cache"
    not_a_directory.write_text("")
    fresh = detlint_check(repo, "--no-cache")
    result = detlint_check(repo, "--cache-dir", str(not_a_directory))
    assert (result.returncode, result.stdout) == (fresh.returncode, fresh.stdout)
    assert result.stderr == (
        f"detlint: warning: cache directory {not_a_directory} not used (not a directory); "
        "running without a cache\n"
    )
