"""DET411 on a retry action names "the tests of N test files without knobs": the files
the step runs whose tests pytest collects carry nothing a gate composes.

Two things used to move that count away from the truth, and so the wording of a run
on the workflow alone away from the wording of a run from the root (found on celery,
``integration-tests.yml``): a test file parsed for another reason (it reads
``os.environ`` and mentions a variable some pipeline sets) counted as a file with
knobs though none of its tests held one, and a run naming only the workflow read the
files it gates with every function taken for a test (the pre-commit setting for named
test files), so an uncollected helper with a trial loop got a gate of its own.

The files without knobs share one gate, and the reach a message quotes ("gates N test
files") counts every file it stands for, not only the first.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from repo_expectations import run_audit, run_check, written_repository

RETRIED = """\
    on: push
    jobs:
      test:
        runs-on: ubuntu-latest
        steps:
          - uses: nick-fields/retry@v3
            with:
              timeout_minutes: 10
              max_attempts: 3
              command: pytest tests
"""

# `suites=` makes `suites` a variable a pipeline sets: a test file that reads the
# environment and says "suites" is parsed, to see whether it reads that variable.
SETS_A_VARIABLE = """\
    on: push
    jobs:
      suites:
        runs-on: ubuntu-latest
        steps:
          - run: |
              suites=$(find tests -name 'test_*.py')
              pytest tests
"""

RERUN = """\
    import pytest


    @pytest.mark.flaky(reruns=2)
    def test_a():
        assert True
"""

READS_THE_ENVIRONMENT = """\
    import os


    # The suites read where the service listens from the environment.
    def test_b():
        assert os.environ.get("SERVICE_HOST", "localhost")
"""

PLAIN = """\
    def test_c():
        assert True
"""

# A helper pytest does not collect (`check_*` is no test name), with a trial loop.
PLAIN_WITH_A_HELPER = """\
    import os


    def check_many(value):
        for _ in range(int(os.getenv("TRIALS", "5"))):
            assert value() == value()


    def test_c():
        assert True
"""

# Five trials per attempt and no marker: a trial count the gate composes.
TRIAL_LOOP = """\
    import os
    import random


    def test_d():
        expected = sorted([3, 1, 2])
        for _ in range(int(os.getenv("SHUFFLES", "5"))):
            assert sorted(random.sample([3, 1, 2], 3)) == expected
"""

WITHOUT_KNOBS = "in the tests of 2 test files without knobs (step 'test';"


def _repository(root: Path, test_c: str, **more: str) -> Path:
    repo = written_repository(
        root,
        {
            ".github/workflows/ci.yml": RETRIED,
            ".github/workflows/other.yml": SETS_A_VARIABLE,
            "requirements-test.txt": "pytest\npytest-rerunfailures==14.0\n",
            "tests/test_a.py": RERUN,
            "tests/test_b.py": READS_THE_ENVIRONMENT,
            "tests/test_c.py": test_c,
            **{f"tests/{name}.py": text for name, text in more.items()},
        },
    )
    subprocess.run(["git", "init", "--quiet", str(repo)], check=True)
    return repo


def _retry_message(repo: Path, *paths: str) -> str:
    _, document = run_check(repo, "--no-cache", *paths)
    (found,) = [f for f in document["findings"] if f["code"] == "DET411"]
    assert (found["path"], found["line"]) == (".github/workflows/ci.yml", 9)
    message: str = found["message"]
    return message


def test_a_parsed_file_whose_tests_hold_no_knob_counts_as_one_without(tmp_path: Path) -> None:
    repo = _repository(tmp_path, PLAIN)
    root = _retry_message(repo)
    assert WITHOUT_KNOBS in root
    assert "tests/test_b.py" not in root
    # The workflow alone reaches the same files and says the same.
    assert _retry_message(repo, ".github/workflows/ci.yml") == root


def test_a_run_on_the_workflow_alone_gates_only_the_tests_pytest_collects(
    tmp_path: Path,
) -> None:
    repo = _repository(tmp_path, PLAIN_WITH_A_HELPER)
    root = _retry_message(repo)
    alone = _retry_message(repo, ".github/workflows/ci.yml")
    assert WITHOUT_KNOBS in alone
    assert "check_many" not in alone
    assert alone == root
    # Its trial loop gives the helper no DET302 or DET501 either: it is no test.
    _, document = run_check(repo, "--no-cache", ".github/workflows/ci.yml")
    assert not any("check_many" in f["message"] for f in document["findings"])


def test_a_trial_count_keeps_its_file_among_those_with_knobs(tmp_path: Path) -> None:
    repo = _repository(tmp_path, PLAIN, test_d=TRIAL_LOOP)
    # The costliest test the retry reaches is the one with five trials per attempt.
    assert "in tests/test_d.py::test_d (step 'test'; gates 4 test files" in _retry_message(repo)
    document = run_audit(repo, "--no-cache")
    (run,) = [run for run in document["ci"]["runs"] if run["path"] == ".github/workflows/ci.yml"]
    (plain,) = run["tests_without_knobs"]
    assert plain["test"] == "the tests of 2 test files without knobs"


RETRIED_WITH_RERUNS = RETRIED.replace("command: pytest tests", "command: pytest --reruns 2 tests")


def test_stacked_retries_count_every_file_the_shared_gate_stands_for(tmp_path: Path) -> None:
    repo = written_repository(
        tmp_path,
        {
            ".github/workflows/ci.yml": RETRIED_WITH_RERUNS,
            "requirements-test.txt": "pytest\npytest-rerunfailures==14.0\n",
            "tests/test_a.py": RERUN,
            "tests/test_b.py": PLAIN,
            "tests/test_c.py": PLAIN.replace("test_c", "test_c2"),
            "tests/unit/test_d.py": PLAIN.replace("test_c", "test_d"),
        },
    )
    subprocess.run(["git", "init", "--quiet", str(repo)], check=True)
    _, document = run_check(repo, "--no-cache")
    (found,) = [f for f in document["findings"] if f["code"] == "DET501"]
    # Three files share one gate; the count names all four files the retry reaches.
    assert found["message"].endswith("(gates 4 test files under tests, tests/unit)")
