"""DET103 on a retry decorator on a function a test calls, which holds the test's
checks: its failing assertions are retried, so a violation among them is reported only
if every attempt shows it, as for a retry decorator on the test. The finding is at the
decorator and covers the tests that call the function; a function with no checks, or
one no test calls, gives nothing.
"""

from __future__ import annotations

import pytest
from realworld_cases import check, findings

CONDITION = '''\
import functools


def retry(times):
    """Call a failing check again, up to `times` times in all."""

    def decorator(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            for attempt in range(times):
                try:
                    return f(*args, **kwargs)
                except AssertionError:
                    if attempt == times - 1:
                        raise

        return wrapper

    return decorator
'''

TESTS = """\
from tenacity import retry, stop_after_attempt

from tests import _condition


class TestLinalg:
    @_condition.retry(4)
    def check_x(self, shape):
        assert shape == (3, 3)

    @_condition.retry(5)
    def build(self, shape):
        return list(shape)

    @_condition.retry(6)
    def check_unused(self, shape):
        assert shape

    def test_inv(self):
        self.check_x((3, 3))

    def test_solve(self):
        self.check_x((3, 3))

    def test_build(self):
        assert self.build((3, 3))


@retry(stop=stop_after_attempt(3))
def _check(value):
    assert value == 1


def test_foo():
    _check(1)


def test_in_a_loop():
    for value in (1, 1):
        _check(value)
"""

REPOSITORY = {
    "requirements-test.txt": "pytest\ntenacity\n",
    "tests/__init__.py": "",
    "tests/_condition.py": CONDITION,
    "tests/test_helpers.py": TESTS,
}


def _by_line(tmp_path) -> dict[int, dict]:
    found = findings(check(tmp_path, REPOSITORY), "DET103")
    assert all(f["path"] == "tests/test_helpers.py" for f in found)
    return {f["line"]: f for f in found}


def test_a_retried_method_the_tests_call_is_reported_at_its_decorator(tmp_path):
    found = _by_line(tmp_path)[7]
    assert found["message"] == (
        "retry decorator _condition.retry (tests/_condition.py:4, a loop) hides intermittent "
        "failures: a 10% violation is reported 0.010% of the time instead of 10.0% (4 "
        "attempts from times=4 at the call; on check_x (line 8), which the test calls: it "
        "retries the checks that function holds, and the figure is for a violation among "
        "them; 1 attempt, no trial loop recognised; covers 2 tests, 2 test instances)"
    )
    assert found["numbers"]["reported"] == pytest.approx(0.1**4)
    assert found["numbers"]["reported_without"] == pytest.approx(0.1)


def test_a_retried_module_function_the_test_calls(tmp_path):
    found = _by_line(tmp_path)[29]
    assert (
        "retry decorator tenacity.retry hides intermittent failures: a 10% violation"
        in (found["message"])
    )
    assert "(3 attempts; on _check (line 30), which the test calls" in found["message"]
    assert found["numbers"]["reported"] == pytest.approx(0.1**3)


def test_no_checks_no_caller_or_a_loop_give_nothing(tmp_path):
    """`build` asserts nothing, `check_unused` is called by no test, and `test_in_a_loop`
    retries each call on its own: no figure is claimed for it (the decorator's finding
    covers `test_foo` alone)."""
    found = _by_line(tmp_path)
    assert set(found) == {7, 29}
    assert "covers" not in found[29]["message"]
