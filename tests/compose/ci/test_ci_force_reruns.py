"""``--force-reruns N`` on a CI command line overrides every marker's count
(pytest-rerunfailures 16.1+): a DET421 with the numbers of the forced count."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from repo_expectations import run_check

TESTS = """\
import pytest


@pytest.mark.flaky(reruns=1)
def test_marked():
    pass


def test_plain():
    pass
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(TESTS)
    (tmp_path / "requirements.txt").write_text("pytest-rerunfailures==16.7\n")
    (tmp_path / ".buildkite").mkdir()
    subprocess.run(["git", "init", "--quiet", str(tmp_path)], check=True)
    return tmp_path


def pipeline(repo: Path, command: str, env: str = "") -> None:
    text = f"steps:\n  - command: {command}\n{env}"
    (repo / ".buildkite" / "pipeline.yml").write_text(text)


def test_force_reruns_on_the_command_line_is_a_ci_reruns_flag(repo: Path) -> None:
    pipeline(repo, "pytest --force-reruns 3 tests")
    _, document = run_check(repo, "--select", "DET421")
    (finding,) = document["findings"]
    assert (finding["path"], finding["line"]) == (".buildkite/pipeline.yml", 2)
    assert "`--force-reruns 3`" in finding["message"]
    # The unmarked test costs most: 4 attempts against 1 (the marked one: 4 against 2).
    assert "tests/test_a.py::test_plain" in finding["message"]
    assert finding["numbers"]["reported"] == pytest.approx(0.1**4)
    assert finding["numbers"]["reported_without"] == pytest.approx(0.1)


def test_force_reruns_overrides_the_marker_count(repo: Path) -> None:
    (repo / "tests" / "test_a.py").write_text(TESTS.split("\n\n\ndef test_plain")[0] + "\n")
    pipeline(repo, "pytest --force-reruns 3 tests")
    _, document = run_check(repo, "--select", "DET421")
    (finding,) = document["findings"]
    # The marked test alone: its reruns=1 becomes 3, 4 attempts against 2.
    assert "tests/test_a.py::test_marked" in finding["message"]
    assert finding["numbers"]["reported"] == pytest.approx(0.1**4)
    assert finding["numbers"]["reported_without"] == pytest.approx(0.1**2)


def test_force_reruns_in_pytest_addopts_counts_too(repo: Path) -> None:
    pipeline(repo, "pytest tests", "    env:\n      PYTEST_ADDOPTS: --force-reruns 2\n")
    _, document = run_check(repo, "--select", "DET421")
    (finding,) = document["findings"]
    assert "--force-reruns 2 in PYTEST_ADDOPTS" in finding["message"]


def test_force_reruns_zero_reruns_nothing(repo: Path) -> None:
    pipeline(repo, "pytest --force-reruns 0 tests")
    _, document = run_check(repo, "--select", "DET421")
    assert document["findings"] == []
