"""Reading a decorator's code with a test that fails every time (``retry_wrappers``):
how many times it calls the test, where the count comes from, what it catches and
under which conditions it retries, in the spellings real suites use."""

from __future__ import annotations

import textwrap

import pytest

from detlint.base.span import Span
from detlint.readers.python.facts import Argument
from detlint.readers.python.module_index import index_module
from detlint.readers.python.retry_wrappers import read_retries

AT = Span("tests/test_x.py", 1, 1, 1, 1)


def read(source: str, name: str, *arguments: tuple[str | None, object], bare: bool = False):
    index = index_module("tests/helpers.py", textwrap.dedent(source))
    given = tuple(Argument(keyword, value, AT) for keyword, value in arguments)
    return [
        (reading.attempts, reading.origin, reading.shape, reading.assertions, guards)
        for reading, guards in read_retries(index, index.functions[name], given, bare)
    ]


DUAL_USE = """
    import functools


    def flaky(func=None, *, max_runs=3):
        if func is None:
            return functools.partial(flaky, max_runs=max_runs)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for attempt in range(1, max_runs + 1):
                try:
                    return func(*args, **kwargs)
                except AssertionError:
                    if attempt == max_runs:
                        raise

        return wrapper
    """


def test_a_decorator_used_bare_or_called_reads_its_default_or_the_call():
    assert read(DUAL_USE, "flaky", bare=True) == [(3, "the default max_runs=3", "a loop", True, ())]
    assert read(DUAL_USE, "flaky", ("max_runs", 5)) == [
        (5, "max_runs=5 at the call", "a loop", True, ())
    ]


def test_a_counter_kept_in_the_enclosing_function():
    source = """
        def retry(func):
            failures = 0

            def wrapper(*args):
                nonlocal failures
                while True:
                    try:
                        return func(*args)
                    except AssertionError:
                        failures += 1
                        if failures > 2:
                            raise

            return wrapper
        """
    assert read(source, "retry", bare=True) == [
        (3, "a literal bound in the decorator", "a while loop", True, ())
    ]


def test_recursion_through_a_keyword_counter():
    source = """
        def retry_on_failure(times=2):
            def decorator(func):
                def wrapper(*args, _attempt=1, **kwargs):
                    try:
                        return func(*args, **kwargs)
                    except AssertionError:
                        if _attempt >= times:
                            raise
                        return wrapper(*args, _attempt=_attempt + 1, **kwargs)

                return wrapper

            return decorator
        """
    assert read(source, "retry_on_failure", (None, 4)) == [
        (4, "times=4 at the call", "recursion", True, ())
    ]


def test_failing_after_the_loop_is_no_swallowed_failure():
    source = """
        import pytest


        def retry(func):
            def wrapper():
                for _ in range(2):
                    try:
                        return func()
                    except AssertionError:
                        pass
                pytest.fail("still failing after 2 attempts")

            return wrapper
        """
    index = index_module("tests/helpers.py", textwrap.dedent(source))
    ((reading, _),) = read_retries(index, index.functions["retry"], (), True)
    assert (reading.attempts, reading.swallows) == (2, False)


@pytest.mark.parametrize(
    ("check", "assertions"),
    [
        ("not should_retry(error)", None),  # code decides what is retried
        ("not isinstance(error, AssertionError)", True),
        ("isinstance(error, AssertionError)", False),
    ],
)
def test_what_the_except_clause_lets_through_decides_what_is_retried(check, assertions):
    source = """
        def retry(func):
            def wrapper():
                for attempt in range(3):
                    try:
                        return func()
                    except Exception as error:
                        if CHECK:
                            raise
                        if attempt == 2:
                            raise

            return wrapper
        """.replace("CHECK", check)
    ((attempts, _, _, found, guards),) = read(source, "retry", bare=True)
    assert (attempts, found, guards) == (3, assertions, ())


def test_a_count_chosen_by_the_environment_retries_where_it_is_over_one():
    source = """
        import os

        ON_CI = os.environ.get("CI") == "true"


        def retry(func):
            runs = 5 if ON_CI else 1

            def wrapper():
                for attempt in range(runs):
                    try:
                        return func()
                    except AssertionError:
                        if attempt == runs - 1:
                            raise

            return wrapper
        """
    assert read(source, "retry", bare=True) == [
        (5, "a literal bound in the decorator", "a loop", True, ("`ON_CI`",))
    ]


def test_tenacity_on_the_wrapper_reads_the_factory_argument():
    source = """
        import functools

        from tenacity import retry, stop_after_attempt


        def flaky(attempts=3):
            def decorator(func):
                @retry(stop=stop_after_attempt(attempts), reraise=True)
                @functools.wraps(func)
                def wrapper(*args, **kwargs):
                    return func(*args, **kwargs)

                return wrapper

            return decorator
        """
    assert read(source, "flaky", ("attempts", 6)) == [
        (6, "attempts=6 at the call", "tenacity.retry", True, ())
    ]


@pytest.mark.parametrize(
    "source",
    [
        # runs the test in a child process and waits for it: one call
        """
        import os


        def forked(func):
            def wrapper(*args, **kwargs):
                pid = os.fork()
                if pid == 0:
                    try:
                        func(*args, **kwargs)
                    except Exception:
                        os._exit(1)
                    os._exit(0)
                _, status = os.waitpid(pid, 0)
                assert status == 0

            return wrapper
        """,
        # turns one exception into an assertion: one call
        """
        def timed(func):
            def wrapper(*args, **kwargs):
                try:
                    return func(*args, **kwargs)
                except TimeoutError as error:
                    raise AssertionError("timed out") from error

            return wrapper
        """,
    ],
)
def test_decorators_that_do_not_retry_a_failing_test_read_as_nothing(source):
    name = source.split("def ", 1)[1].split("(", 1)[0]
    assert read(source, name, bare=True) == []


def test_a_retry_of_other_exceptions_is_read_as_one_that_lets_assertions_fail():
    """Its bound is code detlint does not evaluate; what matters is that an assertion
    fails the first attempt (only ConnectionError is caught)."""
    source = """
        def call_with_retry(fn, max_retry=RETRIES):
            for attempt in range(max_retry):
                try:
                    return fn()
                except ConnectionError:
                    pass
        """
    assert read(source, "call_with_retry", bare=True) == [
        (None, "its limit is `range(max_retry)`", "a loop", False, ())
    ]


@pytest.mark.parametrize(
    ("exception", "assertions"),
    [("AssertionError", True), ("(ConnectionError, TimeoutError)", False)],
)
def test_backoff_inside_reads_its_limit_and_what_it_retries(exception, assertions):
    source = f"""
        import backoff


        def eventually(n=3):
            def decorator(func):
                return backoff.on_exception(backoff.expo, {exception}, max_tries=n)(func)

            return decorator
        """
    assert read(source, "eventually") == [
        (3, "the default n=3", "backoff.on_exception", assertions, ())
    ]
