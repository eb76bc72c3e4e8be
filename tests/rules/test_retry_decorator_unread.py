"""DET103 on retry decorators detlint cannot read: named, never silent. flocker's
`flaky(jira_keys, max_runs=3, min_passes=1)` only sets `_flaky` on the test for its base
TestCase's runner to read (flocker/testtools/_flaky.py, re-exported by a package
`__init__.py` in Python 2's syntax); a decorator that hands the test to an executor, or
runs it in a loop inside a generator, goes where the read does not follow. Each is "not
judged", with the reason and no figure. A decorator that calls the test once on every path
stays silent whatever its name, and so does one no test is given.
"""

from __future__ import annotations

import pytest
from realworld_cases import audit, check, findings, one_test

FLAKY_MODULE = """\
    from pyrsistent import PClass, field, pset

    _FLAKY_ATTRIBUTE = '_flaky'


    def flaky(jira_keys, max_runs=3, min_passes=1):
        if isinstance(jira_keys, unicode):
            jira_keys = [jira_keys]

        annotation = _FlakyAnnotation(
            jira_keys=pset(jira_keys), max_runs=max_runs, min_passes=min_passes)

        def wrapper(test_method):
            existing_flaky = getattr(test_method, _FLAKY_ATTRIBUTE, None)
            if existing_flaky is None:
                note = annotation
            else:
                note = _combine_flaky_annotation(annotation, existing_flaky)
            setattr(test_method, _FLAKY_ATTRIBUTE, note)
            return test_method

        return wrapper


    def _combine_flaky_annotation(flaky1, flaky2):
        return _FlakyAnnotation(
            jira_keys=flaky1.jira_keys | flaky2.jira_keys,
            max_runs=max(flaky1.max_runs, flaky2.max_runs),
            min_passes=max(flaky1.min_passes, flaky2.min_passes),
        )


    class _FlakyAnnotation(PClass):
        max_runs = field(int, mandatory=True, invariant=lambda x: (x > 0, "at least once"))
        min_passes = field(int, mandatory=True, invariant=lambda x: (x > 0, "at least once"))
    """

# Python 2: `print` as a statement; detlint cannot parse it, and follows its import.
TESTTOOLS_INIT = """\
    from ._flaky import flaky

    print "loading testtools"
    """

OTHERS = """\
    import functools
    import inspect
    from concurrent.futures import ThreadPoolExecutor

    HANDLERS = []


    def retry_in_threads(times=3):
        def decorator(func):
            @functools.wraps(func)
            def wrapper(*args, **kwargs):
                with ThreadPoolExecutor() as executor:
                    for _ in range(times):
                        future = executor.submit(func, *args, **kwargs)
                        if future.exception() is None:
                            return
                raise AssertionError("failed every time")

            return wrapper

        return decorator


    def retry_generator(func):
        def wrapper(*args):
            for attempt in range(3):
                try:
                    yield from func(*args)
                    return
                except AssertionError:
                    if attempt == 2:
                        raise

        return wrapper


    def log_attempts(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for handler in HANDLERS:
                handler.flush()
            return func(*args, **kwargs)

        return wrapper


    def no_retry(func):
        func._no_retry = True
        return func


    def is_flaky(max_attempts=5, description=None):
        def decorator(obj):
            if inspect.isclass(obj):
                for attr_name, attr_value in list(obj.__dict__.items()):
                    if callable(attr_value) and attr_name.startswith("test"):
                        setattr(obj, attr_name, decorator(attr_value))
                return obj

            @functools.wraps(obj)
            def wrapper(*args, **kwargs):
                retry_count = 1
                while retry_count < max_attempts:
                    try:
                        return obj(*args, **kwargs)
                    except Exception:
                        retry_count += 1
                return obj(*args, **kwargs)

            return wrapper

        return decorator
    """

TESTS = """\
    from ..testtools import flaky
    from ..others import is_flaky, log_attempts, no_retry, retry_generator, retry_in_threads
    from ..product import fetch


    class TestService:
        @flaky(u'FLOC-3346')
        def test_listed(self):
            assert fetch()

        @flaky([u'FLOC-3742', u'FLOC-3746'], max_runs=5)
        def test_two_keys(self):
            assert fetch()

        @retry_in_threads()
        def test_threads(self):
            assert fetch()

        @retry_generator
        def test_generator(self):
            assert fetch()

        @log_attempts
        def test_logged(self):
            assert fetch()

        @no_retry
        def test_not_retried(self):
            assert fetch()

        @is_flaky
        def test_flaky_bare(self):
            assert fetch()

        @is_flaky()
        def test_flaky_called(self):
            assert fetch()


    @is_flaky
    def test_function_flaky_bare():
        assert fetch()
    """

# Product code: a retry decorator on a function no test is, which a test calls.
PRODUCT = """\
    from .others import retry_in_threads


    @retry_in_threads(times=5)
    def fetch():
        return True
    """

REPOSITORY = {
    "requirements-test.txt": "pytest\n",
    "pkg/__init__.py": "",
    "pkg/testtools/__init__.py": TESTTOOLS_INIT,
    "pkg/testtools/_flaky.py": FLAKY_MODULE,
    "pkg/others.py": OTHERS,
    "pkg/product.py": PRODUCT,
    "pkg/tests/__init__.py": "",
    "pkg/tests/test_service.py": TESTS,
}

PATH = "pkg/tests/test_service.py"


def _by_line(tmp_path) -> dict[int, dict]:
    found = findings(check(tmp_path, REPOSITORY), "DET103")
    assert {f["path"] for f in found} == {PATH}
    return {f["line"]: f for f in found}


def test_a_decorator_that_only_records_counts_on_the_test_is_not_judged(tmp_path):
    found = _by_line(tmp_path)
    assert found[7]["message"] == (
        "retry decorator flaky (pkg/testtools/_flaky.py:6) not judged: it only records "
        "max_runs=3, min_passes=1 on the test, for the code that runs it; detlint does not "
        "follow that code, so no figure (tracked as FLOC-3346)"
    )
    assert found[7]["numbers"] is None
    assert found[11]["message"] == (
        "retry decorator flaky (pkg/testtools/_flaky.py:6) not judged: it only records "
        "max_runs=5, min_passes=1 on the test, for the code that runs it; detlint does not "
        "follow that code, so no figure (tracked as FLOC-3742, FLOC-3746)"
    )


def test_a_decorator_whose_code_goes_where_the_read_does_not_is_not_judged(tmp_path):
    found = _by_line(tmp_path)
    assert found[15]["message"] == (
        "retry decorator retry_in_threads (pkg/others.py:8) not judged: it hands the test "
        "to `executor.submit(func, *args, **kwargs)`, which detlint does not follow, so no "
        "figure"
    )
    assert found[19]["message"] == (
        "retry decorator retry_generator (pkg/others.py:24) not judged: it calls the test "
        "in a loop detlint cannot follow (a generator), so no figure"
    )


def test_a_factory_applied_without_a_call_leaves_a_test_that_never_runs(tmp_path):
    """diffusers' `@is_flaky` written bare: the test becomes `max_attempts`, and the name
    of the test holds the inner `decorator`, which the runner calls with the instance and
    which returns `wrapper` without running the test: it passes whatever it asserts.
    Called, it is 5 attempts."""
    found = _by_line(tmp_path)
    assert found[31]["message"] == (
        "retry decorator is_flaky (pkg/others.py:52) applied without a call, it takes the "
        "test as `max_attempts` and leaves its inner `decorator` in the test's place, which "
        "returns without running the test: the test passes whatever it asserts, so a 10% "
        "violation is never reported (was 10.0%) (1 attempt, no trial loop recognised)"
    )
    assert found[31]["numbers"]["reported"] == 0.0
    assert found[31]["numbers"]["reported_without"] == pytest.approx(0.1)
    assert found[31]["help"].startswith("write `@is_flaky()` so that the test runs; then ")
    assert "(5 attempts from the default max_attempts=5;" in found[35]["message"]


def test_a_test_function_under_a_bare_factory_errors_and_is_no_finding(tmp_path):
    """A test function given the inner `decorator(obj)` asks pytest for a fixture `obj`
    and errors on every run: nothing is hidden, and the audit names the knob."""
    assert 40 not in _by_line(tmp_path)
    test = one_test(audit(tmp_path, REPOSITORY), "test_function_flaky_bare")
    assert [knob["kind"] for knob in test["knobs"]] == ["retry-decorator"]
    assert test["layers"] == []


def test_decorators_that_call_the_test_once_or_say_no_retry_are_silent(tmp_path):
    """`log_attempts` has a loop but calls the test once; `no_retry` records an attribute
    but says it is no retry; `fetch`'s decorator is on product code."""
    assert set(_by_line(tmp_path)) == {7, 11, 15, 19, 31, 35}


def test_the_audit_lists_the_knob_without_a_figure(tmp_path):
    test = one_test(audit(tmp_path, REPOSITORY), "test_listed")
    assert [knob["kind"] for knob in test["knobs"]] == ["retry-decorator"]
    assert test["layers"] == []
    assert test["notes"] == [
        "flaky: it only records max_runs=3, min_passes=1 on the test, for the code that runs "
        "it; detlint does not follow that code"
    ]
    assert test["numbers"]["reported"] == test["numbers"]["reported_without"]
