"""What a CI step runs decides whether its knob hides test failures, whatever runs them:
pytest through a container or an env-setting wrapper, another test runner
(``python -m unittest``, nose2, ``ctest``), a make goal in a sub-directory or a
sub-make, a script that calls a script, a command held in a variable or a function.
A knob on such a step is a finding; one on a step that runs no tests is not, and the
audit says what that step runs.
"""

from __future__ import annotations

from repo_expectations import run_audit, run_check, written_repository

TEST = "def test_a():\n    assert True\n"


def _findings(tmp_path, files: dict[str, str]) -> list[dict]:
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, **files})
    _, document = run_check(repo)
    return [f for f in document["findings"] if f["code"].startswith(("DET4", "DET5"))]


def _github(
    command: str, knob: str = "continue-on-error: true", job: str = "test"
) -> dict[str, str]:
    return {
        ".github/workflows/ci.yml": f"""\
            on: push
            jobs:
              {job}:
                runs-on: ubuntu-latest
                {knob}
                steps:
                  - run: {command}
        """
    }


def test_python_m_unittest_is_a_test_run(tmp_path):
    (one,) = _findings(tmp_path, _github("python -m unittest discover -s tests"))
    assert one["code"] == "DET401"
    assert "`python -m unittest` runs" in one["message"]
    assert "if it runs any" not in one["message"]  # a test runner runs tests


def test_nose2_behind_timeout_and_xvfb_run_is_a_test_run(tmp_path):
    (one,) = _findings(tmp_path, _github("timeout 600 xvfb-run -a python -m nose2 -v"))
    assert "`python -m nose2` runs" in one["message"]


def test_ctest_in_a_script_the_step_calls_is_a_test_run(tmp_path):
    files = _github("./ci/test.sh")
    files["ci/test.sh"] = "#!/bin/bash\nset -e\ncmake --build build\ncd build && ctest -j2\n"
    (one,) = _findings(tmp_path, files)
    assert "`./ci/test.sh → ctest` runs" in one["message"]


def test_pytest_in_a_container_is_linked_to_its_tests(tmp_path):
    files = _github("docker compose -f ci/compose.yml run --rm app pytest tests")
    (one,) = _findings(tmp_path, files)
    assert "tests/test_a.py" in one["message"]
    assert "if it runs any" not in one["message"]


def test_pytest_behind_an_env_setting_wrapper_script_is_linked(tmp_path):
    files = _github("./env.sh CUDA_VISIBLE_DEVICES=0 pytest tests")
    files["env.sh"] = '#!/bin/bash\nexport "$@"\n'
    (one,) = _findings(tmp_path, files)
    assert "tests/test_a.py" in one["message"]


def test_make_goal_in_a_sub_directory_is_followed_to_pytest(tmp_path):
    files = {
        "sub/tests/test_b.py": TEST,
        "sub/Makefile": "test:\n\tpython -m pytest tests\n",
        ".gitlab-ci.yml": """\
            unit:
              script:
                - cd sub; make test
              allow_failure: true
        """,
    }
    (one,) = _findings(tmp_path, files)
    assert one["code"] == "DET401"
    assert "sub/tests/test_b.py" in one["message"]


def test_a_sub_make_is_followed_to_pytest(tmp_path):
    files = {
        "pkg/tests/test_b.py": TEST,
        "Makefile": "test:\n\t$(MAKE) -C pkg check\n",
        "pkg/Makefile": "check:\n\tpython -m pytest tests\n",
        ".gitlab-ci.yml": """\
            unit:
              script:
                - make test
              allow_failure: true
        """,
    }
    (one,) = _findings(tmp_path, files)
    assert "pkg/tests/test_b.py" in one["message"]


def test_a_command_held_in_a_variable_is_read(tmp_path):
    (one,) = _findings(tmp_path, _github('RUNNER="python -m unittest"; $RUNNER -v'))
    assert "`python -m unittest` runs" in one["message"]


def test_a_command_in_a_shell_function_is_read(tmp_path):
    (one,) = _findings(tmp_path, _github("run_tests() { python -m nose2; }; run_tests"))
    assert "`python -m nose2` runs" in one["message"]


def test_a_script_chain_named_like_a_runner_is_reported_as_a_guess(tmp_path):
    files = _github("./ci/build.sh")
    files["ci/build.sh"] = "#!/bin/bash\nset -e\n./ci/run_integration_tests.sh --all\n"
    (one,) = _findings(tmp_path, files)
    assert "`./ci/build.sh → ./ci/run_integration_tests.sh` runs, if it runs any" in one["message"]


def test_nox_sessions_by_name(tmp_path):
    (tests,) = _findings(tmp_path / "a", _github("nox -s tests-3.11"))
    assert "`nox -s tests-3.11` runs, if it runs any" in tests["message"]
    assert _findings(tmp_path / "b", _github("nox -s lint")) == []


def test_a_knob_on_a_step_that_runs_no_tests_is_named_in_the_audit(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": TEST,
            **_github("docker build -t app . && ./deploy.sh prod", job="ship"),
        },
    )
    (knob,) = run_audit(repo)["ci"]["knobs"]
    assert (knob["verdict"], knob["cause"]) == ("no-finding", "runs-no-tests")
    assert "`docker build -t app . && ./deploy.sh prod`" in knob["reason"]


def test_a_sourced_file_that_sets_errexit_keeps_a_later_command_from_hiding_pytest(tmp_path):
    files = _github("./ci/test.sh", knob="")
    files["ci/common.sh"] = "export A=1\nset -eux\n"
    files["ci/test.sh"] = (
        '#!/bin/bash\nTHIS_DIR="$(dirname "$0")"\nsource ${THIS_DIR}/common.sh\n'
        "pytest tests\ncoverage xml\n"
    )
    assert _findings(tmp_path / "a", files) == []
    # The same script without the sourced errexit ends with coverage's status.
    files["ci/common.sh"] = "export A=1\n"
    (masked,) = _findings(tmp_path / "b", files)
    assert masked["code"] == "DET431"


def test_commands_and_knobs_handed_to_a_shared_workflow_of_another_repository(tmp_path):
    files = {
        ".github/workflows/pr.yml": """\
            on: pull_request
            jobs:
              third-party-tests:
                uses: org/shared-workflows/.github/workflows/custom-job.yaml@main
                with:
                  node_type: gpu
                  continue-on-error: true
                  script: python -m pytest tests
        """
    }
    (one,) = _findings(tmp_path, files)
    assert one["code"] == "DET401"
    assert "tests/test_a.py" in one["message"]
    repo_knobs = run_audit(tmp_path)["ci"]["knobs"]
    assert "passed to `org/shared-workflows" in repo_knobs[0]["note"]


def test_a_test_command_handed_to_an_action_is_read(tmp_path):
    files = {
        ".github/workflows/ci.yml": """\
            on: push
            jobs:
              sdist:
                runs-on: ubuntu-latest
                continue-on-error: true
                steps:
                  - uses: org/maintainer-tools/.github/actions/test-sdist@v1
                    with:
                      package_spec: -vv .
                      test_command: python -m pytest tests
        """
    }
    (one,) = _findings(tmp_path, files)
    assert one["code"] == "DET401"
    assert "tests/test_a.py" in one["message"]


def test_a_continue_on_error_expression_with_functions_is_judged_per_matrix_entry(tmp_path):
    files = {
        ".github/workflows/ci.yml": """\
            on: push
            jobs:
              test:
                runs-on: ubuntu-latest
                strategy:
                  matrix:
                    python: ["3.12", "3.13", "3.15-dev"]
                continue-on-error: >-
                  ${{
                    endsWith(matrix.python, '-dev') || endsWith(matrix.python, '-nightly')
                  }}
                steps:
                  - run: python -m pytest tests
        """
    }
    (one,) = _findings(tmp_path / "a", files)
    assert "python=3.15-dev" in one["message"]
    assert "3.12" not in one["message"]
    # No entry matches: the knob acts nowhere, and the audit says so.
    files[".github/workflows/ci.yml"] = files[".github/workflows/ci.yml"].replace(
        '"3.15-dev"', '"3.14"'
    )
    assert _findings(tmp_path / "b", files) == []


HATCH = """\
[tool.hatch.envs.test.scripts]
test = "python -m pytest tests {args}"
cov = ["coverage erase", "test --cov"]
"""


def test_a_hatch_script_is_followed_to_pytest(tmp_path):
    files = {"pyproject.toml": HATCH, **_github("hatch run test:test -x")}
    (one,) = _findings(tmp_path, files)
    assert one["code"] == "DET401"
    assert "tests/test_a.py" in one["message"]


def test_a_retry_written_around_a_task_is_a_retry_of_the_tests_it_runs(tmp_path):
    files = {
        "pyproject.toml": HATCH,
        **_github("hatch run test:cov || hatch -v run test:test --lf", knob=""),
    }
    (one,) = _findings(tmp_path, files)
    assert one["code"] == "DET411"
    assert one["line"] == 7  # at the step's command, where the retry is written
    assert "hatch run test:test --lf" in one["message"]
    assert "tests/test_a.py" in one["message"]


def test_a_make_goal_in_a_retry_loop_is_a_retry(tmp_path):
    files = {
        "Makefile": "test:\n\tpython -m pytest tests\n",
        **_github("for i in 1 2 3; do make test && break; done", knob=""),
    }
    (one,) = _findings(tmp_path, files)
    assert one["code"] == "DET411"
    assert "3 rounds" in one["message"]


def test_tasks_of_every_runner_are_followed(tmp_path):
    cases = {
        "pdm": ({"pyproject.toml": '[tool.pdm.scripts]\ntest = "pytest tests"\n'}, "pdm run test"),
        "poe": (
            {"pyproject.toml": '[tool.poe.tasks.test]\ncmd = "pytest tests"\n'},
            "uv run poe test",
        ),
        "pixi": ({"pixi.toml": '[tasks]\ntest = "pytest tests"\n'}, "pixi run test"),
        "npm": ({"package.json": '{"scripts": {"test": "pytest tests"}}\n'}, "npm test"),
        "just": ({"justfile": "test:\n    pytest tests\n"}, "just test"),
        "invoke": (
            {
                "tasks.py": "from invoke import task\n@task\n"
                "def test(c):\n    c.run('pytest tests')\n"
            },
            "invoke test",
        ),
        "nox": (
            {
                "noxfile.py": "import nox\n@nox.session\ndef tests(session):\n"
                "    session.run('pytest', 'tests', *session.posargs)\n"
            },
            "nox -s tests",
        ),
    }
    for name, (files, command) in cases.items():
        found = _findings(tmp_path / name, {**files, **_github(command)})
        assert [f["code"] for f in found] == ["DET401"], name
        assert "tests/test_a.py" in found[0]["message"], name


def test_a_task_default_arguments_stand_when_the_call_gives_none(tmp_path):
    files = {
        "sub/tests/test_b.py": TEST,
        "pyproject.toml": (
            '[tool.hatch.envs.test.scripts]\nunit = "pytest --reruns 3 {args:sub/tests}"\n'
        ),
        **_github("hatch run test:unit", knob=""),
    }
    (one,) = _findings(tmp_path, files)
    assert (one["code"], one["path"], one["line"]) == ("DET421", "pyproject.toml", 2)
    assert "sub/tests/test_b.py" in one["message"]
    assert "tests/test_a.py" not in one["message"]


WRAPPER = """\
#!/usr/bin/env python
import subprocess
import sys

args = sys.argv[1:]
try:
    subprocess.run([sys.executable, "-m", "pytest"] + args, check=True)
    sys.exit(0)
except subprocess.CalledProcessError:
    pass
subprocess.run([sys.executable, "-m", "pytest", "--lf"] + args, check=True)
"""


def test_a_python_wrapper_that_reruns_failed_tests_is_a_retry(tmp_path):
    files = {"tools/pytest_wrapper.py": WRAPPER, **_github("tools/pytest_wrapper.py src -v", "")}
    (one,) = _findings(tmp_path, files)
    assert (one["code"], one["path"], one["line"]) == ("DET411", "tools/pytest_wrapper.py", 7)
    assert "reruns the tests that failed (2 attempts in all)" in one["message"]


def test_a_python_wrapper_that_runs_pytest_once_is_a_test_run(tmp_path):
    once = WRAPPER.split("try:")[0] + "subprocess.run(['pytest', *args], check=True)\n"
    (one,) = _findings(tmp_path, {"ci/wrap.py": once, **_github("python ci/wrap.py -x")})
    assert one["code"] == "DET401"
    assert "`python ci/wrap.py` runs (detlint links pytest runs" in one["message"]


def test_a_knob_on_a_job_that_calls_a_reusable_workflow_acts_on_its_jobs(tmp_path):
    files = {
        ".github/workflows/nightly.yml": """\
            on: schedule
            jobs:
              e2e:
                continue-on-error: true
                uses: ./.github/workflows/_e2e.yml
        """,
        ".github/workflows/_e2e.yml": """\
            on: workflow_call
            jobs:
              run:
                runs-on: ubuntu-latest
                steps:
                  - run: python -m pytest tests
        """,
    }
    (one,) = _findings(tmp_path, files)
    assert (one["code"], one["path"]) == ("DET401", ".github/workflows/nightly.yml")
    assert "tests/test_a.py" in one["message"]


def test_a_gitlab_child_pipeline_that_the_job_depends_on_inherits_its_knobs(tmp_path):
    files = {
        ".gitlab-ci.yml": """\
            gpu:
              trigger:
                include: ci/gpu.yml
                strategy: depend
              allow_failure: true
            docs:
              trigger:
                include: ci/docs.yml
              allow_failure: true
        """,
        "ci/gpu.yml": "unit:\n  stage: test\n  script:\n    - python -m pytest tests\n",
        "ci/docs.yml": "build:\n  stage: test\n  script:\n    - python -m pytest tests\n",
    }
    (one,) = _findings(tmp_path, files)
    assert (one["code"], one["line"]) == ("DET401", 5)
    assert "tests/test_a.py" in one["message"]


def test_job_level_continue_on_error_says_what_it_hides_the_failure_from(tmp_path):
    files = {
        ".github/workflows/ci.yml": """\
            on: pull_request
            jobs:
              test:
                runs-on: ubuntu-latest
                continue-on-error: true
                steps:
                  - run: python -m pytest tests
              all-green:
                needs: [test]
                runs-on: ubuntu-latest
                steps:
                  - run: echo ok
        """
    }
    (one,) = _findings(tmp_path, files)
    message = one["message"]
    assert "lets failing tests pass the workflow run" in message
    assert "the job's own check run still fails" in message
    assert "`needs.test.result` in `all-green` report success" in message


def test_a_knob_on_tests_that_also_run_blocking_elsewhere_says_it_costs_nothing_there(tmp_path):
    files = {
        ".github/workflows/ci.yml": """\
            on: push
            jobs:
              nightly-python:
                runs-on: ubuntu-latest
                continue-on-error: true
                steps:
                  - run: python -m pytest tests
              stable:
                runs-on: ubuntu-latest
                steps:
                  - run: python -m pytest tests
        """
    }
    (one,) = _findings(tmp_path, files)
    assert "also run in step 'stable' with no knob" in one["message"]
    assert "for them the knob costs nothing" in one["message"]


def test_a_working_directory_set_from_env_or_a_one_valued_matrix_resolves(tmp_path):
    files = {
        "pkg/tests/test_b.py": TEST,
        ".github/workflows/ci.yml": """\
            on: push
            env:
              PKG_DIR: pkg
            jobs:
              test:
                runs-on: ubuntu-latest
                continue-on-error: true
                strategy:
                  matrix:
                    sub: [tests]
                defaults:
                  run:
                    working-directory: ${{ env.PKG_DIR }}
                steps:
                  - run: python -m pytest ${{ matrix.sub }}
                  - working-directory: ${{ env.PKG_DIR }}/${{ matrix.sub }}
                    run: python -m pytest .
        """,
    }
    (one,) = _findings(tmp_path, files)
    assert "pkg/tests/test_b.py" in one["message"]
    assert "tests/test_a.py" not in one["message"].replace("pkg/tests/test_a", "")


def test_inputs_of_a_reusable_workflow_are_judged_against_each_caller(tmp_path):
    called = """\
        on:
          workflow_call:
            inputs:
              experimental: {type: boolean, default: false}
        jobs:
          run:
            runs-on: ubuntu-latest
            continue-on-error: ${{ inputs.experimental }}
            steps:
              - run: python -m pytest tests
    """
    caller = """\
        on: push
        jobs:
          stable:
            uses: ./.github/workflows/_tests.yml
            with: {experimental: false}
          nightly:
            uses: ./.github/workflows/_tests.yml
            with: {experimental: true}
    """
    files = {".github/workflows/_tests.yml": called, ".github/workflows/ci.yml": caller}
    (one,) = _findings(tmp_path / "a", files)
    assert (one["path"], one["line"]) == (".github/workflows/_tests.yml", 8)
    assert "when called by nightly" in one["message"]
    files[".github/workflows/ci.yml"] = caller.replace("experimental: true", "experimental: false")
    assert _findings(tmp_path / "b", files) == []


def test_a_run_with_a_project_option_is_not_taken_for_the_same_tests(tmp_path):
    # --integration_tests=true is the project's own option: it may select other tests.
    files = {
        ".github/workflows/ci.yml": """\
            on: push
            jobs:
              nightly-python:
                runs-on: ubuntu-latest
                continue-on-error: true
                steps:
                  - run: python -m pytest tests
              integration:
                runs-on: ubuntu-latest
                steps:
                  - run: python -m pytest tests --integration_tests=true -v
        """
    }
    (one,) = _findings(tmp_path, files)
    assert "costs nothing" not in one["message"]


def test_a_hatch_script_that_names_another_hands_it_its_words(tmp_path):
    files = {
        "pyproject.toml": (
            "[tool.hatch.envs.test.scripts]\n"
            'test = "python -m pytest -vv {args}"\n'
            'nowarn = "test -W default {args}"\n'
        ),
        **_github("hatch run test:nowarn || hatch run test:nowarn --lf", knob=""),
    }
    (one,) = _findings(tmp_path, files)
    assert "tests/test_a.py" in one["message"]
    assert "{args}" not in one["message"]
