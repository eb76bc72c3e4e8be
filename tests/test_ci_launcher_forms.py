"""What runs tests, however the launcher is spelled: an environment manager run as a
Python module (``python -m uv run pytest``, ``python -m hatch run test``), a module run
by a manager (``uv run -m mypkg.tests``), and a retry loop whose round leaves the loop
when the tests pass (``if pytest; then exit 0; fi``), as ``pytest && break`` does.
"""

from __future__ import annotations

import textwrap

import pytest
from repo_expectations import github_workflow, run_audit, run_check, written_repository

TEST = "def test_a():\n    assert True\n"


def _ci_codes(tmp_path, files: dict[str, str]) -> list[tuple[str, int]]:
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, **files})
    _, document = run_check(repo)
    return [(f["code"], f["line"]) for f in document["findings"] if f["code"].startswith("DET4")]


def _github(run: str) -> dict[str, str]:
    return {".github/workflows/ci.yml": github_workflow(run)}


@pytest.mark.parametrize(
    "command",
    [
        "python -m uv run pytest tests --reruns 3",
        "python3 -m poetry run pytest tests --reruns 3",
        "python -m pipenv run python -m pytest tests --reruns 3",
    ],
)
def test_a_manager_run_as_a_python_module_runs_its_pytest(tmp_path, command):
    assert _ci_codes(tmp_path, _github(command)) == [("DET421", 7)]


@pytest.mark.parametrize(
    ("command", "codes"),
    [
        ("uv run --extra dev -m mypkg.tests --junit-report-xml r.xml", ["DET401"]),
        ("python -m uv run python -m mypkg.tests", ["DET401"]),
        ("uv run --extra dev -m mypkg.cli --version", []),
    ],
)
def test_a_test_module_run_by_a_manager_is_a_test_run(tmp_path, command, codes):
    pipeline = f"unit:\n  script:\n    - {command}\n  allow_failure: true\n"
    found = _ci_codes(tmp_path, {".gitlab-ci.yml": pipeline})
    assert [code for code, _ in found] == codes


LOOP = """\
for i in 1 2 3; do
  echo "attempt $i"
  if uv run pytest tests -s; then
    echo passed
    exit 0
  fi
  sleep 5
done
echo "failed after 3 attempts"
exit 1"""


def test_a_loop_that_exits_on_the_first_pass_is_a_retry(tmp_path):
    (one,) = _ci_codes(tmp_path, _github(LOOP))
    assert one[0] == "DET411"


def test_a_loop_that_only_breaks_on_the_first_pass_masks_the_last_failure(tmp_path):
    loop = LOOP.replace("exit 0", "break").replace("exit 1", "echo done")
    assert [code for code, _ in _ci_codes(tmp_path, _github(loop))] == ["DET431"]


@pytest.mark.parametrize(
    ("script", "codes"),
    [
        # A function of a downloaded, sourced file, named like a test runner.
        ("curl -L -O https://example.org/ci-support\n. ci-support\ntest_py_project", ["DET401"]),
        ("source ci/env.sh\nrun_unit_tests --fast", ["DET401"]),
        # Defined in the script itself: its body is what runs (here no tests).
        ("run_tests() { echo no tests; }\nrun_tests", []),
        ("upload-test-results --dir out", []),
        ("test -f setup.py && echo ok", []),
    ],
)
def test_a_command_named_like_a_test_runner_that_the_script_does_not_define(
    tmp_path, script, codes
):
    pipeline = "unit:\n  allow_failure: true\n  script: |\n" + textwrap.indent(script, "    ")
    found = _ci_codes(tmp_path, {".gitlab-ci.yml": pipeline + "\n", "ci/env.sh": "A=1\n"})
    assert [code for code, _ in found] == codes


@pytest.mark.parametrize(
    ("command", "codes"),
    [
        # The script string of a shell a container runs is read as a script.
        ("docker exec -t box /bin/bash -xec 'pytest tests || true'", ["DET431"]),
        ("docker run --rm img bash -c 'cd /w && pytest tests || true'", ["DET431"]),
        ("kubectl exec pod -- sh -c 'pytest tests || true'", ["DET431"]),
        # A Python script by path, with or without a suffix, and a versioned python.
        ("python${PYTHON_VERSION} scripts/ci/run-tests --fast", ["DET401"]),
        ("python3 ci/run_tests", ["DET401"]),
        ("uv run tools/ci/smoke_test.py", ["DET401"]),  # a smoke test is a test run
        ("uv run tools/ci/generate_docs.py", []),
        ("python${PY} scripts/ci/install", []),
    ],
)
def test_commands_inside_containers_and_python_scripts_without_a_suffix(tmp_path, command, codes):
    knob = "" if codes == ["DET431"] else "  allow_failure: true\n"
    pipeline = f"unit:\n{knob}  script:\n    - {command}\n"
    found = _ci_codes(tmp_path, {".gitlab-ci.yml": pipeline})
    assert [code for code, _ in found] == codes


def test_a_child_pipeline_another_job_writes_is_named_as_unseen(tmp_path):
    pipeline = """\
        generate:
          script:
            - python scripts/gen.py > child.yml
          artifacts:
            paths: [child.yml]
        run-tests:
          allow_failure: true
          needs: [generate]
          trigger:
            include:
              - artifact: child.yml
                job: generate
            strategy: depend
        """
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, ".gitlab-ci.yml": pipeline})
    (knob,) = run_audit(repo)["ci"]["knobs"]
    assert (knob["verdict"], knob["cause"]) == ("not-judged", "unseen-callee")
    assert "`child.yml`" in knob["reason"]


CALLED = """\
on:
  workflow_call:
    inputs:
      python:
        type: string
        default: "3.x"
jobs:
  run:
    runs-on: ubuntu-latest
    continue-on-error: ${{ inputs.python == '3.15' }}
    steps:
      - run: pytest tests
"""


@pytest.mark.parametrize(
    ("pythons", "verdict"),
    [
        ('["3.12", "3.15"]', "when called by test (1 of its 2 matrix entries)"),
        ('["3.12", "3.13"]', None),  # false for every entry, and the default 3.x
    ],
)
def test_a_reusable_workflows_input_is_judged_per_entry_of_its_callers_matrix(
    tmp_path, pythons, verdict
):
    caller = f"""\
on: push
jobs:
  test:
    strategy:
      matrix:
        python: {pythons}
    uses: ./.github/workflows/suite.yml
    with:
      python: ${{{{ matrix.python }}}}
  docs:
    uses: ./.github/workflows/suite.yml
"""
    files = {".github/workflows/suite.yml": CALLED, ".github/workflows/main.yml": caller}
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, **files})
    found = [f for f in run_check(repo)[1]["findings"] if f["code"] == "DET401"]
    if verdict is None:
        assert found == []
        (knob,) = [k for k in run_audit(repo)["ci"]["knobs"] if k["kind"] == "continue-on-error"]
        assert knob["cause"] == "infrastructure-statuses"
    else:
        (one,) = found
        assert verdict in one["message"]


def test_one_task_called_with_different_arguments_is_one_finding(tmp_path):
    pyproject = "[tool.hatch.envs.test.scripts]\nretry = 'pytest --reruns 3 {args:tests}'\n"
    workflow = """\
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: hatch run test:retry --ignore=tests/test_b.py
  b:
    runs-on: ubuntu-latest
    steps:
      - run: hatch run test:retry tests/test_b.py
"""
    files = {
        "pyproject.toml": pyproject,
        "tests/test_b.py": TEST,
        ".github/workflows/ci.yml": workflow,
    }
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, **files})
    (one,) = [f for f in run_check(repo)[1]["findings"] if f["code"] == "DET421"]
    assert (one["path"], one["line"]) == ("pyproject.toml", 2)
    assert "gates 2 test files" in one["message"]


@pytest.mark.parametrize(
    ("script", "codes"),
    [
        # pytest inside [[ ... ]]: the step's status is the test's, and here always 0.
        ("if [[ $(pytest tests | tail -1) == *passed* ]]; then echo ok; fi", ["DET431"]),
        ('[[ -n "$(pytest -q tests)" ]] || exit 1', []),
    ],
)
def test_commands_inside_a_double_bracket_test_are_read(tmp_path, script, codes):
    assert [code for code, _ in _ci_codes(tmp_path, _github(script))] == codes


RERUN_IF_FAILED = """\
set +e
pytest tests
status=$?
set -e
if [ $status -ne 0 ]; then
  pytest tests --last-failed
fi"""


@pytest.mark.parametrize(
    ("script", "codes"),
    [
        # However the script writes it, the same tests run again after a failure.
        (RERUN_IF_FAILED, ["DET411"]),
        ("if ! pytest tests; then\n  echo again\n  pytest tests --lf\nfi", ["DET411"]),
        ("pytest tests || true\npytest tests", ["DET411"]),
        (
            'CMD="pytest tests"\nCMD+=" -x"\neval ${CMD}" &"\npid=$!\ncode=0\n'
            'wait $pid || code=$?\nif [ "$code" != "0" ]; then eval ${CMD}" --lf"; fi',
            ["DET411"],
        ),
        # Other tests after a hidden failure are no retry of it.
        ("pytest tests/test_a.py || true\npytest tests/test_b.py", ["DET431"]),
        # A command held in a variable is the command it holds.
        ('CMD="pytest tests --reruns 2"\n$CMD', ["DET421"]),
    ],
)
def test_a_retry_is_the_same_tests_run_again_after_a_failure(tmp_path, script, codes):
    repo_files = _github(script) | {"tests/test_b.py": TEST}
    assert [code for code, _ in _ci_codes(tmp_path, repo_files)] == codes
