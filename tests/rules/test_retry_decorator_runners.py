"""DET103 on decorators that run the test through unittest's runner, and on those that want
several passes, shaped on cupy's cupy/testing/_condition.py: `retry(times)` passes at the
first of up to `times` passing runs, `repeat_with_success_at_least(times, min_success)` is
the flaky package's `max_runs=times, min_passes=min_success`, and `repeat(times)` wants
every run to pass. The wrapper builds a `TestSuite` of a `FunctionTestCase(lambda: f(...))`
and runs it through a class of the module (`QuietTestRunner().run(suite)`), counting
`result.wasSuccessful()`.
"""

from __future__ import annotations

import math

import pytest
from realworld_cases import FLAKY, audit, check, findings, one_test

CONDITION = """\
    import functools
    import os
    import unittest


    class QuietTestRunner:

        def run(self, suite):
            result = unittest.TestResult()
            suite(result)
            return result


    def repeat_with_success_at_least(times, min_success):
        assert times >= min_success

        def _repeat_with_success_at_least(f):
            @functools.wraps(f)
            def wrapper(*args, **kwargs):
                assert len(args) > 0
                instance = args[0]
                assert isinstance(instance, unittest.TestCase)
                success_counter = 0
                failure_counter = 0
                results = []

                def fail():
                    msg = "\\nFail: {}, Success: {}".format(failure_counter, success_counter)
                    instance.fail(msg)

                for _ in range(times):
                    suite = unittest.TestSuite()
                    ins = type(instance)(instance._testMethodName)
                    suite.addTest(
                        unittest.FunctionTestCase(
                            lambda: f(ins, *args[1:], **kwargs),
                            setUp=ins.setUp,
                            tearDown=ins.tearDown))

                    result = QuietTestRunner().run(suite)
                    if len(result.skipped) == 1:
                        instance.skipTest(result.skipped[0][1])
                    elif result.wasSuccessful():
                        success_counter += 1
                    else:
                        results.append(result)
                        failure_counter += 1
                    if success_counter >= min_success:
                        instance.assertTrue(True)
                        return
                    if failure_counter > times - min_success:
                        fail()
                        return
                fail()
            return wrapper
        return _repeat_with_success_at_least


    def repeat(times, intensive_times=None):
        if intensive_times is None:
            return repeat_with_success_at_least(times, times)

        casual_test = bool(int(os.environ.get("CUPY_TEST_CASUAL", "0")))
        times_ = times if casual_test else intensive_times
        return repeat_with_success_at_least(times_, times_)


    def retry(times):
        return repeat_with_success_at_least(times, 1)
    """

TESTS = """\
    import unittest

    from pkg.testing import _condition


    class TestRandom(unittest.TestCase):

        @_condition.retry(10)
        def test_retried(self):
            assert self.draw() < 0.9

        @_condition.repeat_with_success_at_least(10, 3)
        def test_three_of_ten(self):
            assert self.draw() < 0.9

        @_condition.repeat(3)
        def test_every_one(self):
            assert self.draw() < 0.9

        @_condition.repeat(3, 10)
        def test_casual_or_intensive(self):
            assert self.draw() < 0.9

        @_condition.repeat_with_success_at_least(10, 9)
        def test_nine_of_ten(self):
            assert self.draw() < 0.9
    """

REPOSITORY = {
    "requirements-test.txt": "pytest\n",
    "pkg/__init__.py": "",
    "pkg/testing/__init__.py": "",
    "pkg/testing/_condition.py": CONDITION,
    "tests/__init__.py": "",
    "tests/test_random.py": TESTS,
}

PATH = "tests/test_random.py"
DEFINED = "pkg/testing/_condition.py"


def _flaky_package(tmp_path, max_runs: int, min_passes: int) -> dict:
    """What detlint prints for the flaky package's `@flaky(max_runs=..., min_passes=...)`."""
    files = {
        **FLAKY,
        "tests/test_x.py": "from flaky import flaky\n\n\n"
        f"@flaky(max_runs={max_runs}, min_passes={min_passes})\n"
        "def test_x():\n    assert True\n",
    }
    (found,) = findings(check(tmp_path / "flaky", files), "DET101")
    return found


def _at(document: dict, line: int) -> dict:
    (found,) = [f for f in findings(document, "DET103") if (f["path"], f["line"]) == (PATH, line)]
    return found


def test_a_retry_through_the_unittest_runner_is_ten_attempts(tmp_path):
    """`retry(10)`: up to 10 runs, passing at the first pass, as flaky(max_runs=10)."""
    found = _at(check(tmp_path / "repo", REPOSITORY), 8)
    assert found["message"] == (
        f"retry decorator _condition.retry ({DEFINED}:68, a loop) hides intermittent "
        "failures: a 10% violation is reported <0.001% of the time instead of 10.0% (10 "
        "attempts from times=10 at the call; 1 attempt, no trial loop recognised)"
    )
    assert found["numbers"]["reported"] == pytest.approx(0.1**10)
    flaky = _flaky_package(tmp_path, 10, 1)
    assert found["numbers"]["reported"] == pytest.approx(flaky["numbers"]["reported"])


def test_a_threshold_of_passes_gets_the_flaky_packages_numbers(tmp_path):
    """`repeat_with_success_at_least(10, 3)` stops at 3 passes or at 8 failures: the flaky
    package's max_runs=10, min_passes=3, whose figure is P[Binomial(10, 0.9) < 3]."""
    found = _at(check(tmp_path / "repo", REPOSITORY), 12)
    assert found["message"] == (
        "retry decorator _condition.repeat_with_success_at_least "
        f"({DEFINED}:14, a loop) hides intermittent failures: a 10% violation is reported "
        "<0.001% of the time instead of 10.0% (up to 10 runs, passing once 3 have passed, "
        "as flaky's max_runs=10, min_passes=3, from min_success=3 at the call and times=10 "
        "at the call; 1 attempt, no trial loop recognised)"
    )
    expected = sum(math.comb(10, k) * 0.9**k * 0.1 ** (10 - k) for k in range(3))
    assert found["numbers"]["reported"] == pytest.approx(expected)
    flaky = _flaky_package(tmp_path, 10, 3)
    assert flaky["message"].startswith(
        "flaky decorator hides intermittent failures: a 10% violation is reported <0.001% of "
        "the time instead of 10.0% (max_runs=10, min_passes=3;"
    )
    assert found["numbers"] == flaky["numbers"]


def test_a_threshold_near_every_run_hides_only_rare_violations(tmp_path):
    """9 passes of up to 10 runs: a 10% violation fails the decorator more often than one
    run (1 - P[Binomial(10, 0.9) >= 9] = 26.4%); below 2.5% of runs it is hidden."""
    found = _at(check(tmp_path, REPOSITORY), 24)
    assert found["message"].startswith(
        "retry decorator _condition.repeat_with_success_at_least "
        f"({DEFINED}:14, a loop) hides only rare intermittent failures: a violation that "
        "fails fewer than 2.5% of runs is reported less often than without it, while a 10% "
        "violation is reported 26.4% of the time instead of 10.0% (up to 10 runs, passing "
        "once 9 have passed, as flaky's max_runs=10, min_passes=9,"
    )
    assert found["numbers"]["reported"] == pytest.approx(1 - 0.9**10 - 10 * 0.9**9 * 0.1)


def test_a_decorator_that_wants_every_run_to_pass_is_no_retry(tmp_path):
    """`repeat(3)` and `repeat(3, 10)` fail at the first failing run: no finding."""
    lines = {f["line"] for f in findings(check(tmp_path, REPOSITORY), "DET103")}
    assert lines == {8, 12, 24}


def test_the_audit_lists_the_threshold_and_the_repeat(tmp_path):
    document = audit(tmp_path, REPOSITORY)
    threshold = one_test(document, "test_three_of_ten")
    assert [knob["kind"] for knob in threshold["knobs"]] == ["retry-decorator"]
    assert [layer["description"] for layer in threshold["layers"]] == [
        f"max_runs=10, min_passes=3 (_condition.repeat_with_success_at_least at {DEFINED}:14)"
    ]
    every = one_test(document, "test_every_one")
    assert [knob["kind"] for knob in every["knobs"]] == ["repeat"]
    assert [layer["description"] for layer in every["layers"]] == [
        f"repeat=3 (_condition.repeat at {DEFINED}:59)"
    ]
    # Three runs that must all pass: a 10% violation shows 1 - 0.9**3 of the time.
    assert every["numbers"]["reported"] == pytest.approx(1 - 0.9**3)
    # 3 or 10 runs as `CUPY_TEST_CASUAL` says: listed, and no count is claimed.
    casual = one_test(document, "test_casual_or_intensive")
    assert [knob["kind"] for knob in casual["knobs"]] == ["repeat"]
    assert casual["layers"] == []
    assert casual["numbers"]["reported"] == pytest.approx(0.1)


CASE_CLASS = """\
    import functools
    import unittest


    def retry_case(attempts=4):
        def decorator(func):
            @functools.wraps(func)
            def wrapper(*args, **kwargs):
                class _Case(unittest.TestCase):
                    def runTest(self):
                        func(*args, **kwargs)

                for _ in range(attempts):
                    result = unittest.TestResult()
                    _Case().run(result)
                    if result.wasSuccessful():
                        return
                raise AssertionError(result.failures[0][1])

            return wrapper

        return decorator


    def until_two_pass(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            runner = unittest.TextTestRunner()
            passed = 0
            for _ in range(5):
                suite = unittest.TestSuite([unittest.FunctionTestCase(lambda: func(*args))])
                if runner.run(suite).wasSuccessful():
                    passed += 1
                if passed == 2:
                    return
            raise AssertionError("fewer than two passes")

        return wrapper
    """


def test_a_test_case_class_and_a_text_runner_are_followed(tmp_path):
    """A `TestCase` subclass the wrapper defines, run with `.run(result)`: 4 attempts. A
    `TextTestRunner` loop that runs until 2 passes or 5 runs follows no flaky rule: an
    always-failing test is run 5 times, as flaky(max_runs=6, min_passes=2) would, but one
    that passed once is run 5 times too, where flaky would run it 6: no figure."""
    files = {
        "requirements-test.txt": "pytest\n",
        "tests/__init__.py": "",
        "tests/helpers.py": CASE_CLASS,
        "tests/test_x.py": "from tests.helpers import retry_case, until_two_pass\n\n\n"
        "@retry_case()\ndef test_case():\n    assert True\n\n\n"
        "@until_two_pass\ndef test_runner():\n    assert True\n",
    }
    found = {f["line"]: f["message"] for f in findings(check(tmp_path, files), "DET103")}
    assert found[4].startswith(
        "retry decorator retry_case (tests/helpers.py:5, a loop) hides intermittent failures: "
        "a 10% violation is reported 0.010% of the time instead of 10.0% (4 attempts from the "
        "default attempts=4;"
    )
    assert "runs a passing one again (it calls a passing test 2 times" in found[9]
    assert "no figure is given" in found[9]


HELPER_TESTS = """\
    import unittest

    from pkg.testing import _condition


    class TestInv(unittest.TestCase):

        @_condition.retry(10)
        def check_x(self, shape):
            assert self.invert(shape) is not None

        def test_inv(self):
            self.check_x((3, 3))
            self.check_x((4, 4))
            self.check_x((0, 0))

        def test_once(self):
            self.check_x((2, 2))

        @_condition.repeat(3)
        def check_all(self, shape):
            assert self.invert(shape) is not None

        def test_all(self):
            self.check_all((1, 1))
            self.check_all((2, 2))
    """


INV = "tests/test_inv.py"


def test_a_retried_check_the_test_calls_several_times_is_named_not_judged(tmp_path):
    """cupy's TestInv.check_x under `retry(10)`, called 3 times by `test_inv`: each call is
    retried on its own, which one attempt count does not describe. Alone, the finding
    says so; with a test that calls it once, that test's figure is the finding. A
    function under `repeat(3)` is no retry, however often the test calls it."""
    alone = {**REPOSITORY, "tests/test_inv.py": HELPER_TESTS.replace("def test_once", "def x")}
    (found,) = [f for f in findings(check(tmp_path / "a", alone), "DET103") if f["path"] == INV]
    assert found["message"] == (
        f"retry decorator _condition.retry ({DEFINED}:68) not judged: it retries each call of "
        "check_x on its own, and the test calls it 3 times: one attempt count does not "
        "describe the test, so no figure (on check_x (line 9), which the test calls: it "
        "retries the checks that function holds)"
    )
    both = {**REPOSITORY, "tests/test_inv.py": HELPER_TESTS}
    (found,) = [f for f in findings(check(tmp_path / "b", both), "DET103") if f["path"] == INV]
    assert found["line"] == 8
    assert found["message"].startswith(
        f"retry decorator _condition.retry ({DEFINED}:68, a loop) hides intermittent failures: "
        "a 10% violation is reported <0.001% of the time instead of 10.0% (10 attempts"
    )
