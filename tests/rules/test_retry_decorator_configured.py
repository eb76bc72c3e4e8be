"""DET103 reads the attempt limit of every retry decorator it names: a configured one
(`retry-decorators`) from the keywords it goes by at the call (`max_runs=3`,
`retries=3`, `stop=stop_after_attempt(3)`, ...) or, where it is defined in the
repository, from its signature's defaults; a library's filter decides whether an
assertion is retried at all (`backoff.on_exception(expo, ConnectionError)` is not).
"""

from __future__ import annotations

import pytest
from realworld_cases import check, findings

CONFIGURED = """\
    import tenacity
    from ourlib import retry_test

    from tests.helpers import rerun_later


    @retry_test({call})
    def test_configured():
        assert True
    """

HELPERS = """\
    class Rerun:
        pass


    def rerun_later(max_attempts=4):
        return Rerun()
    """

SETTINGS = """\
    [tool.detlint]
    retry-decorators = ["ourlib.retry_test", "tests.helpers.rerun_later"]
    """


def _repository(test: str) -> dict[str, str]:
    return {
        "requirements-test.txt": "pytest\ntenacity\nbackoff\n",
        "pyproject.toml": SETTINGS,
        "tests/__init__.py": "",
        "tests/helpers.py": HELPERS,
        "tests/test_configured.py": test,
    }


@pytest.mark.parametrize(
    ("call", "attempts", "origin"),
    [
        ("max_runs=3", 3, "max_runs=3 at the call"),
        ("attempts=3", 3, "attempts=3 at the call"),
        ("max_attempts=3", 3, "max_attempts=3 at the call"),
        ("tries=3", 3, "tries=3 at the call"),
        ("retries=3", 4, "retries=3 at the call, after a first attempt"),
        ("max_retries=2", 3, "max_retries=2 at the call, after a first attempt"),
        (
            "stop=tenacity.stop_after_attempt(3)",
            3,
            "stop=tenacity.stop_after_attempt(3) at the call",
        ),
        ("times=3", 3, "times=3 at the call, taken as the number of attempts"),
        ("count=3", 3, "count=3 at the call, taken as the number of attempts"),
        ("n=3", 3, "n=3 at the call, taken as the number of attempts"),
    ],
)
def test_a_configured_decorator_is_read_at_its_call(tmp_path, call, attempts, origin):
    found = findings(check(tmp_path, _repository(CONFIGURED.format(call=call))), "DET103")
    (only,) = found
    assert only["line"] == 7
    assert only["message"].startswith(
        "retry decorator ourlib.retry_test hides intermittent failures: a 10% violation is "
    )
    assert (
        f"({attempts} attempts from {origin}; 1 attempt, no trial loop recognised)"
        in (only["message"])
    )
    assert only["numbers"]["reported"] == pytest.approx(0.1**attempts)


def test_a_configured_decorator_without_a_limit_at_its_call_says_so(tmp_path):
    (only,) = findings(check(tmp_path, _repository(CONFIGURED.format(call="delay=2"))))
    assert (
        "with no literal attempt limit: a violation is reported only if every" in (only["message"])
    )


@pytest.mark.parametrize(
    ("decorator", "attempts", "origin"),
    [
        ("@rerun_later()", 4, "the default max_attempts=4"),
        ("@rerun_later(2)", 2, "max_attempts=2 at the call"),
        ("@rerun_later(max_attempts=5)", 5, "max_attempts=5 at the call"),
    ],
)
def test_a_configured_decorator_defined_here_reads_its_signature(
    tmp_path, decorator, attempts, origin
):
    """Its code does not loop where detlint can follow; the setting says it retries,
    and the signature says how many times."""
    test = CONFIGURED.replace("@retry_test({call})", decorator)
    (only,) = findings(check(tmp_path, _repository(test)), "DET103")
    assert only["message"] == (
        "retry decorator rerun_later (tests/helpers.py:5, named in retry-decorators) hides "
        f"intermittent failures: a 10% violation is reported {_percent(attempts)} of the "
        f"time instead of 10.0% ({attempts} attempts from {origin}; 1 attempt, no trial "
        "loop recognised)"
    )


def _percent(attempts: int) -> str:
    return {2: "1.0%", 4: "0.010%", 5: "<0.001%"}[attempts]


@pytest.mark.parametrize(
    "decorator",
    [
        "@backoff.on_exception(backoff.expo, ConnectionError, max_tries=3)",
        "@backoff.on_predicate(backoff.expo, max_tries=3)",
        "@tenacity.retry(stop=tenacity.stop_after_attempt(3), "
        "retry=tenacity.retry_if_exception_type(IOError))",
        "@tenacity.retry(stop=tenacity.stop_after_attempt(3), "
        "retry=tenacity.retry_if_result(lambda value: value is None))",
    ],
)
def test_a_library_retry_that_skips_assertions_hides_no_violation(tmp_path, decorator):
    test = f"import backoff\nimport tenacity\n\n\n{decorator}\ndef test_x():\n    assert True\n"
    assert findings(check(tmp_path, _repository(test))) == []


def test_a_library_retry_that_takes_assertions_still_masks(tmp_path):
    decorator = "@backoff.on_exception(backoff.expo, (AssertionError, OSError), max_tries=3)"
    test = f"import backoff\n\n\n{decorator}\ndef test_x():\n    assert True\n"
    (only,) = findings(check(tmp_path, _repository(test)))
    assert only["numbers"]["reported"] == pytest.approx(0.1**3)
