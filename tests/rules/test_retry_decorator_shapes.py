"""DET103 on retry decorators a repository defines itself: the decorator is read from its
code (a loop, a while loop, recursion, tenacity inside it, a factory with a default, a
call overriding it, a condition on the environment, the exceptions it catches), so that
`@flaky(max_runs=5)` from a conftest or a helper module is a retry layer with its own
count, and is never taken for pytest's `flaky` marker or the flaky package.
"""

from __future__ import annotations

import pytest
from realworld_cases import audit, check, findings, one_test

HELPERS = '''\
    import functools
    import os

    import tenacity

    IS_CI = os.environ.get("CI") == "true"
    MAX_RUNS = 4


    def flaky(max_runs=3, min_passes=1):
        """Run a failing test again, up to max_runs times in all."""

        def decorator(func):
            @functools.wraps(func)
            def wrapper(*args, **kwargs):
                for attempt in range(max_runs):
                    try:
                        return func(*args, **kwargs)
                    except AssertionError:
                        if attempt == max_runs - 1:
                            raise

            return wrapper

        return decorator


    def retry_while(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            failures = 0
            while failures < 2:
                try:
                    return func(*args, **kwargs)
                except Exception:
                    failures += 1
            return func(*args, **kwargs)

        return wrapper


    def retry_recursive(func, times=MAX_RUNS):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:
                return func(*args, **kwargs)
            except AssertionError:
                if times <= 1:
                    raise
                return retry_recursive(func, times - 1)(*args, **kwargs)

        return wrapper


    def eventually(attempts=5):
        def decorator(func):
            return tenacity.retry(stop=tenacity.stop_after_attempt(attempts), reraise=True)(func)

        return decorator


    def retry_in_ci(func):
        if not IS_CI:
            return func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for _ in range(2):
                try:
                    return func(*args, **kwargs)
                except AssertionError:
                    pass
            return func(*args, **kwargs)

        return wrapper


    def retry_network(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for attempt in range(5):
                try:
                    return func(*args, **kwargs)
                except (ConnectionError, TimeoutError):
                    if attempt == 4:
                        raise

        return wrapper


    def swallow_failures(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for _ in range(3):
                try:
                    return func(*args, **kwargs)
                except AssertionError:
                    continue

        return wrapper


    def until_green(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            while True:
                try:
                    return func(*args, **kwargs)
                except AssertionError:
                    continue

        return wrapper


    def with_timeout(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:
                return func(*args, **kwargs)
            except TimeoutError:
                raise AssertionError("timed out")

        return wrapper
    '''

SHAPES = """\
    from tests.helpers import (
        eventually,
        flaky,
        retry_in_ci,
        retry_network,
        retry_recursive,
        retry_while,
        swallow_failures,
        until_green,
        with_timeout,
    )


    @flaky()
    def test_default():
        assert True


    @flaky(max_runs=5)
    def test_keyword():
        assert True


    @flaky(2)
    def test_positional():
        assert True


    @retry_while
    def test_while():
        assert True


    @retry_recursive
    def test_recursion():
        assert True


    @eventually()
    def test_tenacity_inside():
        assert True


    @retry_in_ci
    def test_ci_only():
        assert True


    @retry_network
    def test_network():
        assert True


    @swallow_failures
    def test_swallowed():
        assert True


    @until_green
    def test_until_green():
        assert True


    @with_timeout
    def test_timeout():
        assert True
    """

REPOSITORY = {
    "requirements-test.txt": "pytest\ntenacity\n",
    "tests/__init__.py": "",
    "tests/helpers.py": HELPERS,
    "tests/test_shapes.py": SHAPES,
}

# One attempt at q = 10% with no trial loop detects 10%; N attempts report 0.1**N.
PATH = "tests/test_shapes.py"


def _at(document: dict, line: int) -> dict:
    (found,) = [f for f in findings(document, "DET103") if f["line"] == line]
    assert found["path"] == PATH
    return found


@pytest.mark.parametrize(
    ("line", "attempts", "phrase"),
    [
        (
            14,
            3,
            "flaky (tests/helpers.py:10, a loop) hides intermittent failures: a 10% "
            "violation is reported 0.10% of the time instead of 10.0% (3 attempts from the "
            "default max_runs=3; 1 attempt, no trial loop recognised)",
        ),
        (19, 5, "(5 attempts from max_runs=5 at the call;"),
        (
            24,
            2,
            "a 10% violation is reported 1.0% of the time instead of 10.0% (2 attempts "
            "from max_runs=2 at the call;",
        ),
        (
            29,
            3,
            "retry_while (tests/helpers.py:28, a while loop) hides intermittent failures"
            ": a 10% violation is reported 0.10% of the time instead of 10.0% (3 attempts from "
            "a literal bound in the decorator;",
        ),
        (
            34,
            4,
            "retry_recursive (tests/helpers.py:42, recursion) hides intermittent "
            "failures: a 10% violation is reported 0.010% of the time instead of 10.0% (4 "
            "attempts from MAX_RUNS = 4;",
        ),
        (
            39,
            5,
            "eventually (tests/helpers.py:55, through tenacity.retry) hides intermittent "
            "failures: a 10% violation is reported <0.001% of the time instead of 10.0% (5 "
            "attempts from the default attempts=5;",
        ),
    ],
)
def test_each_shape_is_a_retry_layer_with_its_count(tmp_path, line, attempts, phrase):
    found = _at(check(tmp_path, REPOSITORY), line)
    assert found["message"].startswith("retry decorator ")
    assert phrase in found["message"]
    assert found["numbers"]["reported"] == pytest.approx(0.1**attempts)
    assert found["numbers"]["reported_without"] == pytest.approx(0.1)


def test_the_finding_points_at_the_definition(tmp_path):
    found = _at(check(tmp_path, REPOSITORY), 14)
    assert {"path": "tests/helpers.py", "line": 10} in [
        {"path": r["path"], "line": r["line"]} for r in found["related"]
    ]


def test_a_retry_only_in_ci_applies_where_the_condition_holds(tmp_path):
    """`if not IS_CI: return func` in the decorator: retried where `IS_CI` holds."""
    found = _at(check(tmp_path, REPOSITORY), 44)
    assert found["message"] == (
        "retry decorator retry_in_ci (tests/helpers.py:62, a loop) hides intermittent "
        "failures: a 10% violation is reported 0.10% of the time instead of 10.0% (3 "
        "attempts from a literal bound in the decorator, where `IS_CI`; 1 attempt, no trial "
        "loop recognised); elsewhere: not rerun where not `IS_CI` (reported 10.0% there)"
    )


def test_a_decorator_that_retries_other_exceptions_hides_no_violation(tmp_path):
    """`except (ConnectionError, TimeoutError)`: an assertion fails the first attempt."""
    files = dict(REPOSITORY)
    assert 49 not in [f["line"] for f in findings(check(tmp_path / "c", files), "DET103")]
    test = one_test(audit(tmp_path / "a", files), "test_network")
    assert test["numbers"]["reported"] == pytest.approx(0.1)
    assert test["notes"] == [
        "retry_network catches only `ConnectionError, TimeoutError`: an assertion violation "
        "fails the test at its first attempt"
    ]


def test_a_decorator_that_swallows_the_last_failure_never_reports(tmp_path):
    found = _at(check(tmp_path, REPOSITORY), 54)
    assert found["message"].startswith(
        "retry decorator swallow_failures (tests/helpers.py:91, a loop) catches the failure "
        "of its last attempt too and returns: the test passes whatever it asserts, so a 10% "
        "violation is never reported (was 10.0%) (3 attempts"
    )
    assert found["numbers"]["reported"] == 0.0
    assert found["numbers"]["visible"] == 0.0


def test_a_decorator_without_a_limit_says_so(tmp_path):
    found = _at(check(tmp_path, REPOSITORY), 59)
    assert found["message"] == (
        "retry decorator until_green (tests/helpers.py:103, a while loop) around a test "
        "with no literal attempt limit (it calls the test more than 1000 times): a "
        "violation is reported only if every attempt shows it (1 attempt, no trial loop "
        "recognised)"
    )


def test_decorators_that_call_the_test_once_are_no_retry(tmp_path):
    """`with_timeout` turns a TimeoutError into an assertion and calls the test once."""
    lines = {f["line"] for f in findings(check(tmp_path, REPOSITORY))}
    assert lines == {14, 19, 24, 29, 34, 39, 44, 54, 59}


OWN_FLAKY = """\
    def flaky(max_runs=2):
        def decorator(func):
            def wrapper(*args, **kwargs):
                for attempt in range(max_runs):
                    try:
                        return func(*args, **kwargs)
                    except AssertionError:
                        if attempt == max_runs - 1:
                            raise

            return wrapper

        return decorator
    """


@pytest.mark.parametrize(
    ("module", "imported"),
    [
        ("tests/conftest.py", "from tests.conftest import flaky"),
        # a module of the repository named flaky.py is not the flaky package
        ("tests/flaky.py", "from flaky import flaky"),
    ],
)
def test_a_flaky_of_the_repository_is_not_a_plugin_marker(tmp_path, module, imported):
    files = {
        "requirements-test.txt": "flaky==3.8.1\npytest-rerunfailures==16.7\n",
        "tests/__init__.py": "",
        module: OWN_FLAKY,
        "tests/test_own.py": f"{imported}\n\n\n@flaky(max_runs=4)\ndef test_own():\n"
        "    assert True\n",
    }
    (found,) = findings(check(tmp_path, files))
    assert (found["code"], found["line"]) == ("DET103", 4)
    assert found["message"].startswith(
        f"retry decorator flaky ({module}:1, a loop) hides intermittent failures: a 10% "
        "violation is reported 0.010% of the time instead of 10.0% (4 attempts from "
        "max_runs=4 at the call;"
    )


def test_the_audit_credits_the_reruns_to_the_decorator(tmp_path):
    test = one_test(audit(tmp_path, REPOSITORY), "test_keyword")
    assert [knob["kind"] for knob in test["knobs"]] == ["retry-decorator"]
    assert [layer["description"] for layer in test["layers"]] == [
        "retries=4 (flaky at tests/helpers.py:10, 5 attempts)"
    ]
    assert test["numbers"]["reported"] == pytest.approx(0.1**5)


ASSERTING = {
    "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n',
    "tests/__init__.py": "",
    "tests/helpers.py": """\
import functools

import pytest


def flaky(max_runs, min_passes):
    assert isinstance(max_runs, int)
    assert 0 < min_passes <= max_runs <= 50

    def accept(func):
        @functools.wraps(func)
        def inner(*args, **kwargs):
            runs = passes = 0
            while passes < min_passes:
                runs += 1
                try:
                    func(*args, **kwargs)
                    passes += 1
                except BaseException:
                    if runs >= max_runs:
                        raise

        return inner

    return accept


def xfail_on_accelerator():
    def decorator(impl):
        @functools.wraps(impl)
        def test_func(*args, **kw):
            try:
                impl(*args, **kw)
            except AssertionError as e:
                if on_accelerator():
                    assert "ValueError: sparse" in str(e)
                    pytest.xfail("may be buggy")
                raise

        return test_func

    return decorator


def on_accelerator():
    return False
""",
    "tests/test_x.py": """\
from tests.helpers import flaky, xfail_on_accelerator


@flaky(max_runs=3, min_passes=1)
def test_once():
    assert 1


@flaky(max_runs=3, min_passes=2)
def test_twice():
    assert 1


@xfail_on_accelerator()
def test_handled():
    assert 1
""",
}


def test_asserts_in_a_decorator_are_read_as_holding_not_as_a_limit(tmp_path):
    """An assert on the decorator's arguments, or on the message of a failure it
    handles, neither ends the read nor becomes the retry's bound."""
    document = check(tmp_path, ASSERTING)
    found = {f["line"]: f["message"] for f in findings(document, "DET103")}
    assert "a 10% violation is reported 0.10% of the time instead of 10.0%" in found[4]
    assert "3 attempts from max_runs=3 at the call" in found[4]
    # The handler calls the test once on every path: no retry, whatever the assert says.
    assert 14 not in found


def test_a_decorator_that_wants_several_passes_gets_no_figure(tmp_path):
    """`while passes < min_passes` with min_passes=2 calls a passing test again: how
    often it reports depends on the order of outcomes, so no attempt count is claimed."""
    message = {f["line"]: f["message"] for f in findings(check(tmp_path, ASSERTING), "DET103")}[9]
    assert "runs a passing one again (it calls a passing test 2 times" in message
    assert "no figure is given" in message
    assert "%" not in message
