"""A CI run that changes what a test's own rerun marker does: the marker's finding keeps
the numbers of a plain run and names the runs where CI sees every failure.

pytest-rerunfailures reads a marker's ``only_rerun``/``rerun_except`` when the marker
names them, else the command line's (onegov-cloud's CI passes ``--only-rerun`` for
infrastructure errors only, so its markers without a filter rerun no assertion failure
there); ``-p no:rerunfailures`` disables the plugin, and the marker with it.
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, check, only

TEST = """\
import pytest


@pytest.mark.flaky({arguments})
def test_upload():
    assert upload() == 200
"""


def _workflow(*commands: str) -> str:
    steps = "".join(f"      - run: {command}\n" for command in commands)
    return f"on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n{steps}"


def _message(tmp_path, arguments: str, *commands: str) -> str:
    files = {
        **RERUNFAILURES,
        "tests/test_upload.py": TEST.format(arguments=arguments),
        ".github/workflows/ci.yml": _workflow(*commands),
    }
    found = only(check(tmp_path, files), "DET101")
    assert found["numbers"]["reported"] == pytest.approx(0.1**4)  # the plain run's figure
    return str(found["message"])


@pytest.mark.parametrize(
    ("command", "why"),
    [
        (
            "pytest --reruns 2 --only-rerun 'TimeoutError' tests",
            "its --only-rerun 'TimeoutError' reaches a marker with no filter of its own, and an "
            "assertion failure matches none",
        ),
        (
            "pytest --only-rerun 'FileNotFoundError:' tests",
            "its --only-rerun 'FileNotFoundError:' reaches a marker with no filter of its own, "
            "and an assertion failure matches none",
        ),
        (
            "pytest --rerun-except AssertionError tests",
            "its --rerun-except reaches a marker with no filter of its own and excludes it",
        ),
        ("pytest -p no:rerunfailures tests", "-p no:rerunfailures disables the plugin"),
    ],
)
def test_a_run_that_undoes_the_marker_is_named_with_its_figure(tmp_path, command, why):
    message = _message(tmp_path, "reruns=3", command)
    assert message.startswith(
        "rerun marker hides intermittent failures: a 10% violation is reported 0.010% of the "
        "time instead of 10.0% (reruns=3;"
    )
    shown = command.replace("'", "")  # the command as pytest receives its words
    assert f"; in CI, `{shown}` (.github/workflows/ci.yml:6) hides nothing of it: {why}" in (
        message
    )
    assert message.endswith("(reported 10.0% there)")


@pytest.mark.parametrize(
    ("arguments", "command"),
    [
        # the marker names its own filter: the command line's does not reach it
        ("reruns=3, only_rerun=None", "pytest --only-rerun 'TimeoutError' tests"),
        # a filter an assertion failure matches
        ("reruns=3", "pytest --only-rerun AssertionError tests"),
        # nothing on the command line changes the marker
        ("reruns=3", "pytest -x tests"),
    ],
)
def test_a_run_that_leaves_the_marker_alone_adds_nothing(tmp_path, arguments, command):
    assert "in CI" not in _message(tmp_path, arguments, command)


def test_only_the_runs_that_undo_the_marker_are_named(tmp_path):
    message = _message(
        tmp_path,
        "reruns=3",
        "pytest tests",
        "pytest --only-rerun TimeoutError tests",
    )
    assert "; in CI, `pytest --only-rerun TimeoutError tests` (.github/workflows/ci.yml:7)" in (
        message
    )
    assert "`pytest tests`" not in message


def test_a_disabled_plugin_is_no_guess_from_the_keywords(tmp_path):
    """With its only plugin disabled in every run of the config, a marker reruns nothing:
    no DET101, and no "read as pytest-rerunfailures" guess."""
    files = {
        **RERUNFAILURES,
        "pytest.ini": "[pytest]\naddopts = -p no:rerunfailures\n",
        "tests/test_upload.py": TEST.format(arguments="reruns=3"),
    }
    document = check(tmp_path, files)
    assert [f for f in document["findings"] if f["code"] == "DET101"] == []
