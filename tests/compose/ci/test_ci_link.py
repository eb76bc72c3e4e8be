"""Linking pipeline steps to the tests they run: working directories, ``cd``, bare
``pytest`` and testpaths, PYTEST_ADDOPTS, variables carried between GitHub steps,
and a repository nested in another."""

from __future__ import annotations

from repo_expectations import run_check, written_repository

from detlint.model import JobRetries, Policy, Reruns

TEST_WITH_TRIALS = """\
import os

TRIALS = int(os.getenv("KERNEL_TRIALS", "30"))


def test_kernel():
    for seed in range(TRIALS):
        assert run_kernel(seed) == EXPECTED
"""


def _codes(document: dict) -> list[tuple[str, int, str]]:
    return sorted((f["path"], f["line"], f["code"]) for f in document["findings"])


def test_cd_in_one_command_carries_over_to_the_next_on_buildkite(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "services/api/tests/test_api.py": TEST_WITH_TRIALS,
            "tests/test_other.py": "def test_other():\n    pass\n",
            ".buildkite/pipeline.yml": """\
                steps:
                  - label: api
                    commands:
                      - cd services/api
                      - pytest tests || true
            """,
        },
    )
    _, document = run_check(repo)
    (found,) = document["findings"]
    assert (found["code"], found["line"]) == ("DET431", 5)
    assert "gates 1 test file under services/api/tests" in found["message"]


def test_bare_pytest_runs_the_configured_testpaths(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "pytest.ini": "[pytest]\ntestpaths = unit\n",
            "unit/test_a.py": "def test_a():\n    pass\n",
            "scripts/test_not_run.py": "def test_b():\n    pass\n",
            ".gitlab-ci.yml": "unit:\n  script:\n    - pytest\n  retry: 1\n",
        },
    )
    _, document = run_check(repo)
    (found,) = document["findings"]
    assert found["code"] == "DET411"
    assert "gates 1 test file under unit" in found["message"]


def test_github_working_directory_and_variables_set_for_later_steps(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "gpu/tests/test_kernel.py": TEST_WITH_TRIALS,
            ".github/workflows/ci.yml": """\
                on: push
                jobs:
                  gpu:
                    runs-on: ubuntu-latest
                    steps:
                      - run: echo "KERNEL_TRIALS=3" >> "$GITHUB_ENV"
                      - run: pytest tests
                        working-directory: gpu
            """,
        },
    )
    _, document = run_check(repo)
    (found,) = document["findings"]
    assert found["code"] == "DET302"
    assert "KERNEL_TRIALS=3, below the test's own 30" in found["message"]
    assert found["numbers"]["reported"] == Policy(trials=3).reported(0.1)
    assert found["numbers"]["reported_without"] == Policy(trials=30).reported(0.1)


def test_pytest_addopts_in_the_step_env_reruns_like_the_flag(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_kernel.py": TEST_WITH_TRIALS,
            ".buildkite/pipeline.yml": """\
                steps:
                  - command: pytest
                    env:
                      PYTEST_ADDOPTS: "--reruns 2 -p no:cacheprovider"
                    retry:
                      automatic: true
            """,
        },
    )
    _, document = run_check(repo)
    assert _codes(document) == [
        (".buildkite/pipeline.yml", 4, "DET421"),
        (".buildkite/pipeline.yml", 6, "DET411"),
        (".buildkite/pipeline.yml", 6, "DET501"),
    ]
    stacked = next(f for f in document["findings"] if f["code"] == "DET501")
    policy = Policy(trials=30, layers=(Reruns(2), JobRetries(2)))
    assert stacked["numbers"]["reported"] == policy.reported(0.1)
    assert "up to 9 attempts" in stacked["message"]


def test_a_nested_repository_runs_its_steps_from_its_own_root(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "projects/lib/tests/test_lib.py": "def test_lib():\n    pass\n",
            "tests/test_top.py": "def test_top():\n    pass\n",
            "projects/lib/.buildkite/pipeline.yml": """\
                steps:
                  - command: pytest tests
                    soft_fail: true
            """,
        },
    )
    _, document = run_check(repo)
    (found,) = document["findings"]
    assert found["code"] == "DET401"
    assert "under projects/lib/tests" in found["message"]


def test_a_retry_on_agent_loss_only_is_not_a_finding(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": "def test_a():\n    pass\n",
            ".buildkite/pipeline.yml": """\
                steps:
                  - command: pytest --reruns-delay 5
                    retry:
                      automatic:
                        - exit_status: -1
                          limit: 2
                        - signal_reason: agent_stop
                          limit: 2
                    soft_fail:
                      - exit_status: 137
            """,
        },
    )
    code, document = run_check(repo)
    assert (code, document["findings"]) == (0, [])


def test_a_script_the_step_calls_is_read_and_its_exit_status_judged(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": "def test_a():\n    pass\n",
            "ci/run_tests.sh": "#!/bin/bash\ncd tests\npytest -x .\necho finished\n",
            "ci/strict.sh": "#!/bin/bash\nset -e\npytest tests\necho finished\n",
            ".buildkite/pipeline.yml": """\
                steps:
                  - command: ./ci/run_tests.sh
                  - command: bash ci/strict.sh && echo done
            """,
        },
    )
    _, document = run_check(repo)
    # Without `set -e` the script's last command decides its exit status.
    (found,) = document["findings"]
    assert (found["path"], found["line"], found["column"], found["code"]) == (
        "ci/run_tests.sh",
        3,
        1,
        "DET431",
    )
    assert "gates 1 test file under tests" in found["message"]


def test_a_run_inside_a_block_scalar_is_reported_on_its_own_line(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": "def test_a():\n    pass\n",
            ".buildkite/pipeline.yml": """\
                steps:
                  - label: unit
                    command: |
                      echo "soft_fail: true is only text here"
                      pytest tests || true
            """,
        },
    )
    _, document = run_check(repo)
    (found,) = document["findings"]
    assert (found["code"], found["line"], found["column"]) == ("DET431", 5, 1)


def test_knobs_on_steps_that_run_no_tests_are_left_to_the_audit(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": "def test_a():\n    pass\n",
            ".buildkite/pipeline.yml": """\
                steps:
                  - label: docs
                    command: make html
                    soft_fail: true
                  - label: integration
                    command: make integration-test
                    soft_fail: true
            """,
        },
    )
    _, document = run_check(repo)
    (found,) = document["findings"]
    assert (found["code"], found["line"]) == ("DET401", 7)
    assert "step 'integration'" in found["message"]
    assert "the tests `make integration-test` runs, if it runs any" in found["message"]
    assert "single-attempt" not in found["message"]


QUARANTINED = """\
import pytest


@pytest.mark.quarantined
def test_allreduce_is_deterministic():
    assert True


def test_plain():
    assert True
"""


def test_deselecting_a_flaky_tag_in_every_step_is_an_invisible_skip(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_gpu.py": QUARANTINED,
            ".github/workflows/ci.yml": """\
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    steps:
                      - run: pytest -m "not quarantined and not slow" tests
            """,
        },
    )
    _, document = run_check(repo)
    (found,) = document["findings"]
    assert (found["code"], found["line"]) == ("DET202", 6)
    assert "tests/test_gpu.py::test_allreduce_is_deterministic" in found["message"]
    assert found["numbers"]["reported_without"] == Policy().reported(0.1)


def test_a_tag_another_step_selects_is_not_a_finding(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_gpu.py": QUARANTINED,
            ".github/workflows/ci.yml": """\
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    steps:
                      - run: pytest -m "not quarantined" tests
                  nightly:
                    runs-on: ubuntu-latest
                    steps:
                      - run: pytest -m quarantined tests
            """,
        },
    )
    code, document = run_check(repo)
    assert (code, document["findings"]) == (0, [])
