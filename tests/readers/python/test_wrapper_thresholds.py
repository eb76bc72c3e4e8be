"""Reading decorators that run the test through unittest's runner, or want several passes
(``wrapper_unittest``, ``wrapper_thresholds``), and telling which decorators say they retry
(``unread_retries``)."""

from __future__ import annotations

import textwrap

import pytest

from detlint.base.span import Span
from detlint.readers.python.facts import Argument
from detlint.readers.python.module_index import index_module
from detlint.readers.python.retry_wrappers import read_retries
from detlint.readers.python.unread_retries import retry_parameters, says_retry, words
from detlint.readers.python.wrapper_runs import Outcomes
from detlint.readers.python.wrapper_thresholds import flaky_ends

AT = Span("tests/test_x.py", 1, 1, 1, 1)


def read(source: str, name: str, *arguments: tuple[str | None, object], bare: bool = False):
    index = index_module("tests/helpers.py", textwrap.dedent(source))
    given = tuple(Argument(keyword, value, AT) for keyword, value in arguments)
    return [
        (reading.attempts, reading.min_passes, reading.origin, reading.judged, guards)
        for reading, guards in read_retries(index, index.functions[name], given, bare)
    ]


@pytest.mark.parametrize(
    ("first", "then", "ends"),
    [
        ((), False, (4, True)),  # 4 failures: 2 passes out of 5 can no longer be reached
        ((), True, (2, False)),
        ((True, False, False, False), True, (5, False)),  # 3 failures leave 2 runs
        ((True, False, False, False, False), True, (5, True)),
        ((False, True, False, True), False, (4, False)),
        ((False, False, False, True), True, (5, False)),
    ],
)
def test_flaky_runs_until_enough_passes_or_too_many_failures(first, then, ends):
    assert flaky_ends(5, 2, Outcomes(first, then)) == ends


THRESHOLD = """
    def at_least(times, passes):
        def decorator(func):
            def wrapper(*args):
                won = lost = 0
                while True:
                    try:
                        func(*args)
                        won += 1
                    except AssertionError:
                        lost += 1
                    if won >= passes:
                        return
                    if lost > times - passes:
                        raise AssertionError("too many failures")

            return wrapper

        return decorator
    """


def test_a_threshold_of_passes_is_read_as_flakys_rule():
    assert read(THRESHOLD, "at_least", (None, 6), (None, 2)) == [
        (6, 2, "passes=2 at the call and times=6 at the call", True, ())
    ]


def test_every_run_wanted_is_a_repeat():
    assert read(THRESHOLD, "at_least", (None, 4), (None, 4)) == [
        (4, 4, "passes=4 at the call and times=4 at the call", True, ())
    ]


def test_one_pass_wanted_is_a_plain_retry():
    assert read(THRESHOLD, "at_least", (None, 3), (None, 1)) == [
        (3, 1, "passes=1 at the call and times=3 at the call", True, ())
    ]


def test_passes_wanted_in_another_order_get_no_figure():
    """Two passes in a row: P F P F ... never ends as flaky(max_runs=5, min_passes=2)."""
    source = """
        def twice_in_a_row(func):
            def wrapper(*args):
                streak = failures = 0
                while streak < 2:
                    try:
                        func(*args)
                        streak += 1
                    except AssertionError:
                        streak = 0
                        failures += 1
                        if failures == 4:
                            raise

            return wrapper
        """
    ((attempts, passes, origin, judged, _),) = read(source, "twice_in_a_row", bare=True)
    assert (attempts, passes, judged) == (None, 1, True)
    assert origin == "it calls a passing test 2 times, so it is no plain retry"


@pytest.mark.parametrize(
    "run",
    [
        "unittest.TestSuite([unittest.FunctionTestCase(test)]).run(result)",
        "unittest.FunctionTestCase(test)(result)",
        "suite = unittest.TestSuite(); suite.addTests([unittest.FunctionTestCase(test)]); "
        "suite(result)",
    ],
)
def test_the_unittest_runner_counts_failures(run):
    source = f"""
        import unittest


        def retry(func):
            def wrapper(*args):
                test = lambda: func(*args)
                for _ in range(3):
                    result = unittest.TestResult()
                    {run}
                    if not result.failures and not result.errors:
                        return
                raise AssertionError(len(result.failures))

            return wrapper
        """
    assert read(source, "retry", bare=True) == [
        (3, 1, "a literal bound in the decorator", True, ())
    ]


def test_a_case_run_with_debug_lets_the_failure_through():
    source = """
        import unittest


        def retry(func):
            def wrapper(*args):
                for attempt in range(2):
                    try:
                        return unittest.FunctionTestCase(lambda: func(*args)).debug()
                    except AssertionError:
                        if attempt == 1:
                            raise

            return wrapper
        """
    assert read(source, "retry", bare=True) == [
        (2, 1, "a literal bound in the decorator", True, ())
    ]


def test_a_result_of_the_repositorys_own_is_not_modelled():
    """A subclass of TestResult may do anything in `addFailure`: the read stops, and the
    decorator, which says it retries and runs the test in a loop, is named unread."""
    source = """
        import unittest


        class Result(unittest.TestResult):
            def addFailure(self, test, err):
                self.failed = True


        def retry(func):
            def wrapper(*args):
                for _ in range(3):
                    result = Result()
                    unittest.FunctionTestCase(lambda: func(*args)).run(result)
                    if result.wasSuccessful():
                        return

            return wrapper
        """
    assert read(source, "retry", bare=True) == [
        (
            None,
            1,
            "it calls the test in a loop detlint cannot follow (a test result detlint does "
            "not model)",
            False,
            (),
        )
    ]


def test_an_object_of_the_module_that_retries_is_followed():
    """The decorator returns an object whose `__call__` retries what `__init__` kept."""
    source = """
        class Retrier:
            def __init__(self, func, times):
                self.func = func
                self.times = times

            def __call__(self, *args):
                for attempt in range(self.times):
                    try:
                        return self.func(*args)
                    except AssertionError:
                        if attempt == self.times - 1:
                            raise


        def retried(times=3):
            def decorator(func):
                return Retrier(func, times)

            return decorator
        """
    assert read(source, "retried") == [(3, 1, "the default times=3", True, ())]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("repeatWithSuccess", ["repeat", "with", "success"]),
        ("retry_on_HTTPError", ["retry", "on", "http", "error"]),
    ],
)
def test_words_of_a_name(name, expected):
    assert words(name) == expected


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("def flaky(jira_keys, max_runs=3, min_passes=1): pass", True),
        ("def repeat_with_success_at_least(times, min_success): pass", True),
        ("def run_many(f, max_attempts=2): pass", True),
        ("def no_retry(f): pass", False),
        ("def skip_flaky(f): pass", False),
        ("def timed(f, timeout=3): pass", False),
        ("def retrieve(f): pass", False),
    ],
)
def test_which_names_and_parameters_say_retry(source, says):
    index = index_module("tests/helpers.py", source)
    (function,) = index.functions.values()
    assert says_retry(function) is says


def test_parameters_that_count_runs():
    index = index_module("t.py", "def f(func, max_runs=3, min_passes=1, jira_keys=(), n=2): pass")
    assert retry_parameters(index.functions["f"]) == ["max_runs", "min_passes"]


DTYPE_LOOP = """
    import unittest

    if HAS_PYTEST:
        import _pytest.outcomes

        SKIPS = (unittest.SkipTest, _pytest.outcomes.Skipped)
    else:
        SKIPS = (unittest.SkipTest,)


    def for_dtypes(dtypes, name="dtype"):
        def decorator(impl):
            def test_func(*args, **kw):
                for dtype in dtypes:
                    try:
                        kw[name] = dtype
                        impl(*args, **kw)
                    except SKIPS as e:
                        print("skipped", e)
                    except Exception:
                        print(name, "is", dtype)
                        raise

            return test_func

        return decorator
    """


def test_a_loop_over_values_that_fails_at_the_first_failure_is_a_repeat():
    """cupy's dtype loops: the skips of either branch take no AssertionError, so a failing
    test fails at its first value; every value must pass: a repeat over the 3 values."""
    assert read(DTYPE_LOOP, "for_dtypes", (None, ("f", "d", "e"))) == [
        (3, 3, "a literal bound in the decorator", True, ())
    ]


def test_a_repeat_over_values_not_known_gets_no_count():
    """`@for_dtypes("ifdFD")`: a string detlint does not go over; how many runs is not
    claimed. What goes on to the next value is a skip, never an assertion: the one
    reading says it hides no violation."""
    index = index_module("tests/helpers.py", textwrap.dedent(DTYPE_LOOP))
    given = (Argument(None, "ifdFD", AT),)
    ((reading, guards),) = read_retries(index, index.functions["for_dtypes"], given, False)
    assert (reading.attempts, reading.assertions, guards) == (None, False, ())
    assert reading.origin == (
        "it calls a passing test again, as often as `dtypes` says, so it is no plain retry"
    )
