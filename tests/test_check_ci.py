"""``detlint check`` and ``detlint audit`` on a repository with Buildkite, GitHub Actions
and GitLab pipelines: each CI knob is found, linked to the tests its step runs, and
reported with the numbers of the test it costs most."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from repo_expectations import expected_findings, reported_findings, run_check

from detlint.cli.main import cli
from detlint.model import JobRetries, Policy, Reruns

REPO = Path(__file__).parent / "fixtures" / "repos" / "ci_pipelines"


@pytest.fixture(scope="module")
def checked():
    return run_check(REPO)


@pytest.fixture(scope="module")
def audit():
    previous = Path.cwd()
    os.chdir(REPO)
    try:
        result = CliRunner().invoke(cli, ["audit", "--output-format", "json"], prog_name="detlint")
    finally:
        os.chdir(previous)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)


def _finding(document, path, code):
    (match,) = [f for f in document["findings"] if f["path"] == path and f["code"] == code]
    return match


def test_every_expected_ci_finding_and_no_other(checked):
    code, document = checked
    assert code == 1
    assert reported_findings(document) == expected_findings(REPO)


def test_job_retry_numbers_compose_marker_reruns_and_job_runs(checked):
    _, document = checked
    found = _finding(document, ".buildkite/pipeline.yml", "DET501")
    # GPU_TRIALS=4 from the step env; reruns=2 from the marker; the "*" rule gives 2 job runs.
    policy = Policy(trials=4, layers=(Reruns(2), JobRetries(1, "buildkite")))
    assert found["numbers"]["reported"] == pytest.approx(policy.reported(0.1))
    assert "test_batch_invariance" in found["message"]
    assert "up to 6 attempts" in found["message"]


def test_trial_override_is_measured_against_the_tests_own_default(checked):
    _, document = checked
    found = _finding(document, ".buildkite/pipeline.yml", "DET302")
    assert "GPU_TRIALS=4" in found["message"]
    assert "below the test's own 20" in found["message"]
    own = Policy(trials=20, layers=(JobRetries(1, "buildkite"),)).reported(0.1)
    assert f"instead of {own * 100:.1f}%" in found["message"]


def test_soft_fail_list_on_exit_status_1_names_the_tests_it_gates(checked):
    _, document = checked
    found = _finding(document, ".buildkite/pipeline.yml", "DET401")
    assert "reported 0% of the time" in found["message"]
    assert "gates 3 test files" in found["message"]
    assert "drop exit status 1" in found["help"]


def test_masked_exit_status_by_tee_only_without_pipefail(checked):
    _, document = checked
    tee = _finding(document, ".github/workflows/ci.yml", "DET431")
    assert "tee" in tee["message"]
    lines = {f["line"] for f in document["findings"] if f["path"] == ".github/workflows/ci.yml"}
    assert 21 not in lines  # `shell: bash` runs with pipefail


def test_continue_on_error_names_the_matrix_entries(checked):
    _, document = checked
    found = _finding(document, ".github/workflows/ci.yml", "DET401")
    assert "3.13" in found["message"]


def test_audit_lists_every_ci_knob_whether_or_not_a_rule_fires(audit):
    knobs = audit["ci"]["knobs"]
    kinds = {(k["path"], k["kind"], k["covers_tests"]) for k in knobs}
    assert (".buildkite/pipeline.yml", "job-retry", False) in kinds  # the -1-only rule
    assert (".gitlab-ci.yml", "allow-failure", False) in kinds  # exit_codes [137]
    assert (".buildkite/pipeline.yml", "continue-on-failure", False) in kinds
    assert (".github/workflows/ci.yml", "fail-fast-off", False) in kinds
    assert all({"path", "line", "end_line", "step"} <= set(k) for k in knobs)


def test_audit_shows_each_tests_ci_layers(audit):
    (entry,) = [t for t in audit["tests"] if t["test"].endswith("test_batch_invariance")]
    steps = {ci["step"]: ci for ci in entry["ci"]}
    gpu = steps[":gpu: kernels"]
    assert [layer["kind"] for layer in gpu["layers"]] == ["reruns", "job_retries"]
    assert gpu["trials"] == 4
    nightly = steps["nightly"]
    assert nightly["gate"]["blocks"] is False


def test_a_generator_input_with_working_dir_and_platform_overrides():
    repo = REPO.parent / "ci_generated"
    code, document = run_check(repo)
    assert code == 1
    assert reported_findings(document) == expected_findings(repo)
    (found,) = document["findings"]
    # working_dir "/workspace/tests" is the checkout's tests/ directory.
    assert "platform amd" in found["message"]
    assert "gates 2 test files under tests/distributed" in found["message"]


def test_check_on_the_pipeline_file_alone_still_links_its_tests(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(REPO, repo)
    code, document = run_check(repo, ".gitlab-ci.yml")
    assert code == 1
    (found,) = document["findings"]
    assert found["code"] == "DET411"
    assert "tests/integration" in found["message"]
