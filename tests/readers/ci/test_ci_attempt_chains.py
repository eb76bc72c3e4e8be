"""GitHub attempt chains: ``continue-on-error`` attempts followed by a step that
reruns the tests when they failed are one retry layer, not a soft fail."""

from __future__ import annotations

from repo_expectations import run_check, written_repository

TEST = "def test_a():\n    assert True\n"


def _attempt(number: int, soft: bool, after: str | None) -> str:
    lines = [f"      - name: Test attempt {number}", f"        id: attempt{number}"]
    if after is not None:
        lines.append(f"        if: failure() && steps.{after}.outcome == 'failure'")
    if soft:
        lines.append("        continue-on-error: true")
    lines.append("        run: pytest tests")
    return "\n".join(lines)


def _findings(tmp_path, *attempts: str) -> list[dict]:
    workflow = "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": TEST,
            ".github/workflows/ci.yml": workflow + "\n".join(attempts) + "\n",
        },
    )
    _, document = run_check(repo)
    return document["findings"]


def test_three_attempts_with_a_blocking_last_one_are_a_retry_of_three(tmp_path):
    found = _findings(
        tmp_path,
        _attempt(1, True, None),
        _attempt(2, True, "attempt1"),
        _attempt(3, False, "attempt2"),
    )
    (one,) = found
    assert (one["code"], one["line"]) == ("DET411", 8)
    assert "starts 3 attempts (later steps rerun the tests when it fails)" in one["message"]
    assert one["help"].startswith("let the first attempt block")
    assert "reported 0.10% of the time instead of 10.0%" in one["message"]


def test_a_chain_whose_last_attempt_is_soft_too_is_still_a_soft_fail(tmp_path):
    found = _findings(tmp_path, _attempt(1, True, None), _attempt(2, True, "attempt1"))
    assert {(f["code"], f["line"]) for f in found} == {("DET401", 8), ("DET401", 13)}


def test_a_follow_up_that_runs_no_tests_is_no_retry(tmp_path):
    report = (
        "      - name: Report\n"
        "        if: steps.attempt1.outcome == 'failure'\n"
        "        run: echo 'attempt 1 failed'"
    )
    found = _findings(tmp_path, _attempt(1, True, None), report)
    assert [(f["code"], f["line"]) for f in found] == [("DET401", 8)]


def test_a_gitlab_on_failure_job_is_no_retry(tmp_path):
    # GitLab marks the pipeline failed once `unit` fails; a `when: on_failure` job that
    # runs the tests again cannot turn it green, so it hides nothing (semantics.md, `when`).
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": "def test_a():\n    assert True\n",
            ".gitlab-ci.yml": """\
                stages: [test, retry]
                unit:
                  stage: test
                  script:
                    - pytest tests
                unit-retry:
                  stage: retry
                  when: on_failure
                  script:
                    - pytest --lf tests
            """,
        },
    )
    _, document = run_check(repo)
    assert document["findings"] == []


def test_a_failure_a_later_step_re_raises_is_deferred_not_hidden(tmp_path):
    # peft's nightly GPU jobs: each suite with continue-on-error, then one step that
    # fails the job if any of them failed. The job still fails: nothing is hidden.
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": "def test_a():\n    assert True\n",
            "Makefile": "tests_core:\n\tpython -m pytest tests\n",
            ".github/workflows/nightly.yml": """\
                on: schedule
                jobs:
                  gpu:
                    runs-on: ubuntu-latest
                    steps:
                      - name: Run core tests
                        id: core_tests
                        continue-on-error: true
                        run: make tests_core
                      - name: Run examples
                        id: examples
                        continue-on-error: true
                        run: pytest tests
                      - name: Report
                        if: always()
                        run: python scripts/log_reports.py
                      - name: Check for test failures
                        if: |
                          steps.core_tests.outcome == 'failure' ||
                          steps.examples.outcome == 'failure'
                        run: |
                          echo "One or more test suites failed."
                          exit 1
            """,
        },
    )
    _, document = run_check(repo)
    assert document["findings"] == []


def test_without_the_check_step_the_soft_fail_stands(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": "def test_a():\n    assert True\n",
            ".github/workflows/nightly.yml": """\
                on: schedule
                jobs:
                  gpu:
                    runs-on: ubuntu-latest
                    steps:
                      - id: examples
                        continue-on-error: true
                        run: pytest tests
                      - if: steps.examples.outcome == 'failure'
                        run: echo "examples failed"
            """,
        },
    )
    _, document = run_check(repo)
    assert [f["code"] for f in document["findings"]] == ["DET401"]
