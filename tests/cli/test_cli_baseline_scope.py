"""``detlint check --baseline`` on part of a repository (a pre-commit run on two files):
only the entries of files the run covered can be gone, and a job retry stacked on a
new test's reruns is a new finding even though the retry was recorded."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from repo_expectations import git_repository, repository_copy, run_check

from detlint.cli.main import cli
from detlint.readers.project.discovery import clear_cache

REPO = Path(__file__).parent.parent / "fixtures" / "repos" / "ci_pipelines"

MARKED = """\
import pytest


@pytest.mark.flaky(reruns=2)
def test_{name}():
    assert True
"""


def write_baseline(repo: Path) -> list[dict]:
    """``detlint check --write-baseline baseline.json`` in ``repo``; the entries written."""
    previous = Path.cwd()
    os.chdir(repo)
    try:
        arguments = ["check", "--write-baseline", "baseline.json"]
        result = CliRunner().invoke(cli, arguments, prog_name="detlint")
    finally:
        os.chdir(previous)
    assert result.exit_code == 0, result.output
    findings: list[dict] = json.loads((repo / "baseline.json").read_text())["findings"]
    return findings


@pytest.fixture
def marked(tmp_path: Path) -> Path:
    files = {
        "pyproject.toml": '[project]\nname = "x"\ndependencies = ["pytest-rerunfailures==16.7"]\n',
        **{f"tests/test_{name}.py": MARKED.format(name=name) for name in ("a", "b", "c")},
    }
    return git_repository(tmp_path / "repo", files)


def test_entries_of_files_the_run_did_not_cover_are_not_gone(marked: Path) -> None:
    assert len(write_baseline(marked)) == 3
    (marked / "tests" / "test_c.py").write_text("def test_c():\n    assert True\n")
    # A hook run on two files: their two entries hold, test_c's is not its business.
    status, document = run_check(
        marked, "--baseline", "baseline.json", "tests/test_a.py", "tests/test_b.py"
    )
    assert (status, document["findings"]) == (0, [])
    assert (document["baselined"], document["baseline_gone"]) == (2, 0)
    # A run on the file whose marker went, and one over the tree, see it gone.
    status, document = run_check(marked, "--baseline", "baseline.json", "tests/test_c.py")
    assert (status, document["baselined"], document["baseline_gone"]) == (0, 0, 1)
    status, document = run_check(marked, "--baseline", "baseline.json")
    assert (status, document["baselined"], document["baseline_gone"]) == (0, 2, 1)
    status, document = run_check(marked, "--baseline", "baseline.json", "tests")
    assert (status, document["baselined"], document["baseline_gone"]) == (0, 2, 1)


def test_a_deleted_file_is_gone_for_a_run_over_its_directory(marked: Path) -> None:
    write_baseline(marked)
    (marked / "tests" / "test_b.py").unlink()
    clear_cache()
    status, document = run_check(marked, "--baseline", "baseline.json", "tests/test_a.py")
    assert (status, document["baselined"], document["baseline_gone"]) == (0, 1, 0)
    status, document = run_check(marked, "--baseline", "baseline.json", "tests")
    assert (status, document["baselined"], document["baseline_gone"]) == (0, 2, 1)


def test_the_summary_line_of_a_hook_run_names_no_entry_gone(
    marked: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_baseline(marked)
    (marked / "tests" / "test_c.py").write_text("def test_c():\n    assert True\n")
    monkeypatch.chdir(marked)
    arguments = ["check", "--baseline", "baseline.json", "tests/test_a.py"]
    result = CliRunner().invoke(cli, arguments, prog_name="detlint")
    assert result.exit_code == 0
    assert result.output == "All checks passed (1 file; 1 in baseline).\n"


STACKED_TEST = """\
import pytest


@pytest.mark.flaky(reruns=2)
def test_new_gpu_path():
    assert True
"""


@pytest.fixture
def stacked(tmp_path: Path) -> Path:
    return repository_copy(REPO, tmp_path / "repo")


def test_a_new_test_under_a_recorded_job_retry_is_new(stacked: Path) -> None:
    (recorded,) = [entry for entry in write_baseline(stacked) if entry["code"] == "DET501"]
    assert recorded["tests"] == ["tests/gpu/test_kernels.py::test_batch_invariance"]
    # The recorded test, checked alone, stays recorded.
    status, document = run_check(
        stacked, "--baseline", "baseline.json", "tests/gpu/test_kernels.py"
    )
    assert (status, document["findings"], document["baseline_gone"]) == (0, [], 0)
    # A new test the same job retries is new, on its own and in a run over the tree.
    (stacked / "tests" / "gpu" / "test_new.py").write_text(STACKED_TEST)
    clear_cache()  # the in-process listing of the repository's files gains test_new.py
    status, document = run_check(stacked, "--baseline", "baseline.json", "tests/gpu/test_new.py")
    assert status == 1
    new = sorted((f["path"], f["line"], f["code"]) for f in document["findings"])
    assert new == [
        (".buildkite/pipeline.yml", 13, "DET501"),
        ("tests/gpu/test_new.py", 4, "DET101"),
    ]
    (stacked_finding,) = [f for f in document["findings"] if f["code"] == "DET501"]
    assert stacked_finding["message"].startswith(
        "tests/gpu/test_new.py::test_new_gpu_path is retried inside pytest by reruns=2"
    )
    status, document = run_check(stacked, "--baseline", "baseline.json")
    assert status == 1
    assert sorted((f["path"], f["code"]) for f in document["findings"]) == [
        (".buildkite/pipeline.yml", "DET501"),
        ("tests/gpu/test_new.py", "DET101"),
    ]
