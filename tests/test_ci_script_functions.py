"""A script called with the name of one of its functions first (``ci.sh build``, ``.
./ci/ci.sh init``) runs that function, and the functions it calls, through a dispatch at
its top level (``"$@"``, ``$1``): the tests written in its other functions are not run
by that call, and a knob on the call acts on none of them."""

from __future__ import annotations

from repo_expectations import run_audit, run_check, written_repository

TEST = "def test_a():\n    assert True\n"

CI_SH = """\
#!/bin/bash
set -e
init() {
  pip install -e .
}
_run() {
  pytest tests
}
test_all() {
  _run
}
"$@"
"""


def _workflow(*jobs: tuple[str, str]) -> str:
    text = "on: push\njobs:\n"
    for name, run in jobs:
        text += f"  {name}:\n    runs-on: ubuntu-latest\n    steps:\n      - run: {run}\n"
    return text


def _findings(tmp_path, workflow: str) -> list[dict]:
    repo = written_repository(
        tmp_path,
        {"tests/test_a.py": TEST, "ci/ci.sh": CI_SH, ".github/workflows/ci.yml": workflow},
    )
    _, document = run_check(repo)
    return [f for f in document["findings"] if f["code"].startswith("DET4")]


def test_a_call_of_a_function_without_tests_masks_no_test_failure(tmp_path):
    assert _findings(tmp_path, _workflow(("setup", "./ci/ci.sh init || true"))) == []


def test_a_call_of_a_function_that_reaches_tests_through_another_function_masks_them(tmp_path):
    (found,) = _findings(tmp_path, _workflow(("unit", "./ci/ci.sh test_all || true")))
    assert found["code"] == "DET431"
    assert (found["path"], found["line"]) == ("ci/ci.sh", 7)
    assert "step 'unit'" in found["message"]


def test_a_sourced_script_called_with_a_function_name_is_read_the_same(tmp_path):
    workflow = _workflow(("setup", ". ./ci/ci.sh init && echo ready"))
    assert _findings(tmp_path, workflow) == []


def test_a_script_called_without_a_function_name_runs_everything_it_holds(tmp_path):
    # `./ci/ci.sh` with no argument: the dispatch runs nothing detlint can name, so every
    # run the script writes is taken as reachable, as before.
    (found,) = _findings(tmp_path, _workflow(("all", "./ci/ci.sh || true")))
    assert found["code"] == "DET431"


def test_an_argument_that_names_no_function_keeps_the_whole_script(tmp_path):
    (found,) = _findings(tmp_path, _workflow(("other", "./ci/ci.sh --verbose || true")))
    assert found["code"] == "DET431"


def test_the_setup_call_is_named_in_the_census_as_running_no_tests(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": TEST,
            "ci/ci.sh": CI_SH,
            ".github/workflows/ci.yml": _workflow(("setup", "./ci/ci.sh init || true")),
        },
    )
    (knob,) = [k for k in run_audit(repo)["ci"]["knobs"] if k["path"] == ".github/workflows/ci.yml"]
    assert knob["cause"] == "runs-no-tests"
    assert "`./ci/ci.sh`" in knob["reason"]


def test_functions_the_top_level_calls_run_with_the_dispatched_one(tmp_path):
    # `_prelude` runs at the top level before the dispatch, and `trap _epilogue EXIT`
    # after it: a call of any function runs both.
    script = """\
#!/bin/bash
_prelude() {
  pytest tests/smoke || true
}
_epilogue() {
  echo done
}
build() {
  pip wheel .
}
trap _epilogue EXIT
_prelude
"$@"
"""
    repo = written_repository(
        tmp_path,
        {
            "tests/smoke/test_a.py": TEST,
            "ci/ci.sh": script,
            ".github/workflows/ci.yml": _workflow(("build", "./ci/ci.sh build")),
        },
    )
    _, document = run_check(repo)
    (found,) = [f for f in document["findings"] if f["code"] == "DET431"]
    assert (found["path"], found["line"]) == ("ci/ci.sh", 3)
