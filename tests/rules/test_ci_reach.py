"""A CI knob is a finding only where tests run: steps that upload coverage, analyse
logs or set meta-data are not reported, whatever their names say; a call named like
a test runner that detlint cannot see through is reported with what it runs.

Each case is distilled from a real repository's pipeline (bench/realworld)."""

from __future__ import annotations

import pytest
from repo_expectations import run_audit, run_check, written_repository

from detlint.readers.ci.commands.calls import follow_calls
from detlint.readers.ci.commands.follow import Follower
from detlint.readers.ci.shell.commands import read_command

TEST = "def test_a():\n    assert True\n"


def _findings(tmp_path, files: dict[str, str]) -> list[dict]:
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, **files})
    _, document = run_check(repo)
    return document["findings"]


def test_continue_on_error_on_a_coverage_step_of_a_test_job_is_no_finding(tmp_path):
    # The knob sits on the upload step; pytest runs in another step of the same job.
    found = _findings(
        tmp_path,
        {
            ".github/workflows/ci.yml": """\
                on: push
                jobs:
                  test-linux-api:
                    runs-on: ubuntu-latest
                    steps:
                      - run: pytest tests
                      - name: Coveralls
                        if: always()
                        run: coveralls --service=github-actions
                        continue-on-error: true
            """,
        },
    )
    assert found == []


def test_job_level_continue_on_error_on_a_log_analysis_job_is_no_finding(tmp_path):
    found = _findings(
        tmp_path,
        {
            ".github/workflows/analyze.yml": """\
                on: workflow_call
                jobs:
                  analyze:
                    name: cross-reference failures with recommendations
                    continue-on-error: true
                    runs-on: ubuntu-latest
                    steps:
                      - run: |
                          mkdir -p ./test-logs
                          find ./test-logs -type f | head -50
                      - run: |
                          python3 .github/workflows/scripts/analyze_failure_report.py \\
                            --log-dir ./test-logs --output ./test-logs/report.md
                      - run: python3 scripts/merge_extra_recommended_tests.py --prune
            """,
        },
    )
    assert found == []


def test_soft_fail_on_a_meta_data_step_is_no_finding(tmp_path):
    found = _findings(
        tmp_path,
        {
            ".buildkite/pipeline.yml": """\
                steps:
                  - label: "Test results annotation"
                    command: buildkite-agent meta-data set test-status done
                    soft_fail: true
            """,
        },
    )
    assert found == []


def test_soft_fail_on_a_test_script_detlint_cannot_read_says_so(tmp_path):
    found = _findings(
        tmp_path,
        {
            ".buildkite/pipeline.yml": """\
                steps:
                  - label: Pytorch Nightly Dependency Override Check
                    soft_fail: true
                    commands:
                      - bash standalone_tests/pytorch_nightly_dependency.sh
            """,
        },
    )
    (one,) = found
    assert (one["code"], one["line"]) == ("DET401", 3)
    message = one["message"]
    assert (
        "in the tests `bash standalone_tests/pytorch_nightly_dependency.sh` runs, if it runs "
        "any: detlint sees no pytest run in it" in message
    )
    assert "single-attempt" not in message
    assert "step 'Pytorch Nightly Dependency Override Check'" in message


def test_a_followed_script_that_runs_pytest_is_linked_not_guessed(tmp_path):
    found = _findings(
        tmp_path,
        {
            "ci/run_tests.sh": "#!/bin/bash\npytest tests\n",
            ".buildkite/pipeline.yml": """\
                steps:
                  - label: unit
                    command: bash ci/run_tests.sh
                    soft_fail: true
            """,
        },
    )
    (one,) = found
    assert "gates 1 test file under tests" in one["message"]
    assert "if it runs any" not in one["message"]


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        (
            'bash .buildkite/scripts/run-amd-test.sh "cd /w ; {{ step.command }}"',
            ["bash .buildkite/scripts/run-amd-test.sh"],
        ),
        ("make html && make integration-test", ["make integration-test"]),
        ("nox -s tests-3.11", ["nox -s tests-3.11"]),
        ("nox -s lint", []),
        ("just test", ["just test"]),
        ("docker compose -f ci.yml run --rm unit-tests", ["docker compose run unit-tests"]),
        ("python run_tests.py --gpu", ["python run_tests.py"]),
        ("python tools/runtests.py", ["python tools/runtests.py"]),
        # Megatron-LM: the tools a test tree keeps are not test runners.
        ("uv run python tests/e2e/driver.py", []),
        ("python tests/test_utils/python_scripts/download_golden_values.py", []),
        ("./scripts/ci/run_downstream_tests.sh", ["./scripts/ci/run_downstream_tests.sh"]),
        ("python3 scripts/merge_extra_recommended_tests.py", []),
        ("python3 .github/workflows/scripts/test_selector.py --changed", []),
        ("python tests/test_cli.py", ["python tests/test_cli.py"]),
        ("curl -X POST https://ci.example/test-results", []),
        ("coveralls --service=github-actions", []),
        ("make docs", []),
        ("bash scripts/publish.sh", []),
    ],
)
def test_calls_named_like_test_runners(text, calls):
    # No file of the repository is there to follow: what is left is the name.
    follower = Follower(lambda path: None, lambda path: path)
    reach = follow_calls(follower, read_command(text).calls, "")
    assert [end.call.callee.name for end in reach.ends] == calls
    assert not any(end.certain for end in reach.ends)


def test_the_audit_inventories_knobs_where_no_tests_run(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": TEST,
            ".buildkite/pipeline.yml": """\
                steps:
                  - label: record result
                    soft_fail: true
                    command: buildkite-agent meta-data set result unverified
                  - label: unit
                    soft_fail: true
                    command: pytest tests
            """,
        },
    )
    knobs = {k["step"]: k for k in run_audit(repo)["ci"]["knobs"]}
    assert knobs["record result"]["runs_tests"] is False
    assert knobs["record result"]["no_tests_run_here"] == (
        "buildkite-agent meta-data set result unverified"
    )
    assert (knobs["unit"]["runs_tests"], knobs["unit"]["no_tests_run_here"]) == (True, None)
