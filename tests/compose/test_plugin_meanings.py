"""What ``@pytest.mark.flaky`` and pytest-rerunfailures' session options mean, end to end.

pytest-ignore-flaky (coherent-oss/pytest-ignore-flaky 2.2.1) registers the marker and,
only under ``--ignore-flaky``, turns a failed report of a marked test into XFAIL in its
``pytest_runtest_makereport`` wrapper; pytest-enabler's ``default.toml`` adds that option
whenever the plugin is installed. pytest-rerunfailures 16.x: ``--reruns-mode append``
adds the global count to a marker's, ``--max-suite-reruns N`` stops every rerun once the
session has had N, ``--rerun-exclude-path`` makes its protocol return before any count is
read, and ``--fail-on-flaky`` turns a green run with a rerun into exit 7.

Each was also run (pytest 9.2.0, pytest-rerunfailures 16.7, pytest-ignore-flaky 2.2.1,
pytest-enabler 3.4.0): a `flaky(reruns=1)` test failing every time ran 4 times under
`--reruns 2 --reruns-mode append`; `--max-suite-reruns 3` gave the first tests 3 reruns and
the later ones none; with `--max-suite-reruns 0` or under `--rerun-exclude-path` nothing ran
twice, marked or not; a pass on a rerun under `--fail-on-flaky` exited 7; under
`--ignore-flaky` the marked test ran once and was XFAIL, `--reruns 2` or not; pytest-enabler
alone made it XFAIL (exit 0), and an empty `[tool.pytest-enabler.ignore_flaky]` table or
`-p no:ignore_flaky` gave the rerun plugin the marker back.
"""

from __future__ import annotations

import pytest
from realworld_cases import check, findings, only
from repo_expectations import run_audit

MARKED = """\
import pytest


@pytest.mark.flaky(reruns=2)
def test_a():
    assert run() == 1
"""
BARE = MARKED.replace("flaky(reruns=2)", "flaky")
BOTH = {"requirements.txt": "pytest-rerunfailures==16.7\npytest-ignore-flaky==2.2.1\n"}
ONE_ATTEMPT = "1 attempt, no trial loop recognised"


def _check(tmp_path, files: dict[str, str]) -> dict:
    return check(tmp_path, {"tests/test_a.py": MARKED, **files})


def _workflow(command: str) -> dict[str, str]:
    return {
        ".github/workflows/ci.yml": f"""\
            on: push
            jobs:
              test:
                runs-on: ubuntu-latest
                steps:
                  - run: {command}
            """
    }


IGNORED = (
    "`flaky` marker never blocks: pytest-ignore-flaky reports a failure of the test as XFAIL "
    "({source}), so a 10% violation is reported 0% of the time instead of 10.0% and shows "
    f"only as XFAIL ({ONE_ATTEMPT})"
)


def test_ignore_flaky_in_addopts_makes_the_marker_a_gate_that_never_blocks(tmp_path):
    document = _check(tmp_path, {**BOTH, "pytest.ini": "[pytest]\naddopts = --ignore-flaky\n"})
    found = only(document, "DET101")
    assert found["line"] == 4
    assert found["message"] == IGNORED.format(source="--ignore-flaky at pytest.ini:2")
    assert [f["code"] for f in findings(document)] == ["DET101"]


def test_without_the_option_the_rerun_plugin_reads_the_marker(tmp_path):
    found = only(_check(tmp_path, BOTH), "DET101")
    assert found["message"] == (
        "rerun marker hides intermittent failures: a 10% violation is reported 0.10% of the "
        "time instead of 10.0% (reruns=2; pytest-rerunfailures==16.7 from requirements.txt:1; "
        f"{ONE_ATTEMPT})"
    )


def test_pytest_ignore_flaky_alone_without_the_option_reruns_nothing(tmp_path):
    files = {"requirements.txt": "pytest-ignore-flaky\n"}
    found = only(_check(tmp_path, files), "DET102")
    assert found["message"] == (
        "pytest-ignore-flaky, the one plugin declared that knows `flaky`, reads no arguments "
        "and, without --ignore-flaky, does nothing with the marker: the test is not rerun "
        "(pytest-ignore-flaky from requirements.txt:1)"
    )
    # A bare marker is the plugin's own spelling: registered, and nothing to say.
    assert findings(check(tmp_path / "bare", {**files, "tests/test_a.py": BARE})) == []


def test_pytest_enabler_gives_the_option_wherever_the_plugin_is_installed(tmp_path):
    files = {"requirements.txt": "pytest-ignore-flaky\npytest-enabler\n"}
    found = only(_check(tmp_path, files), "DET101")
    assert found["message"] == IGNORED.format(
        source="--ignore-flaky from pytest-enabler, which adds it when pytest-ignore-flaky is "
        "installed"
    )


@pytest.mark.parametrize(
    "extra",
    [
        {"pyproject.toml": "[tool.pytest-enabler.ignore_flaky]\naddopts = '-p no:cacheprovider'\n"},
        {"pytest.ini": "[pytest]\naddopts = -p no:ignore_flaky\n"},
        {"pytest.ini": "[pytest]\naddopts = -p no:enabler\n"},
    ],
)
def test_pytest_enabler_gives_no_option_where_the_project_says_otherwise(tmp_path, extra):
    files = {"requirements.txt": "pytest-ignore-flaky\npytest-enabler\n", **extra}
    document = _check(tmp_path, files)
    assert not any("pytest-ignore-flaky reports" in f["message"] for f in findings(document))
    assert "DET102" in {f["code"] for f in findings(document)}


def test_ignore_flaky_on_a_ci_command_line(tmp_path):
    document = _check(tmp_path, {**BOTH, **_workflow("pytest tests --ignore-flaky")})
    found = only(document, "DET421")
    assert (found["path"], found["line"]) == (".github/workflows/ci.yml", 6)
    assert found["message"] == (
        "`--ignore-flaky` (pytest-ignore-flaky) reports every failure of a `flaky`-marked test "
        "of step 'test' as XFAIL: a 10% violation is reported 0% of the time instead of 0.10% "
        "in tests/test_a.py::test_a (gates 1 test file under tests)"
    )


def test_reruns_mode_append_adds_the_global_count_to_the_markers(tmp_path):
    files = {
        "requirements.txt": "pytest-rerunfailures\n",
        "pytest.ini": "[pytest]\naddopts = --reruns 2 --reruns-mode append\n",
    }
    document = _check(tmp_path, files)
    assert only(document, "DET101")["message"] == (
        "rerun marker hides intermittent failures: a 10% violation is reported <0.001% of the "
        "time instead of 10.0% (reruns=4; pytest-rerunfailures from requirements.txt:1; "
        f"--reruns-mode append: 2 from the marker plus 2 from addopts --reruns; {ONE_ATTEMPT})"
    )
    assert only(document, "DET104")["message"] == (
        "addopts --reruns 2 reruns every test, and adds to each marker's own count "
        "(--reruns-mode append): a test failing 10% of its attempts is reported 0.10% of the "
        "time instead of 10%"
    )


def test_reruns_mode_append_on_a_ci_command_line(tmp_path):
    files = {
        "requirements.txt": "pytest-rerunfailures\n",
        **_workflow("pytest tests --reruns 2 --reruns-mode append"),
    }
    assert only(_check(tmp_path, files), "DET421")["message"] == (
        "`--reruns 2` reruns every failing test of step 'test', and adds to each `flaky` "
        "marker's own count (--reruns-mode append): a 10% violation is reported <0.001% of the "
        "time instead of 0.10% in tests/test_a.py::test_a (gates 1 test file under tests)"
    )


CAPPED = (
    "--max-suite-reruns 5 stops the reruns once the session has had 5: a test may be rerun "
    "fewer times and reported more often, so this is the most it can hide"
)


def test_max_suite_reruns_makes_the_loss_the_most_it_can_be(tmp_path):
    files = {
        "requirements.txt": "pytest-rerunfailures\n",
        "pytest.ini": "[pytest]\naddopts = --reruns 3 --max-suite-reruns 5\n",
    }
    document = _check(tmp_path, files)
    assert only(document, "DET101")["message"] == (
        "rerun marker hides intermittent failures: a 10% violation is reported 0.10% of the "
        f"time instead of 10.0% (reruns=2; pytest-rerunfailures from requirements.txt:1; "
        f"{CAPPED}; {ONE_ATTEMPT})"
    )
    assert only(document, "DET104")["message"] == (
        "addopts --reruns 3 reruns every test without its own marker: a test failing 10% of "
        f"its attempts is reported 0.010% of the time instead of 10% ({CAPPED})"
    )


def test_max_suite_reruns_0_reruns_nothing(tmp_path):
    files = {
        "requirements.txt": "pytest-rerunfailures\n",
        "pytest.ini": "[pytest]\naddopts = --reruns 3 --max-suite-reruns 0\n",
        **_workflow("pytest tests --reruns 2 --max-suite-reruns 0"),
    }
    assert findings(_check(tmp_path, files)) == []


def test_max_suite_reruns_on_a_ci_command_line(tmp_path):
    files = {
        "requirements.txt": "pytest-rerunfailures\n",
        "tests/test_b.py": "def test_b():\n    assert run() == 1\n",
        **_workflow("pytest tests --reruns 3 --max-suite-reruns 5"),
    }
    assert only(_check(tmp_path, files), "DET421")["message"] == (
        "`--reruns 3` reruns every failing test of step 'test': a 10% violation is reported "
        "0.010% of the time instead of 10.0% in tests/test_b.py (tests without knobs) "
        f"(gates 2 test files under tests); {CAPPED}"
    )


def test_a_test_under_a_rerun_exclude_path_is_not_rerun(tmp_path):
    files = {
        "requirements.txt": "pytest-rerunfailures\n",
        "pytest.ini": "[pytest]\naddopts = --reruns 3 --rerun-exclude-path tests\n",
        **_workflow("pytest tests --reruns 2 --rerun-exclude-path tests"),
    }
    # The marker and the command line rerun nothing there; the config's setting is read
    # alone, and says where it still reaches.
    (found,) = findings(_check(tmp_path, files))
    assert found["message"] == (
        "addopts --reruns 3 reruns every test without its own marker outside `tests` "
        "(--rerun-exclude-path): a test failing 10% of its attempts is reported 0.010% of the "
        "time instead of 10%"
    )


def test_the_config_reruns_reach_the_tests_outside_the_excluded_path(tmp_path):
    files = {
        "requirements.txt": "pytest-rerunfailures\n",
        "pytest.ini": "[pytest]\naddopts = --reruns 3 --rerun-exclude-path tests/slow\n",
        "tests/slow/test_s.py": "def test_s():\n    assert run() == 1\n",
        "tests/test_b.py": "def test_b():\n    assert run() == 1\n",
    }
    document = _check(tmp_path, files)
    # It quotes the test outside the excluded path; tests/slow/test_s.py is not rerun.
    assert only(document, "DET104")["message"] == (
        "addopts --reruns 3 reruns every test without its own marker outside `tests/slow` "
        "(--rerun-exclude-path): a 10% violation is reported 0.010% of the time instead of "
        "10.0% in tests/test_b.py::test_b (1 attempt, no trial loop recognised)"
    )
    assert only(document, "DET101")["path"] == "tests/test_a.py"


def test_fail_on_flaky_leaves_every_rerun_visible_and_says_so(tmp_path):
    files = {
        "requirements.txt": "pytest-rerunfailures\n",
        **_workflow("pytest tests --reruns 2 --fail-on-flaky"),
    }
    assert [f["code"] for f in findings(_check(tmp_path, files))] == ["DET101"]
    (knob,) = [k for k in run_audit(tmp_path)["ci"]["knobs"] if k["kind"] == "rerun-option"]
    assert (knob["verdict"], knob["cause"]) == ("no-finding", "visible-reruns")
    assert knob["reason"] == (
        "--fail-on-flaky makes a test that passes only on a rerun fail the step (exit 7): the "
        "reruns hide no failure"
    )


@pytest.mark.parametrize(
    "filters",
    ["--only-rerun NoBrokersAvailable", "--only-rerun OSError --only-rerun TimeoutError"],
)
def test_config_reruns_filtered_to_other_errors_hide_no_violation(tmp_path, filters):
    files = {
        "requirements.txt": "pytest-rerunfailures\n",
        "pytest.ini": f"[pytest]\naddopts = --reruns 3 {filters} --reruns-delay 30\n",
    }
    document = check(
        tmp_path, {"tests/test_b.py": "def test_b():\n    assert run() == 1\n", **files}
    )
    assert findings(document) == []


def test_config_reruns_whose_filter_may_match_an_assertion_are_still_reported(tmp_path):
    files = {
        "requirements.txt": "pytest-rerunfailures\n",
        "pytest.ini": "[pytest]\naddopts = --reruns 3 --only-rerun AssertionError\n",
    }
    document = check(
        tmp_path, {"tests/test_b.py": "def test_b():\n    assert run() == 1\n", **files}
    )
    assert only(document, "DET104")["message"] == (
        "addopts --reruns 3 reruns every test without its own marker: a 10% violation is "
        "reported 0.010% of the time instead of 10.0% in tests/test_b.py::test_b (1 attempt, "
        "no trial loop recognised)"
    )
