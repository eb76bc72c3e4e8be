"""Three shapes of CI script read for what they do to a failing test run: a ``while`` or
``until`` retry loop that counts its attempts and gives up with ``exit 1`` (a retry of
that many attempts, DET411); a failure saved in a variable (``|| TEST_STATUS=FAIL``),
which hides nothing when a later command fails the step on it and is named without a
figure when the script reads it to another end; and ``pytest --collect-only``, which
runs no test."""

from __future__ import annotations

import pytest
from repo_expectations import run_check, written_repository

from detlint.readers.ci.shell.arithmetic import evaluate

TEST = "def test_a():\n    assert True\n"


def _workflow(script: str) -> str:
    body = "\n".join("          " + line for line in script.splitlines())
    return (
        "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"      - run: |\n{body}\n"
    )


def _findings(tmp_path, script: str) -> list[dict]:
    files = {"tests/test_a.py": TEST, ".github/workflows/ci.yml": _workflow(script)}
    _, document = run_check(written_repository(tmp_path, files))
    return [f for f in document["findings"] if f["code"].startswith("DET4")]


# The shape of NVIDIA spark-rapids' mvn-verify-check.yml: 4 attempts, then exit 1
# (checked with bash -e: the command runs 4 times and the script ends with status 1).
COUNTED_WHILE = """\
max_retry=3; delay=30; i=1
while true; do
  pytest tests && break || {
  if [[ $i -le $max_retry ]]; then
    echo "Retry $i/$max_retry."; ((i++)); sleep $delay; ((delay=delay*2))
  else
    echo "failed"; exit 1
  fi
  }
done"""
COUNTED_UNTIL = """\
attempt=1
until pytest tests; do
  if [ $attempt -ge 3 ]; then exit 1; fi
  attempt=$((attempt+1))
done"""
BOUNDED_WHILE = """\
n=0
while [ $n -lt 2 ]; do
  pytest tests && exit 0
  n=$((n+1))
done
exit 1"""


@pytest.mark.parametrize(
    ("script", "what", "attempts", "reported", "line"),
    [
        (COUNTED_WHILE, "a `while` loop of 4 rounds", 4, "0.010%", 9),
        (COUNTED_UNTIL, "an `until` loop of 3 rounds", 3, "0.10%", 8),
        (BOUNDED_WHILE, "a `while` loop of 2 rounds", 2, "1.0%", 9),
    ],
)
def test_a_counted_retry_loop_that_gives_up_failing_is_a_retry_of_its_rounds(
    tmp_path, script, what, attempts, reported, line
):
    (found,) = _findings(tmp_path, script)
    assert found["code"] == "DET411"
    assert found["line"] == line
    assert found["message"].startswith(f"{what} runs the tests again until they pass: ")
    assert (
        f"a 10% violation is reported {reported} of the time instead of 10.0%" in (found["message"])
    )
    assert found["numbers"]["reported"] == pytest.approx(0.1**attempts)


def test_a_counted_loop_around_another_runner_is_a_retry_of_its_rounds(tmp_path):
    (found,) = _findings(tmp_path, COUNTED_WHILE.replace("pytest tests", "mvn verify"))
    assert found["code"] == "DET411"
    assert found["message"].startswith("a `while` loop of 4 rounds runs the tests again")
    assert "reported 0.010% of the time" in found["message"]
    assert "`mvn verify` runs" in found["message"]


@pytest.mark.parametrize(
    "script",
    [
        # retries until the tests pass, however many rounds: a violation is never reported
        "until pytest tests; do sleep 1; done",
        "while true; do pytest tests && break; sleep 5; done",
        # gives up after its rounds with status 0
        "i=0\nwhile [ $i -lt 3 ]; do pytest tests && break; i=$((i+1)); done",
    ],
)
def test_a_loop_that_never_fails_the_step_hides_the_failure(tmp_path, script):
    (found,) = _findings(tmp_path, script)
    assert found["code"] == "DET431"
    assert found["numbers"]["reported"] == 0


@pytest.mark.parametrize(
    "script",
    [
        'pytest tests || FAILED=1\necho done\n[ -z "$FAILED" ] || exit 1',
        "pytest tests || status=$?\necho done\nexit $status",
        "set +e\npytest tests\nrc=$?\necho done\nexit $rc",
        "pytest tests || failures+=(unit)\necho done\n[ ${#failures[@]} -eq 0 ] || exit 1",
        "TEST_STATUS=PASS\npytest tests || TEST_STATUS=FAIL\n"
        "if [[ $TEST_STATUS == FAIL ]]; then exit 1; fi",
        "set +e\nfailed=0\npytest tests || ((failed++))\nexit $failed",
    ],
)
def test_a_saved_failure_the_script_fails_the_step_on_hides_nothing(tmp_path, script):
    assert _findings(tmp_path, script) == []


@pytest.mark.parametrize(
    ("script", "phrase", "variable", "line"),
    [
        # the shape of intel-xpu-backend-for-triton's check-update-translator-cid.sh
        (
            "TEST_STATUS=PASS\npytest tests || TEST_STATUS=FAIL\n"
            "if [ $TEST_STATUS = PASS ]; then echo good; else echo bad; fi",
            "`|| TEST_STATUS=FAIL`",
            "TEST_STATUS",
            8,
        ),
        (
            'pytest tests || FAILED=1\necho "failed=$FAILED" >> $GITHUB_OUTPUT',
            "`|| FAILED=1`",
            "FAILED",
            7,
        ),
        ("set +e\npytest tests\nrc=$?\ncp log-$rc.txt out/", "`set +e`", "rc", 8),
    ],
)
def test_a_saved_failure_read_to_another_end_is_named_without_a_figure(
    tmp_path, script, phrase, variable, line
):
    (found,) = _findings(tmp_path, script)
    assert found["code"] == "DET431"
    assert found["line"] == line
    assert found["message"].startswith(
        f"{phrase} keeps pytest's exit status from failing step 'test'; the failure is "
        f"saved in `${variable}`, which the script reads later but not to fail the step"
    )
    assert "no figure" in found["message"]
    assert "%" not in found["message"]
    assert found["numbers"] is None


@pytest.mark.parametrize(
    "script",
    [
        "pytest tests || FAILED=1\necho done",  # never read
        'set +e\npytest tests\nrc=$?\necho "pytest said $rc"',  # only printed
    ],
)
def test_a_saved_failure_nothing_acts_on_is_hidden(tmp_path, script):
    (found,) = _findings(tmp_path, script)
    assert found["code"] == "DET431"
    assert "reported 0% of the time instead of 10.0%" in found["message"]
    assert found["numbers"]["reported"] == 0


@pytest.mark.parametrize(
    "script",
    [
        "pytest --collect-only -q | grep -q fenics && echo needed=true >> $GITHUB_OUTPUT",
        "pytest --co tests | grep -q gpu || true",
        "python -m pytest --collectonly tests > /dev/null || echo none",
    ],
)
def test_a_collect_only_run_runs_no_test_and_gets_no_finding(tmp_path, script):
    assert _findings(tmp_path, script) == []


def test_a_collect_only_run_does_not_hide_the_real_run_after_it(tmp_path):
    script = "if pytest tests --collect-only > /dev/null 2>&1; then\n  pytest tests || true\nfi"
    (found,) = _findings(tmp_path, script)
    assert (found["code"], found["line"]) == ("DET431", 8)
    assert found["message"].startswith("`|| true` hides pytest's exit status")


@pytest.mark.parametrize(
    ("expression", "before", "value", "after"),
    [
        ("i++", {"i": "1"}, 1, {"i": "2"}),
        ("++i", {"i": "1"}, 2, {"i": "2"}),
        ("delay=delay*2", {"delay": "30"}, 60, {"delay": "60"}),
        ("n+=3", {"n": "4"}, 7, {"n": "7"}),
        ("$i <= $max", {"i": "4", "max": "3"}, 0, {"i": "4", "max": "3"}),
        ("-7 / 2", {}, -3, {}),
        ("i++", {}, None, {}),  # unknown: forgotten, not guessed
        ("k = x + 1", {"k": "2"}, None, {}),
    ],
)
def test_arithmetic_on_counters(expression, before, value, after):
    variables = dict(before)
    assert evaluate(expression, variables) == value
    assert variables == after
