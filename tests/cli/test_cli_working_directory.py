"""``detlint check`` gives the same findings from any directory of a repository: the
CI pipelines and dependency files it reads as context come from the repository root
(the nearest directory holding ``.git``), and paths are shown relative to the working
directory, with ``..`` for those above it, as ruff and git show them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from repo_expectations import repository_copy

REPO = Path(__file__).parent.parent / "fixtures" / "repos" / "ci_pipelines"
SOURCE = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repository_copy(REPO, tmp_path / "repo")


def check(cwd: Path, *args: str) -> tuple[int, list[dict]]:
    """``python -m detlint check --output-format json`` run in ``cwd``."""
    env = {**os.environ, "PYTHONPATH": str(SOURCE)}
    result = subprocess.run(
        [sys.executable, "-m", "detlint", "check", "--output-format", "json", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)["findings"]


def located(findings: list[dict]) -> list[tuple[str, int, str]]:
    return sorted((f["path"], f["line"], f["code"]) for f in findings)


def test_a_check_from_a_subdirectory_reports_what_the_same_check_from_the_root_does(
    repo: Path,
) -> None:
    status, from_root = check(repo, "tests")
    assert (status, located(from_root)) == (
        1,
        [(".buildkite/pipeline.yml", 13, "DET501"), ("tests/gpu/test_kernels.py", 12, "DET101")],
    )
    status, from_tests = check(repo / "tests")
    assert (status, located(from_tests)) == (
        1,
        [("../.buildkite/pipeline.yml", 13, "DET501"), ("gpu/test_kernels.py", 12, "DET101")],
    )
    # The same findings, word for word but for the paths as the run shows them.
    messages = [
        f["message"].replace("tests/gpu", "gpu").replace(" pyproject", " ../pyproject")
        for f in from_root
    ]
    assert [f["message"] for f in from_tests] == messages


def test_a_file_checked_from_its_own_directory_keeps_the_stacked_retry(repo: Path) -> None:
    status, findings = check(repo / "tests" / "gpu", "test_kernels.py")
    assert (status, located(findings)) == (
        1,
        [("../../.buildkite/pipeline.yml", 13, "DET501"), ("test_kernels.py", 12, "DET101")],
    )
    stacked, marker = sorted(findings, key=lambda finding: finding["code"], reverse=True)
    assert stacked["message"].startswith(
        "test_kernels.py::test_batch_invariance is retried inside pytest by reruns=2 "
        "(pytest-rerunfailures, 3 attempts) and again by `retry.automatic` (2 job runs)"
    )
    # The plugin's pin is read from the root's pyproject.toml, shown from where the run is.
    assert "pytest-rerunfailures==16.7 from ../../pyproject.toml:4" in marker["message"]
    assert str(repo) not in json.dumps(findings)
