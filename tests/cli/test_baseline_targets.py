"""What ``--write-baseline`` may replace, and how much ``--baseline`` reads.

A baseline is written by replacing a regular file (or making one); a FIFO, a
device or a directory under the name is refused and left as it is. A symlink is
followed as ``--fix`` follows one: to a file inside the project, never outside
it. ``--baseline`` reads at most ``MAX_BASELINE_BYTES``, so a name like
``/dev/zero`` is an error, not a run that never ends.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from repo_expectations import RERUN_PYPROJECT, RERUN_TEST

from detlint.rules.baseline import MAX_BASELINE_BYTES

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT, TEST_A = RERUN_PYPROJECT, RERUN_TEST


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    subprocess.run(["git", "init", "--quiet", str(root)], check=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "tests" / "test_a.py").write_text(TEST_A)
    return root


def detlint_check(repo: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "detlint", "check", "--no-cache", *arguments],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def recorded(path: Path) -> list[tuple[str, str, int]]:
    document = json.loads(path.read_text())
    return [(f["code"], f["path"], f["line"]) for f in document["findings"]]


def test_a_fifo_is_refused_and_left_as_it_is(repo: Path) -> None:
    fifo = repo / "baseline.json"
    os.mkfifo(fifo)
    result = detlint_check(repo, "--write-baseline", "baseline.json")
    assert result.returncode == 2
    assert result.stderr == (
        "detlint check: error: cannot write baseline baseline.json: a FIFO, not a regular file\n"
    )
    assert fifo.is_fifo()


def test_a_symlink_out_of_the_project_is_refused(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("kept\n")
    (repo / "baseline.json").symlink_to(outside)
    result = detlint_check(repo, "--write-baseline", "baseline.json")
    assert result.returncode == 2
    assert result.stderr == (
        "detlint check: error: cannot write baseline baseline.json: a symlink to "
        f"{os.path.realpath(outside)}, outside the project ({os.path.realpath(repo)})\n"
    )
    assert (repo / "baseline.json").is_symlink()
    assert outside.read_text() == "kept\n"


def test_a_symlink_inside_the_project_writes_its_target(repo: Path) -> None:
    (repo / "ci").mkdir()
    target = repo / "ci" / "baseline.json"
    target.write_text("{}\n")
    target.chmod(0o640)
    (repo / "baseline.json").symlink_to(Path("ci") / "baseline.json")
    result = detlint_check(repo, "--write-baseline", "baseline.json")
    assert (result.returncode, result.stderr) == (0, "Wrote 1 finding to baseline.json.\n")
    assert (repo / "baseline.json").is_symlink()
    assert recorded(target) == [("DET101", "tests/test_a.py", 4)]
    assert oct(target.stat().st_mode & 0o777) == oct(0o640)
    # The baseline reads back through the link: the finding it records is hidden.
    again = detlint_check(repo, "--baseline", "baseline.json")
    assert again.returncode == 0
    assert "DET101" not in again.stdout


def test_a_baseline_without_end_is_not_read(repo: Path) -> None:
    result = detlint_check(repo, "--baseline", "/dev/zero")
    assert result.returncode == 2
    limit = MAX_BASELINE_BYTES // (1024 * 1024)
    assert result.stderr == (
        f"detlint check: error: cannot read baseline /dev/zero: larger than {limit} MiB\n"
    )
