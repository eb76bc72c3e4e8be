"""DET103 on a retry decorator on a function a test calls, which holds the test's
checks: its failing assertions are retried, so a violation among them is reported only
if every attempt shows it, as for a retry decorator on the test. The finding is at the
decorator and covers the tests that call the function; a function with no checks, one
no test calls, or one a test calls in a loop gives nothing.
"""

from __future__ import annotations

import pytest
from realworld_cases import check, findings

# Counts passes and failures: passes once at least `min_success` attempts pass.
CONDITION = """\
import functools


def repeat_with_success_at_least(times, min_success):
    def decorator(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            successes = failures = 0
            for _ in range(times):
                try:
                    f(*args, **kwargs)
                    successes += 1
                except AssertionError:
                    failures += 1
                if successes >= min_success:
                    return
                if failures > times - min_success:
                    raise AssertionError(f"Fail: {failures}, Success: {successes}")

        return wrapper

    return decorator


def repeat(times):
    return repeat_with_success_at_least(times, times)


def retry(times):
    return repeat_with_success_at_least(times, 1)


def first_success(times):
    def decorator(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            for _ in range(times):
                try:
                    return f(*args, **kwargs)
                except AssertionError:
                    pass
            raise AssertionError(f"failed {times} times")

        return wrapper

    return decorator
"""

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

    @_condition.first_success(2)
    def check_y(self, value):
        assert value

    @_condition.repeat(3)
    def check_z(self, value):
        assert value

    def test_inv(self):
        self.check_x((3, 3))

    def test_solve(self):
        self.check_x((3, 3))

    def test_build(self):
        assert self.build((3, 3))

    def test_first(self):
        self.check_y(1)

    def test_repeated(self):
        self.check_z(1)


@retry(stop=stop_after_attempt(3))
def _check(value):
    assert value == 1


def test_foo():
    _check(1)


def test_in_a_loop():
    for value in (1, 1):
        _check(value)


@_condition.retry(2)
def test_direct():
    assert 1


class Base:
    @_condition.retry(3)
    def check_base(self, value):
        assert value


class TestChild(Base):
    def test_child(self):
        self.check_base(1)

    def test_two(self):
        self.check_base(1)
        _check(1)
"""

REPOSITORY = {
    "requirements-test.txt": "pytest\\ntenacity\\n",
    "tests/__init__.py": "",
    "tests/_condition.py": CONDITION,
    "tests/test_helpers.py": TESTS,
}

THROUGH = (
    "which the test calls: it retries the checks that function holds, and the figure is "
    "for a violation among them; 1 attempt, no trial loop recognised"
)


def _by_line(tmp_path) -> dict[int, dict]:
    found = findings(check(tmp_path, REPOSITORY), "DET103")
    assert all(f["path"] == "tests/test_helpers.py" for f in found)
    return {f["line"]: f for f in found}


def test_a_retried_method_the_tests_call_is_reported_at_its_decorator(tmp_path):
    """`retry(times)` hands on to `repeat_with_success_at_least(times, 1)`: a plain
    retry of `times` attempts; both tests that call `check_x` are covered."""
    found = _by_line(tmp_path)[7]
    assert found["message"] == (
        "retry decorator _condition.retry (tests/_condition.py:29, a loop) hides "
        "intermittent failures: a 10% violation is reported 0.010% of the time instead of "
        f"10.0% (4 attempts from times=4 at the call; on check_x (line 8), {THROUGH}; "
        "covers 2 tests, 2 test instances)"
    )
    assert found["numbers"]["reported"] == pytest.approx(0.1**4)
    assert found["numbers"]["reported_without"] == pytest.approx(0.1)


def test_a_loop_that_returns_on_the_first_success(tmp_path):
    found = _by_line(tmp_path)[19]
    assert found["message"] == (
        "retry decorator _condition.first_success (tests/_condition.py:33, a loop) hides "
        "intermittent failures: a 10% violation is reported 1.0% of the time instead of "
        f"10.0% (2 attempts from times=2 at the call; on check_y (line 20), {THROUGH})"
    )
    assert found["numbers"]["reported"] == pytest.approx(0.1**2)


def test_a_decorator_that_wants_every_attempt_to_pass_is_no_retry(tmp_path):
    """`repeat(3)` fails at the first failing attempt (`failures > times - times`): it
    hides nothing, so `check_z` gives no finding."""
    assert 23 not in _by_line(tmp_path)


def test_a_retried_module_function_the_test_calls(tmp_path):
    found = _by_line(tmp_path)[43]
    assert found["message"] == (
        "retry decorator tenacity.retry hides intermittent failures: a 10% violation is "
        "reported 0.10% of the time instead of 10.0% (3 attempts; on _check (line 44), "
        f"{THROUGH}; not judged for the test test_in_a_loop: it retries each call of _check "
        "on its own, and the test calls it in a loop: one attempt count does not describe "
        "the test)"
    )
    assert found["numbers"]["reported"] == pytest.approx(0.1**3)


def test_no_checks_no_caller_or_a_loop_give_nothing(tmp_path):
    """`build` asserts nothing, `check_unused` is called by no test, and `test_in_a_loop`
    retries each call on its own: no figure is claimed for it (the decorator's finding
    covers no loop)."""
    found = _by_line(tmp_path)
    assert set(found) == {7, 19, 43, 57, 63}


def test_a_factory_handing_on_to_another_is_read_on_a_test_too(tmp_path):
    """`retry(2)` on the test itself: read through `repeat_with_success_at_least`."""
    found = _by_line(tmp_path)[57]
    assert found["message"] == (
        "retry decorator _condition.retry (tests/_condition.py:29, a loop) hides "
        "intermittent failures: a 10% violation is reported 1.0% of the time instead of "
        "10.0% (2 attempts from times=2 at the call; 1 attempt, no trial loop recognised)"
    )


def test_a_method_of_a_base_class_and_a_test_calling_two_retried_functions(tmp_path):
    """`check_base` is inherited from `Base`; `test_two` calls it and `_check` once each:
    each retries its own checks, and the other changes nothing for them, so both
    get their figure; `check_base`'s finding covers `test_two`."""
    found = _by_line(tmp_path)
    assert found[63]["message"] == (
        "retry decorator _condition.retry (tests/_condition.py:29, a loop) hides "
        "intermittent failures: a 10% violation is reported 0.10% of the time instead of "
        f"10.0% (3 attempts from times=3 at the call; on check_base (line 64), {THROUGH}; "
        "covers 2 tests, 2 test instances)"
    )
    assert found[63]["numbers"]["reported"] == pytest.approx(0.1**3)
