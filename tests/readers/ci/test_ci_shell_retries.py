"""Retries written in the CI script are retries: ``pytest || pytest --lf`` and
``for i in 1 2 3; do pytest && break; done`` are one DET411 with their attempts,
composed like a job retry; a loop that ends with status 0 whatever pytest said
hides the failure (DET431)."""

from __future__ import annotations

import pytest
from repo_expectations import run_check, written_repository

from detlint.readers.ci.shell.commands import read_command

TEST = "def test_a():\n    assert True\n"


def _workflow(script: str) -> str:
    body = "\n".join("          " + line for line in script.splitlines())
    return (
        "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"      - run: |\n{body}\n"
    )


def _findings(tmp_path, script: str, extra: dict[str, str] | None = None) -> list[dict]:
    files = {"tests/test_a.py": TEST, ".github/workflows/ci.yml": _workflow(script)}
    repo = written_repository(tmp_path, {**files, **(extra or {})})
    _, document = run_check(repo)
    return document["findings"]


@pytest.mark.parametrize(
    ("script", "attempts", "reported", "line"),
    [
        ("pytest tests || pytest --lf tests", 2, "1.0%", 7),
        ("pytest tests || pytest tests || pytest tests", 3, "0.10%", 7),
        ("for i in 1 2 3; do\n  pytest tests && break\ndone", 3, "0.10%", 8),
        ("for i in {1..4}; do pytest tests && break; done", 4, "0.010%", 7),
        ("for i in $(seq 1 3); do pytest tests && break; done", 3, "0.10%", 7),
    ],
)
def test_a_shell_retry_is_one_retry_of_its_attempts(tmp_path, script, attempts, reported, line):
    (found,) = _findings(tmp_path, script)
    assert found["code"] == "DET411"
    assert (
        f"a 10% violation is reported {reported} of the time instead of 10.0%" in (found["message"])
    )
    assert found["numbers"]["reported"] == pytest.approx(0.1**attempts)
    assert found["line"] == line  # the first pytest command, in the workflow


def test_the_retry_says_which_shape_it_is(tmp_path):
    (chain,) = _findings(tmp_path / "chain", "pytest tests || pytest --lf tests")
    assert chain["message"].startswith(
        "`|| pytest --lf` reruns the tests that failed (2 attempts in all)"
    )
    (loop,) = _findings(tmp_path / "loop", "for i in 1 2 3; do pytest tests && break; done")
    assert loop["message"].startswith(
        "a `for` loop of 3 rounds runs the tests again until they pass"
    )


@pytest.mark.parametrize(
    "script",
    [
        # The last round ends with `sleep`'s status, or with the `if`'s (0 without else).
        "for i in 1 2 3; do pytest tests && break; sleep 5; done",
        "for i in 1 2 3; do if pytest tests; then break; fi; done",
    ],
)
def test_a_loop_that_passes_after_its_last_round_hides_the_failure(tmp_path, script):
    (found,) = _findings(tmp_path, script)
    assert found["code"] == "DET431"
    assert found["numbers"]["reported"] == 0


def test_a_loop_of_unknown_rounds_is_no_retry(tmp_path):
    assert _findings(tmp_path, "for i in $ROUNDS; do pytest tests && break; done") == []


def test_reruns_inside_pytest_then_a_last_failed_run_is_not_multiplied(tmp_path):
    # 3 attempts inside pytest, then 1 more for the failed: 4 in all, not 3 x 2.
    found = _findings(
        tmp_path,
        "pytest tests --reruns 2 || pytest --lf tests",
        {"requirements.txt": "pytest-rerunfailures\n"},
    )
    assert [f["code"] for f in found] == ["DET421"]


def test_the_same_command_again_composes_with_its_reruns(tmp_path):
    found = _findings(
        tmp_path,
        "pytest tests --reruns 1 || pytest tests --reruns 1",
        {"requirements.txt": "pytest-rerunfailures\n"},
    )
    codes = sorted(f["code"] for f in found)
    assert codes == ["DET411", "DET421", "DET501"]  # one --reruns knob location: one finding
    (stacked,) = [f for f in found if f["code"] == "DET501"]
    assert "up to 4 attempts in total" in stacked["message"]


def test_the_retried_command_reads_as_a_retry_not_a_mask():
    first, second = read_command("pytest a || pytest --last-failed a").runs
    assert (first.retry_attempts, first.retry_shape, first.masked) == (2, "|| pytest --lf", None)
    assert second.retry_attempts is None


def test_last_failed_set_in_a_variable_is_read(tmp_path):
    # bokeh's unit-test step: the retry's --last-failed comes from $POLICY.
    (found,) = _findings(
        tmp_path,
        'POLICY="--last-failed --last-failed-no-failures none"\n'
        "pytest --color=yes tests || pytest --color=yes $POLICY tests",
    )
    assert found["code"] == "DET411"
    assert found["message"].startswith("`|| pytest --lf` reruns the tests that failed")
