"""A masked status hides a test failure whatever runs the tests: ``python -m unittest
|| true``, ``make test || true`` whose recipe runs them, a script named like a test
runner that detlint cannot see into. Each is a DET431 finding at the place the status
is dropped, with the numbers of a single-attempt test; a masked call that runs no
tests is named in the census instead."""

from __future__ import annotations

from repo_expectations import github_workflow, run_audit, run_check, written_repository

UNITTEST = "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n"


def _repo(tmp_path, *commands: str, **files: str):
    steps = "".join(f"      - run: {command}\n" for command in commands)
    workflow = "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n" + steps
    return written_repository(
        tmp_path,
        {"tests/test_a.py": UNITTEST, ".github/workflows/ci.yml": workflow, **files},
    )


def _det431(repo) -> dict[int, str]:
    _, document = run_check(repo)
    return {f["line"]: f["message"] for f in document["findings"] if f["code"] == "DET431"}


def test_masked_test_runners_other_than_pytest_are_reported_where_the_status_drops(tmp_path):
    repo = _repo(
        tmp_path,
        "python -m unittest discover || true",
        "make test || echo 'tests failed'",
        "./ci/run-tests.sh || true",
        "python -m unittest discover",
        Makefile="test:\n\tpython -m unittest discover\n",
    )
    found = _det431(repo)
    assert sorted(found) == [6, 7, 8]
    assert "hides the exit status of `python -m unittest`" in found[6]
    assert "reported 0% of the time instead of 10.0%" in found[6]
    assert "single-attempt test" in found[6]
    assert "`make test → python -m unittest`" in found[7]
    assert "`|| echo ...`" in found[7]
    assert "if it runs any: detlint sees no pytest run in it" in found[8]
    knobs = {k["line"]: k for k in run_audit(repo)["ci"]["knobs"]}
    assert all(knobs[line]["verdict"] == "finding" for line in (6, 7, 8))
    assert 9 not in knobs


def test_a_masked_call_that_runs_no_tests_is_named_not_reported(tmp_path):
    repo = _repo(
        tmp_path,
        "./ci/upload.sh || true",
        **{"ci/upload.sh": "#!/bin/bash\naws s3 cp out s3://bucket/\n"},
    )
    assert _det431(repo) == {}
    (knob,) = run_audit(repo)["ci"]["knobs"]
    assert (knob["line"], knob["cause"]) == (6, "runs-no-tests")
    assert "`./ci/upload.sh`" in knob["reason"]


def test_the_workflow_helper_and_this_shape_agree(tmp_path):
    # The same masked runner written through the shared helper reads the same.
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": UNITTEST,
            ".github/workflows/ci.yml": github_workflow("python -m unittest || :"),
        },
    )
    (message,) = _det431(repo).values()
    assert message.startswith("`|| :` hides the exit status of `python -m unittest`")
