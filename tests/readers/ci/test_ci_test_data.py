"""Stored pipeline output under a test tree's data directory is data, not a live
pipeline (distilled from horovod, bench/realworld: ``test/single/data/
expected_buildkite_gpu_heads_pipeline.yaml`` gave 18 job-retry findings no build has)."""

from __future__ import annotations

import pytest
from repo_expectations import run_check, written_repository

from detlint.readers.ci.pipeline_files import is_test_data

PIPELINE = """\
    steps:
      - label: ":pytest: Gloo Cluster PyTests"
        command: pytest -v test/parallel
        retry:
          automatic: true
"""


def _codes(tmp_path, files: dict[str, str], *where: str) -> set[tuple[str, int, str]]:
    repo = written_repository(
        tmp_path, {"test/parallel/test_p.py": "def test_p():\n    assert True\n", **files}
    )
    _, document = run_check(repo.joinpath(*where))
    return {(f["path"], f["line"], f["code"]) for f in document["findings"]}


def test_a_generators_stored_output_is_not_read(tmp_path):
    stored = {"test/single/data/expected_buildkite_gpu_heads_pipeline.yaml": PIPELINE}
    assert _codes(tmp_path, stored) == set()


def test_the_same_steps_in_a_live_pipeline_are(tmp_path):
    live = {".buildkite/pipeline.yml": PIPELINE}
    assert _codes(tmp_path, live) == {(".buildkite/pipeline.yml", 5, "DET411")}


def test_a_fixture_repository_linted_on_its_own_is_read(tmp_path):
    files = {
        "tests/fixtures/repo/.buildkite/pipeline.yml": PIPELINE,
        "tests/fixtures/repo/test/parallel/test_p.py": "def test_p():\n    assert True\n",
    }
    assert _codes(tmp_path, files) == set()
    inside = _codes(tmp_path, files, "tests", "fixtures", "repo")
    assert inside == {(".buildkite/pipeline.yml", 5, "DET411")}


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("test/single/data/expected_pipeline.yaml", True),
        ("tests/unit/data/ci.yml", True),
        ("tests/fixtures/gitlab/.gitlab-ci.yml", True),
        ("pkg/testdata/workflow.yml", True),
        ("ci/expected_steps.yaml", True),
        (".buildkite/pipeline.yml", False),
        ("data/.buildkite/pipeline.yml", False),  # data/ outside a test tree
        ("tests/.buildkite/pipeline.yml", False),
    ],
)
def test_which_paths_are_test_data(path, data):
    assert is_test_data(path) is data
