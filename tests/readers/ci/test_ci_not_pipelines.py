"""Files that are not pipelines detlint reads: Azure Pipelines (its own system, listed
in the audit as not read, never taken for Buildkite), a conda-build recipe, a broken
symbolic link. Distilled from numba (Azure templates under buildscripts/azure) and
from checkouts whose links point into trees they were not shipped with."""

from __future__ import annotations

import os

from repo_expectations import run_audit, run_check, written_repository

TEST = "def test_a():\n    assert True\n"


def test_azure_pipelines_are_not_read_and_the_audit_says_so(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": TEST,
            "azure-pipelines.yml": "steps:\n  - script: pytest tests || true\n",
            "buildscripts/azure/azure-windows.yml": (
                "jobs:\n- job: win\n  steps:\n  - script: pytest tests\n    continueOnError: true\n"
            ),
            # An Azure step template elsewhere: `- script:` items, no Buildkite command.
            "ci/templates/steps.yml": "steps:\n- script: pytest tests || true\n",
        },
    )
    _, document = run_check(repo)
    assert document["findings"] == []
    ci = run_audit(repo)["ci"]
    assert ci["not_read"] == [
        {"path": "azure-pipelines.yml", "system": "azure-pipelines"},
        {"path": "buildscripts/azure/azure-windows.yml", "system": "azure-pipelines"},
    ]
    assert all(p["system"] != "buildkite" for p in ci["pipelines"])


def test_a_buildkite_steps_list_is_still_read(tmp_path):
    repo = written_repository(
        tmp_path,
        {"tests/test_a.py": TEST, "ci/steps.yml": "steps:\n  - command: pytest tests || true\n"},
    )
    _, document = run_check(repo)
    assert [f["code"] for f in document["findings"]] == ["DET431"]


def test_a_conda_recipe_is_not_a_pipeline(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": TEST,
            "recipe/meta.yaml": (
                "package:\n  name: foo\ntest:\n  commands:\n    - pytest tests || true\n"
            ),
        },
    )
    _, document = run_check(repo)
    assert document["findings"] == []


def test_a_broken_symlink_where_a_pipeline_would_be_is_no_finding(tmp_path):
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST})
    (repo / ".buildkite").mkdir()
    os.symlink(repo / "generated" / "pipeline.yml", repo / ".buildkite" / "pipeline.yml")
    os.symlink(repo / "missing.py", repo / "tests" / "test_link.py")
    code, document = run_check(repo)
    assert (code, document["findings"]) == (0, [])
