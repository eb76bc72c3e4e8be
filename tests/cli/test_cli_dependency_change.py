"""``detlint check`` on a changed dependency or config file (what a pre-commit hook
passes for a commit that touches one) reports what the change alters since the last
commit, not every legacy finding of the project it configures."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from repo_expectations import git_repository, run_check

from detlint.readers.project.discovery import clear_cache

PYPROJECT = '[project]\nname = "kernels"\ndependencies = ["pytest-rerunfailures==16.7"]\n'
RERUN_TWICE = """\
import pytest


@pytest.mark.flaky(reruns=2)
def test_a():
    assert True
"""
BARE = """\
import pytest


@pytest.mark.flaky
def test_b():
    assert True
"""
GIT = {
    **os.environ,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "detlint tests",
    "GIT_AUTHOR_EMAIL": "tests@detlint.invalid",
    "GIT_COMMITTER_NAME": "detlint tests",
    "GIT_COMMITTER_EMAIL": "tests@detlint.invalid",
}


def commit(root: Path) -> None:
    for command in (["add", "--all"], ["commit", "--quiet", "-m", "legacy"]):
        subprocess.run(["git", *command], cwd=root, env=GIT, check=True)


@pytest.fixture
def legacy(tmp_path: Path) -> Path:
    """A committed project with two legacy rerun markers (two DET101)."""
    files = {
        "pyproject.toml": PYPROJECT,
        "requirements-test.txt": "requests==2.31.0\n",
        "tests/test_a.py": RERUN_TWICE,
        "tests/test_b.py": BARE,
    }
    root = git_repository(tmp_path / "repo", files)
    commit(root)
    clear_cache()
    return root


def located(document: dict) -> list[tuple[str, int, str]]:
    return [(f["path"], f["line"], f["code"]) for f in document["findings"]]


def test_a_change_that_alters_no_finding_reports_none(legacy: Path) -> None:
    status, whole = run_check(legacy)
    assert located(whole) == [("tests/test_a.py", 4, "DET101"), ("tests/test_b.py", 4, "DET101")]
    (legacy / "requirements-test.txt").write_text("requests==2.31.0\npytest-cov==5.0.0\n")
    status, document = run_check(legacy, "requirements-test.txt")
    assert (status, document["findings"]) == (0, [])
    # A line added above the pin moves it (`from pyproject.toml:4`): nothing else changes.
    (legacy / "pyproject.toml").write_text("# the kernels package\n" + PYPROJECT)
    status, document = run_check(legacy, "pyproject.toml")
    assert (status, document["findings"]) == (0, [])


def test_a_change_that_alters_findings_reports_those(legacy: Path) -> None:
    # flaky beside pytest-rerunfailures: test_a's `reruns=` is a TypeError under flaky
    # (DET102 instead of DET101) and test_b's bare marker is read by both plugins.
    (legacy / "requirements-test.txt").write_text("requests==2.31.0\nflaky==3.8.1\n")
    status, document = run_check(legacy, "requirements-test.txt")
    assert status == 1
    assert located(document) == [
        ("tests/test_a.py", 4, "DET102"),
        ("tests/test_b.py", 4, "DET101"),
    ]
    (changed,) = [f for f in document["findings"] if f["code"] == "DET101"]
    assert "flaky==3.8.1 from requirements-test.txt:2" in changed["message"]


def test_a_test_changed_in_the_same_commit_is_reported_in_full(legacy: Path) -> None:
    (legacy / "requirements-test.txt").write_text("requests==2.31.0\npytest-cov==5.0.0\n")
    status, document = run_check(legacy, "requirements-test.txt", "tests/test_b.py")
    assert (status, located(document)) == (1, [("tests/test_b.py", 4, "DET101")])


def test_a_new_dependency_file_stands_for_its_whole_project(legacy: Path) -> None:
    """The last commit has no text to compare with: every finding the project has."""
    (legacy / "requirements-dev.txt").write_text("pytest-cov==5.0.0\n")
    clear_cache()
    status, document = run_check(legacy, "requirements-dev.txt")
    assert (status, len(document["findings"])) == (1, 2)


def test_a_directory_named_beside_a_dependency_file_is_reported_in_full(legacy: Path) -> None:
    (legacy / "requirements-test.txt").write_text("requests==2.31.0\npytest-cov==5.0.0\n")
    status, document = run_check(legacy, "requirements-test.txt", "tests")
    assert (status, located(document)) == (
        1,
        [("tests/test_a.py", 4, "DET101"), ("tests/test_b.py", 4, "DET101")],
    )
