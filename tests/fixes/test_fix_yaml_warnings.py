"""ruamel's warnings stay off standard error: building the fixes of a pipeline that
reuses an anchor name (valid YAML: the later anchor wins) prints the report alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from repo_expectations import git_repository

WORKFLOW = """\
name: ci
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    env: &e
      X: 1
    steps:
      - run: pytest tests || true
  b:
    runs-on: ubuntu-latest
    env: &e
      Y: 2
    steps:
      - run: pytest tests
        continue-on-error: true
"""


def test_a_reused_anchor_prints_no_warning(tmp_path: Path) -> None:
    git_repository(
        tmp_path,
        {".github/workflows/ci.yml": WORKFLOW, "tests/test_a.py": "def test_a():\n    pass\n"},
    )
    result = subprocess.run(
        [sys.executable, "-m", "detlint", "check", "--no-cache", "--unsafe-fixes", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr == ""
    assert ".github/workflows/ci.yml:9:" in result.stdout
    assert ".github/workflows/ci.yml:9:14: DET431 [*]" in result.stdout  # its fix is built
