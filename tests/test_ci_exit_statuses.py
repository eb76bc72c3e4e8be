"""Whether a knob that names exit statuses acts on a test failure depends on the status
the CI system sees, as it flows from the test runner through make, scripts and saved
variables to the step: make turns pytest's 1 into 2, ctest fails with 8, a script may
keep pytest's status and return it later, or run a variable that holds ``false``.
"""

from __future__ import annotations

import pytest
from repo_expectations import github_workflow, run_audit, run_check, written_repository

TEST = "def test_a():\n    assert True\n"
MAKEFILE = "test:\n\tpython -m pytest tests\n"


def _ci_findings(tmp_path, files: dict[str, str]) -> list[dict]:
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, **files})
    _, document = run_check(repo)
    return [f for f in document["findings"] if f["code"].startswith(("DET4", "DET5"))]


def _buildkite(command: str, knob: str) -> dict[str, str]:
    step = f"steps:\n  - label: unit\n    command: {command}\n"
    return {".buildkite/pipeline.yml": step + knob}


RETRY_ON_2 = "    retry:\n      automatic:\n        - exit_status: 2\n          limit: 2\n"


def test_a_retry_on_exit_status_2_retries_a_failing_make_test(tmp_path):
    files = {"Makefile": MAKEFILE, **_buildkite("make test", RETRY_ON_2)}
    (one,) = _ci_findings(tmp_path, files)
    assert one["code"] == "DET411"
    assert "up to 3 times" in one["message"]
    assert "tests/test_a.py" in one["message"]


def test_a_retry_on_exit_status_2_does_not_retry_pytest_run_directly(tmp_path):
    repo = written_repository(
        tmp_path, {"tests/test_a.py": TEST, **_buildkite("pytest tests", RETRY_ON_2)}
    )
    assert [f for f in run_check(repo)[1]["findings"] if f["code"] == "DET411"] == []
    (knob,) = run_audit(repo)["ci"]["knobs"]
    assert (knob["verdict"], knob["cause"]) == ("no-finding", "infrastructure-statuses")


def test_a_soft_fail_on_ctests_status_covers_ctest(tmp_path):
    soft = "    soft_fail:\n      - exit_status: 8\n"
    (one,) = _ci_findings(tmp_path, _buildkite("cd build && ctest --output-on-failure", soft))
    assert one["code"] == "DET401"
    assert "`ctest` runs" in one["message"]


def _github_script(tmp_path, script: str) -> list[dict]:
    files = {
        "ci/test.sh": script,
        ".github/workflows/ci.yml": """\
            on: push
            jobs:
              test:
                runs-on: ubuntu-latest
                steps:
                  - run: ./ci/test.sh
        """,
    }
    return _ci_findings(tmp_path, files)


def test_a_status_saved_in_a_variable_and_run_at_the_end_still_fails_the_step(tmp_path):
    script = (
        "#!/bin/bash\nset -e\nif pytest tests; then PASSED=true; else PASSED=false; fi\n"
        "coverage xml\n$PASSED\n"
    )
    assert _github_script(tmp_path, script) == []


def test_a_status_saved_and_returned_with_exit_still_fails_the_step(tmp_path):
    script = "#!/bin/bash\npytest tests || status=$?\ncoverage xml\nexit ${status:-0}\n"
    assert _github_script(tmp_path, script) == []


def test_a_status_saved_and_never_returned_is_masked(tmp_path):
    script = "#!/bin/bash\npytest tests || status=$?\ncoverage xml\n"
    (one,) = _github_script(tmp_path, script)
    assert one["code"] == "DET431"
    assert one["path"] == "ci/test.sh"


def test_a_failure_deferred_by_an_err_trap_and_re_raised_at_exit_still_fails_the_step(tmp_path):
    script = (
        "#!/bin/bash\nset -euo pipefail\nEXITCODE=0\ntrap 'EXITCODE=1' ERR\nset +e\n"
        "timeout 40m pytest tests\ncoverage xml\nexit ${EXITCODE}\n"
    )
    assert _github_script(tmp_path / "a", script) == []
    # Without the exit that re-raises it, the trap only records the failure.
    (one,) = _github_script(tmp_path / "b", script.replace("exit ${EXITCODE}\n", ""))
    assert one["code"] == "DET431"


def test_a_script_masked_by_its_caller_masks_the_runs_it_holds(tmp_path):
    files = {
        "ci/run_unit.sh": "#!/bin/bash\nset -e\npytest tests\n",
        ".github/workflows/ci.yml": """\
            on: push
            jobs:
              test:
                runs-on: ubuntu-latest
                steps:
                  - run: ./ci/run_unit.sh || true
        """,
    }
    (one,) = _ci_findings(tmp_path, files)
    assert (one["code"], one["path"]) == ("DET431", "ci/run_unit.sh")
    assert "`|| true`" in one["message"]


def test_reruns_with_fail_on_flaky_hide_no_failure(tmp_path):
    files = {
        ".github/workflows/ci.yml": """\
            on: push
            jobs:
              test:
                runs-on: ubuntu-latest
                steps:
                  - run: pytest tests --reruns 2 --fail-on-flaky
                  - run: pytest tests --reruns 2
                    env:
                      PYTEST_ADDOPTS: --fail-on-flaky
                  - run: pytest tests --reruns 2
        """
    }
    (one,) = _ci_findings(tmp_path, files)
    assert (one["code"], one["line"]) == ("DET421", 10)
    assert "`--fail-on-flaky`" in one["help"]
    repo = tmp_path
    knobs = {k["line"]: k for k in run_audit(repo)["ci"]["knobs"]}
    assert knobs[6]["cause"] == knobs[7]["cause"] == "visible-reruns"


def test_test_service_retries_configured_in_env_are_retries(tmp_path):
    files = {
        ".buildkite/pipeline.yml": """\
            steps:
              - label: bktec
                command: bktec run
                env:
                  BUILDKITE_TEST_ENGINE_TEST_RUNNER: pytest
                  BUILDKITE_TEST_ENGINE_RETRY_COUNT: 2
              - label: datadog
                command: pytest --ddtrace tests
                env:
                  DD_CIVISIBILITY_FLAKY_RETRY_ENABLED: "true"
              - label: plain
                command: pytest tests
                env:
                  BUILDKITE_TEST_ENGINE_RETRY_COUNT: 2
        """
    }
    found = {f["line"]: f for f in _ci_findings(tmp_path, files)}
    assert sorted(found) == [6, 10]
    assert "up to 3 times" in found[6]["message"]
    assert "up to 6 times" in found[10]["message"]


def test_a_failure_caught_and_re_raised_later_is_named_deferred_in_the_census(tmp_path):
    workflow = github_workflow("set +e\npytest tests\nrc=$?\nset -e\ncoverage xml\nexit $rc")
    repo = written_repository(
        tmp_path, {"tests/test_a.py": TEST, ".github/workflows/ci.yml": workflow}
    )
    assert [f for f in run_check(repo)[1]["findings"] if f["code"].startswith("DET4")] == []
    (knob,) = run_audit(repo)["ci"]["knobs"]
    assert (knob["verdict"], knob["cause"]) == ("no-finding", "deferred")
    assert knob["value"].startswith("`set +e`")
    # Without the exit that re-raises it, the same catch hides the failure.
    repo = written_repository(
        tmp_path / "b",
        {"tests/test_a.py": TEST, ".github/workflows/ci.yml": workflow.replace("exit $rc", "true")},
    )
    (knob,) = run_audit(repo)["ci"]["knobs"]
    assert (knob["verdict"], knob["codes"]) == ("finding", ["DET431"])


def _python_findings(tmp_path, files: dict[str, str]) -> list[tuple[str, str]]:
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, **files})
    return [(f["code"], f["path"]) for f in run_check(repo)[1]["findings"]]


FLAKY_TEST = "import pytest\n\n@pytest.mark.flaky(reruns=3)\ndef test_b():\n    assert True\n"
CI_RERUNS = github_workflow("pytest tests --reruns 2")


@pytest.mark.parametrize("visible", [False, True])
def test_fail_on_flaky_in_the_pytest_config_makes_every_rerun_visible(tmp_path, visible):
    addopts = "--reruns 1 --fail-on-flaky" if visible else "--reruns 1"
    files = {
        "pyproject.toml": f'[tool.pytest.ini_options]\naddopts = "{addopts}"\n',
        "requirements.txt": "pytest-rerunfailures\n",
        "tests/test_b.py": FLAKY_TEST,
        ".github/workflows/ci.yml": CI_RERUNS,
    }
    codes = {code for code, _ in _python_findings(tmp_path, files)}
    if visible:  # the config's, the marker's and the command line's reruns alike
        assert codes == set()
        knob = next(k for k in run_audit(tmp_path)["ci"]["knobs"] if k["kind"] == "rerun-option")
        assert knob["cause"] == "visible-reruns"
    else:
        assert {"DET101", "DET104", "DET421"} <= codes


def test_fail_on_flaky_does_not_make_pytest_retry_visible(tmp_path):
    files = {
        "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "--retries 2 --fail-on-flaky"\n',
        "requirements.txt": "pytest-retry\n",
    }
    assert ("DET104", "pyproject.toml") in _python_findings(tmp_path, files)


def test_a_step_run_through_trunks_client_lists_its_quarantine_with_the_reason(tmp_path):
    files = {
        ".github/workflows/ci.yml": """\
            on: push
            jobs:
              test:
                runs-on: ubuntu-latest
                steps:
                  - run: trunk-analytics-cli test --org-url-slug acme -- pytest tests
                  - run: pytest tests --junitxml=out.xml
        """
    }
    assert _ci_findings(tmp_path, files) == []
    (knob,) = run_audit(tmp_path)["ci"]["knobs"]
    assert (knob["kind"], knob["line"], knob["verdict"]) == ("service-quarantine", 6, "no-finding")
    assert knob["cause"] == "service-quarantine"
    assert "quarantined in Trunk" in knob["reason"]


@pytest.mark.parametrize(
    ("script", "retried"),
    [
        ("#!/bin/bash\nset -euo pipefail\nsource ci/env.sh\nmake test\n", True),
        ("#!/bin/bash\nset -e\n./ci/inner.sh\n", True),  # a script that runs the one above
        ("#!/bin/bash\nset -e\npython -m pytest tests\n", False),  # pytest's 1 is not 2
    ],
)
def test_the_status_a_step_script_gives_decides_a_retry_on_exit_status_2(tmp_path, script, retried):
    files = {
        "Makefile": MAKEFILE,
        "ci/env.sh": "export A=1\n",
        "ci/inner.sh": "#!/bin/bash\nset -euo pipefail\nmake test\n",
        "ci/run_tests.sh": script,
        **_buildkite("ci/run_tests.sh", RETRY_ON_2),
    }
    found = [f["code"] for f in _ci_findings(tmp_path, files)]
    assert found == (["DET411"] if retried else [])


def test_a_gitlab_retry_on_makes_status_covers_a_script_that_runs_make(tmp_path):
    pipeline = """\
        unit:
          script:
            - ./ci/run_tests.sh
          retry:
            max: 2
            exit_codes: [2]
        """
    files = {
        "Makefile": MAKEFILE,
        "ci/run_tests.sh": "#!/bin/bash\nset -e\nmake test\n",
        ".gitlab-ci.yml": pipeline,
    }
    (one,) = _ci_findings(tmp_path, files)
    assert (one["code"], one["line"]) == ("DET411", 4)


def test_a_shared_retry_names_the_step_whose_tests_it_retries(tmp_path):
    pipeline = """\
        retries: &retries
          retry:
            automatic: true
        steps:
          - label: lint
            <<: *retries
            command: flake8 .
          - label: functional
            <<: *retries
            command: nose2 -v
        """
    (one,) = _ci_findings(tmp_path, {".buildkite/pipeline.yml": pipeline})
    assert one["code"] == "DET411"
    assert "step 'functional'" in one["message"]
    assert "step 'lint'" not in one["message"]


def test_tests_run_through_xargs_fail_with_xargs_status_123(tmp_path):
    retry_on_1 = "    retry:\n      automatic:\n        - exit_status: 1\n          limit: 2\n"
    command = "find tests -name 'test_*.py' | xargs pytest"
    assert _ci_findings(tmp_path, _buildkite(f'"{command}"', retry_on_1)) == []
    soft_on_123 = "    soft_fail:\n      - exit_status: 123\n"
    (one,) = _ci_findings(tmp_path / "soft", _buildkite(f'"{command}"', soft_on_123))
    assert one["code"] == "DET401"
