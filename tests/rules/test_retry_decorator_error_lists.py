"""DET103 for a retry decorator whose caught exceptions come from its arguments: toil's
``retry(errors=[URLError, RuntimeError])`` builds ``{error for error in errors if not
isinstance(error, ErrorCondition)}`` and catches ``tuple(...)`` of it; another catches
Exception and re-raises unless ``any(isinstance(e, err) for err in errors)``. Given a
list of other exception classes, neither retries an assertion failure: no finding, and
the audit says which classes it catches."""

from __future__ import annotations

import pytest
from realworld_cases import audit, check, findings, one_test, only

HELPERS = """\
    import functools


    class ErrorCondition:
        def __init__(self, error=None, error_codes=None):
            self.error = error
            self.error_codes = error_codes


    def retry(intervals=None, errors=None):
        intervals = intervals if intervals else [1, 1, 2]
        errors = errors if errors else [Exception]
        error_conditions = {error for error in errors if isinstance(error, ErrorCondition)}
        retriable_errors = {error for error in errors if not isinstance(error, ErrorCondition)}

        def decorate(func):
            @functools.wraps(func)
            def call(*args, **kwargs):
                for attempt in range(len(intervals) + 1):
                    try:
                        return func(*args, **kwargs)
                    except tuple(retriable_errors) as e:
                        if attempt == len(intervals):
                            raise
                        if error_conditions:
                            raise

            return call

        return decorate


    def retry_on(*errors, tries=3):
        def decorate(func):
            @functools.wraps(func)
            def call(*args, **kwargs):
                for attempt in range(tries):
                    try:
                        return func(*args, **kwargs)
                    except Exception as e:
                        if not any(isinstance(e, err) for err in errors):
                            raise
                        if attempt == tries - 1:
                            raise

            return call

        return decorate
    """


def _files(decorator: str) -> dict[str, str]:
    return {
        "tests/__init__.py": "",
        "tests/helpers.py": HELPERS,
        "tests/test_fetch.py": f"""\
            from urllib.error import URLError

            from tests.helpers import retry, retry_on


            {decorator}
            def test_fetch():
                assert fetch() == 200
            """,
    }


@pytest.mark.parametrize(
    ("decorator", "caught"),
    [
        (
            "@retry(errors=[URLError, RuntimeError])",
            "retry catches only `tuple(retriable_errors) = (URLError, RuntimeError)`",
        ),
        ("@retry(errors=[TimeoutError])", "`tuple(retriable_errors) = TimeoutError`"),
        ("@retry_on(ConnectionError, TimeoutError)", "retry_on catches only"),
    ],
)
def test_a_decorator_given_other_exceptions_retries_no_violation(tmp_path, decorator, caught):
    document = audit(tmp_path, _files(decorator))
    assert findings(document, "DET103") == []
    test = one_test(document, "test_fetch")
    assert test["numbers"]["reported"] == pytest.approx(0.1)
    assert any(
        caught in note and "an assertion violation fails the test at its first attempt" in note
        for note in test["notes"]
    ), test["notes"]


@pytest.mark.parametrize(
    ("decorator", "attempts"),
    [
        ("@retry()", 4),
        ("@retry(errors=[AssertionError, URLError])", 4),
        ("@retry(intervals=[1], errors=[Exception])", 2),
        ("@retry_on(AssertionError)", 3),
        ("@retry_on(Exception, tries=2)", 2),
    ],
)
def test_a_decorator_given_assertion_catchers_keeps_its_numbers(tmp_path, decorator, attempts):
    found = only(check(tmp_path, _files(decorator)), "DET103")
    assert found["numbers"]["reported"] == pytest.approx(0.1**attempts)
    assert f"{attempts} attempts" in found["message"]


def test_a_decorator_whose_filter_is_code_conditions_the_headline(tmp_path):
    """A handler that asks code detlint does not run (``should_retry(e)``) whether to
    retry: the figure holds only if that code lets an assertion failure be retried."""
    files = _files("@retry_if(tries=3)")
    files["tests/helpers.py"] += """
    def retry_if(tries=3):
        def decorate(func):
            def call(*args, **kwargs):
                for attempt in range(tries):
                    try:
                        return func(*args, **kwargs)
                    except Exception as e:
                        if not should_retry(e) or attempt == tries - 1:
                            raise

            return call

        return decorate
    """
    files["tests/test_fetch.py"] = files["tests/test_fetch.py"].replace(
        "import retry, retry_on", "import retry_if"
    )
    found = only(check(tmp_path, files), "DET103")
    assert found["numbers"]["reported"] == pytest.approx(0.1**3)
    assert found["message"].startswith(
        "retry decorator retry_if (tests/helpers.py:50, a loop) hides intermittent failures: "
        "a 10% violation is reported 0.10% of the time instead of 10.0% if `should_retry(e)` "
        "lets an assertion failure be retried ("
    ), found["message"]
