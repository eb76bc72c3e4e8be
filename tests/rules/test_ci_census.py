"""The audit's census of CI knobs: every knob of every pipeline is either a finding
or carries the reason it is not one, and a knob detlint cannot judge says so."""

from __future__ import annotations

from repo_expectations import run_audit, run_audit_output, written_repository

TEST = "def test_a():\n    assert True\n"


def _census(tmp_path, files: dict[str, str], *args: str) -> dict[tuple[str, int], dict]:
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, **files})
    document = run_audit(repo, *args)
    return {(k["path"], k["line"]): k for k in document["ci"]["knobs"]}


BUILDKITE = """\
    steps:
      - label: unit
        command: pytest tests
        soft_fail: true
      - label: agent-lost
        command: pytest tests
        retry:
          automatic:
            - exit_status: -1
              limit: 2
      - label: lint
        command: ruff check .
        soft_fail: true
      - label: interpolated
        command: pytest tests
        soft_fail: $SOFT
      - label: reruns
        command: pytest tests --reruns 2 --only-rerun OSError
      - label: masked
        command: pytest tests || true
"""


def test_every_knob_has_a_verdict_and_each_silence_a_reason(tmp_path):
    knobs = _census(tmp_path, {".buildkite/pipeline.yml": BUILDKITE})
    path = ".buildkite/pipeline.yml"
    unit = knobs[path, 4]
    assert (unit["kind"], unit["verdict"], unit["codes"]) == ("soft-fail", "finding", ["DET401"])
    assert unit["reason"] is None

    agent = knobs[path, 8]
    assert (agent["verdict"], agent["cause"]) == ("no-finding", "infrastructure-statuses")
    assert "-1" in agent["reason"]

    lint = knobs[path, 13]
    assert (lint["verdict"], lint["cause"]) == ("no-finding", "runs-no-tests")
    assert "`ruff check .`" in lint["reason"]

    interpolated = knobs[path, 16]
    assert (interpolated["verdict"], interpolated["cause"]) == ("not-judged", "run-time-value")
    assert "$SOFT" in interpolated["reason"]

    reruns = knobs[path, 18]
    assert (reruns["kind"], reruns["verdict"]) == ("rerun-option", "no-finding")
    assert reruns["cause"] == "infrastructure-reruns"

    masked = knobs[path, 20]
    assert (masked["kind"], masked["verdict"], masked["codes"]) == (
        "masked-status",
        "finding",
        ["DET431"],
    )


def test_no_knob_is_left_unexplained_on_a_mixed_pipeline(tmp_path):
    knobs = _census(tmp_path, {".buildkite/pipeline.yml": BUILDKITE})
    assert len(knobs) == 6
    assert all(k["verdict"] == "finding" or k["reason"] for k in knobs.values())
    assert not [k for k in knobs.values() if k["cause"] == "unexplained"]


def test_a_knob_whose_rule_is_not_selected_says_so(tmp_path):
    knobs = _census(
        tmp_path, {".buildkite/pipeline.yml": BUILDKITE}, "--config", 'select = ["DET431"]'
    )
    unit = knobs[".buildkite/pipeline.yml", 4]
    assert (unit["verdict"], unit["cause"]) == ("no-finding", "rule-not-selected")
    assert "DET401" in unit["reason"]
    assert knobs[".buildkite/pipeline.yml", 20]["verdict"] == "finding"


def test_fail_fast_off_hides_nothing_and_says_why(tmp_path):
    knobs = _census(
        tmp_path,
        {
            ".github/workflows/ci.yml": """\
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    strategy:
                      fail-fast: false
                      matrix:
                        python: ["3.10", "3.11"]
                    steps:
                      - run: pytest tests
            """,
        },
    )
    (knob,) = knobs.values()
    assert (knob["kind"], knob["verdict"], knob["cause"]) == (
        "fail-fast-off",
        "no-finding",
        "does-not-hide",
    )


def test_the_census_validates_against_the_audit_schema(tmp_path):
    import json
    from pathlib import Path

    import jsonschema

    schema = Path(__file__).parents[2] / "docs" / "json-schema" / "audit-1.json"
    repo = written_repository(
        tmp_path, {"tests/test_a.py": TEST, ".buildkite/pipeline.yml": BUILDKITE}
    )
    document = run_audit(repo)
    jsonschema.validate(document, json.loads(schema.read_text(encoding="utf-8")))
    causes = {k["cause"] for k in document["ci"]["knobs"]}
    assert {"infrastructure-statuses", "runs-no-tests", "run-time-value"} <= causes


def test_markdown_lists_the_knobs_without_a_finding_with_their_reasons(tmp_path):
    repo = written_repository(
        tmp_path, {"tests/test_a.py": TEST, ".buildkite/pipeline.yml": BUILDKITE}
    )
    text = run_audit_output(repo, "--output-format", "markdown")
    heading = "### CI knobs without a finding (4 of 4; 2 of 6 CI knobs are findings)"
    assert heading in text
    section = text.split(heading)[1]
    assert "DET401" not in section  # the findings are not listed as silent
    assert "| lint | the step runs no tests: `ruff check .` |" in section
    assert "not judged: whether it acts on a test failure depends on `$SOFT`" in section


def test_the_html_audit_has_every_ci_knob_with_its_verdict(tmp_path):
    repo = written_repository(
        tmp_path, {"tests/test_a.py": TEST, ".buildkite/pipeline.yml": BUILDKITE}
    )
    page = run_audit_output(repo, "--output-format", "html")
    section = page.split('<section id="ci-knobs">')[1].split("</section>")[0]
    assert "2 of 6 are findings" in section
    assert section.count("<tr><td") == 6
    assert "the step runs no tests: `ruff check .`" in section
    assert "<td>DET431</td>" in section


def test_a_retry_with_one_attempt_is_named_no_retry_whatever_it_retries_on(tmp_path):
    workflow = """\
        on: push
        jobs:
          test:
            runs-on: ubuntu-latest
            steps:
              - uses: nick-fields/retry@v3
                with:
                  max_attempts: 1
                  retry_on: error
                  command: pytest tests
        """
    repo = written_repository(
        tmp_path,
        {"tests/test_a.py": "def test_a():\n    pass\n", ".github/workflows/ci.yml": workflow},
    )
    (knob,) = run_audit(repo)["ci"]["knobs"]
    assert (knob["verdict"], knob["cause"]) == ("no-finding", "no-retry")
    assert "no second attempt" in knob["reason"]


def test_a_knob_on_a_step_named_like_a_test_without_a_known_runner_is_not_judged(tmp_path):
    workflow = """\
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - name: Launch Error Handling Test 1
        continue-on-error: true
        run: ./app maps/bad.txt
      - name: Upload test results
        continue-on-error: true
        run: ./ci/upload.sh results.xml
      - name: Lint
        continue-on-error: true
        run: ./ci/lint.sh
  integration-tests:
    runs-on: ubuntu-latest
    continue-on-error: true
    steps:
      - run: ./bin/check-deploy.sh
"""
    knobs = _census(tmp_path, {".github/workflows/ci.yml": workflow})
    path = ".github/workflows/ci.yml"
    launched = knobs[path, 7]
    assert (launched["verdict"], launched["cause"]) == ("not-judged", "named-like-tests")
    assert "'Launch Error Handling Test 1'" in launched["reason"]
    assert "`./app maps/bad.txt`" in launched["reason"]
    assert knobs[path, 10]["cause"] == "runs-no-tests"  # handles test results
    assert knobs[path, 13]["cause"] == "runs-no-tests"
    job = knobs[path, 17]
    assert (job["verdict"], job["cause"]) == ("not-judged", "named-like-tests")


def test_a_gitlab_job_in_a_stage_named_like_tests_is_not_judged(tmp_path):
    gitlab = """\
stages: [build, test, run_testsuite]
lint:
  stage: test
  script: ruff check .
  allow_failure: true
client_validation:
  stage: run_testsuite
  script: bash ci/validate_client.sh
  allow_failure: true
"""
    knobs = _census(tmp_path, {".gitlab-ci.yml": gitlab})
    assert knobs[".gitlab-ci.yml", 5]["cause"] == "runs-no-tests"  # the generic stage says little
    suite = knobs[".gitlab-ci.yml", 9]
    assert (suite["verdict"], suite["cause"]) == ("not-judged", "named-like-tests")
    assert "(stage run_testsuite)" in suite["reason"]
