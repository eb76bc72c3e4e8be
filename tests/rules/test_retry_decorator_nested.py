"""DET103 on a retry decorator on a function defined in the test's own body, which the
test calls: its checks are retried as those of a function of the module are. A
function the body defines only, never calls, or defines twice gives nothing, and
``retry=retry_always`` (every attempt runs, passing or not) hides nothing.
"""

from __future__ import annotations

import pytest
from realworld_cases import check, findings

TESTS = """\
import pytest
import tenacity
from tenacity import retry, stop_after_attempt, stop_after_delay, wait_fixed


def test_delay(mocked):
    mocked()

    @retry(stop=stop_after_delay(5), reraise=True, wait=wait_fixed(0.5))
    def _assert_called() -> None:
        assert mocked.call_count == 1

    _assert_called()


def test_attempts(value):
    @retry(stop=stop_after_attempt(3))
    def _check():
        assert value == 1

    _check()


def test_defined_not_called(value):
    @retry(stop=stop_after_attempt(4))
    def _check():
        assert value == 1

    assert value


def test_stable(value):
    @tenacity.retry(retry=tenacity.retry_always, stop=tenacity.stop_after_attempt(10))
    def _check_stable():
        assert value == 1

    with pytest.raises(tenacity.RetryError):
        _check_stable()
"""

REPOSITORY = {
    "requirements-test.txt": "pytest\\ntenacity\\n",
    "tests/__init__.py": "",
    "tests/test_nested.py": TESTS,
}


def _by_line(tmp_path) -> dict[int, dict]:
    found = findings(check(tmp_path, REPOSITORY), "DET103")
    return {f["line"]: f for f in found}


def test_a_retried_function_of_the_body_with_no_attempt_count(tmp_path):
    found = _by_line(tmp_path)[9]
    assert found["message"] == (
        "retry decorator tenacity.retry around a test with no literal attempt limit: a "
        "violation is reported only if every attempt shows it (on _assert_called (line 10), "
        "which the test calls: it retries the checks that function holds; 1 attempt, no "
        "trial loop recognised)"
    )


def test_a_retried_function_of_the_body_with_a_literal_count(tmp_path):
    found = _by_line(tmp_path)[17]
    assert found["message"].startswith(
        "retry decorator tenacity.retry hides intermittent failures: a 10% violation is "
        "reported 0.10% of the time instead of 10.0% (3 attempts; on _check (line 18), "
        "which the test calls"
    )
    assert found["numbers"]["reported"] == pytest.approx(0.1**3)


def test_uncalled_and_retry_always_give_nothing(tmp_path):
    """`test_defined_not_called` never calls its `_check`; `retry_always` retries a
    pass too, so the outcome is that of the tenth attempt: no violation is hidden."""
    assert set(_by_line(tmp_path)) == {9, 17}
