"""DET103 on a retried function many tests call, shaped on nginx-proxy's test_dhparam.py:
`assert_log_contains` under `backoff.on_exception(backoff.constant, AssertionError,
max_tries=15)`, called once by most tests (on one line or over several, with keywords,
awaited, as a method of the test's class) and twice by one. Every test that calls it
is counted: those that call it once in the figure, the one that calls it twice named
as not judged (each call is retried on its own).
"""

from __future__ import annotations

from realworld_cases import check, findings

TESTS = """\
import backoff
import pytest


@backoff.on_exception(backoff.constant, AssertionError, interval=2, max_tries=15, jitter=None)
def assert_log_contains(expected, container_name="proxy"):
    assert expected in read_logs(container_name)


def test_one_line():
    assert_log_contains("Setting up DH Parameters..", "proxy")


def test_several_lines():
    assert_log_contains(
        "Setting up DH Parameters..",
        container_name="proxy",
    )


async def test_awaited_around():
    await start()
    assert_log_contains(
        "Skipping",
    )


def test_twice():
    assert_log_contains("deprecated")
    assert_log_contains("Skipping")


def test_unrelated():
    assert read_logs("proxy")
"""


def test_every_caller_of_a_retried_function_is_counted(tmp_path):
    repository = {"requirements-test.txt": "pytest\nbackoff==2.2.1\n", "tests/test_dh.py": TESTS}
    (found,) = findings(check(tmp_path, repository), "DET103")
    assert found["line"] == 5
    assert found["message"] == (
        "retry decorator backoff.on_exception hides intermittent failures: a 10% violation "
        "is reported <0.001% of the time instead of 10.0% (15 attempts; on "
        "assert_log_contains (line 6), which the test calls: it retries the checks that "
        "function holds, and the figure is for a violation among them; 1 attempt, no "
        "trial loop recognised; covers 3 tests, 3 test instances; not judged for the test "
        "test_twice: it retries each call of assert_log_contains on its own, and the test "
        "calls it 2 times: one attempt count does not describe the test)"
    )
