"""DET103 on a retry decorator on a function a test imports from another module of the
repository (not a test module), called by name, through the module, under another
name, or through a function without a retry of its own: the decorator retries the
checks that function holds. One that retries only exceptions that are no assertion
gives nothing.
"""

from __future__ import annotations

import pytest
from realworld_cases import check, findings

UTILS = """\
import requests
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_fixed


@retry(stop=stop_after_attempt(12), wait=wait_fixed(10))
def ensure_ready(n):
    assert requests.get("/n").json() >= n


@retry(stop=stop_after_attempt(4))
def ensure_workers(name):
    assert requests.get(name).ok


@retry(stop=stop_after_attempt(5), retry=retry_if_exception_type(ConnectionError))
def fetch(name):
    assert requests.get(name).ok


@retry(stop=stop_after_attempt(6))
def get_endpoint(name):
    response = requests.get(name)
    if not response.ok:
        raise ValueError(response.content)
    return response.json()


def ensure_works(name):
    response = requests.post(name)
    ensure_workers(name)
    return response
"""

RELATIVE = """\
import os

from .utils import ensure_ready, get_endpoint

LIMIT = os.environ.get("LIMIT", "1")


def test_ready():
    ensure_ready(int(LIMIT))


def test_plain():
    assert LIMIT


def test_get():
    assert get_endpoint("e")["ready"]
"""

ABSOLUTE = """\
from tests.utils import ensure_workers as workers, fetch


def test_alias():
    workers("a")


def test_fetch():
    fetch("c")
"""

THROUGH = """\
from tests import utils


def test_attribute():
    utils.ensure_workers("b")


def test_through():
    utils.ensure_works("d")
"""

ORDER = """\
from tenacity import retry, stop_after_attempt

from tests.utils import ensure_ready, ensure_workers


@retry(stop=stop_after_attempt(2))
def check_local(value):
    assert value


def test_order():
    ensure_workers("f")
    ensure_workers("g")
    ensure_ready(2)
    check_local(1)
"""

REPOSITORY = {
    "requirements-test.txt": "pytest\\ntenacity\\n",
    "tests/__init__.py": "",
    "tests/utils.py": UTILS,
    "tests/test_relative.py": RELATIVE,
    "tests/test_absolute.py": ABSOLUTE,
    "tests/test_through.py": THROUGH,
    "tests/test_order.py": ORDER,
}

FIGURE = "it retries the checks that function holds, and the figure is for a violation among them"


def _by_line(tmp_path) -> dict[int, dict]:
    found = findings(check(tmp_path, REPOSITORY), "DET103")
    return {f["line"]: f for f in found if f["path"] == "tests/utils.py"}


def test_a_function_imported_relatively(tmp_path):
    found = _by_line(tmp_path)[5]
    assert found["message"] == (
        "retry decorator tenacity.retry hides intermittent failures: a 10% violation is "
        "reported <0.001% of the time instead of 10.0% (12 attempts; on ensure_ready "
        f"(line 6), which the test calls: {FIGURE}; 1 attempt, no trial loop recognised)"
    )
    assert found["numbers"]["reported"] == pytest.approx(0.1**12)


def test_under_another_name_through_its_module_and_through_a_function(tmp_path):
    """`workers("a")`, `utils.ensure_workers("b")` and `utils.ensure_works("d")`, which
    calls it with no retry of its own: three tests, one figure each."""
    found = _by_line(tmp_path)[10]
    assert found["message"].startswith(
        "retry decorator tenacity.retry hides intermittent failures: a 10% violation is "
        "reported 0.010% of the time instead of 10.0% (4 attempts; on ensure_workers "
        "(line 11), which the test calls"
    )
    assert found["message"].endswith(
        f"{FIGURE}; 1 attempt, no trial loop recognised; covers 3 tests, 3 test instances)"
    )
    assert found["numbers"]["reported"] == pytest.approx(0.1**4)


def test_a_retry_of_other_exceptions_or_of_an_operation_gives_nothing(tmp_path):
    """`fetch` retries ConnectionError alone: its failing assertion is not retried.
    `get_endpoint` raises ValueError when its request fails and asserts nothing: its
    retry retries the request, not a check (the test's own assert is outside it)."""
    assert set(_by_line(tmp_path)) == {5, 10}


def test_a_test_calling_several_retried_functions(tmp_path):
    """`test_order` calls `ensure_workers` twice (no figure for it), `ensure_ready` and
    its own module's `check_local` once each. A test is composed with one retry
    decorator: one with a figure, of the test's own module first."""
    found = findings(check(tmp_path, REPOSITORY), "DET103")
    (local,) = [f for f in found if f["path"] == "tests/test_order.py"]
    assert local["line"] == 6
    assert local["message"] == (
        "retry decorator tenacity.retry hides intermittent failures: a 10% violation is "
        "reported 1.0% of the time instead of 10.0% (2 attempts; on check_local (line 7), "
        f"which the test calls: {FIGURE}; 1 attempt, no trial loop recognised)"
    )
    assert "covers 3 tests" in _by_line(tmp_path)[10]["message"]
    assert "covers" not in _by_line(tmp_path)[5]["message"]


def test_the_function_a_test_reaches_it_through_is_named(tmp_path):
    chain = {
        **{k: v for k, v in REPOSITORY.items() if not k.startswith("tests/test_")},
        "tests/test_chain.py": (
            'from tests import utils\n\n\ndef test_it():\n    utils.ensure_works("d")\n'
        ),
    }
    (found,) = findings(check(tmp_path, chain), "DET103")
    assert (found["path"], found["line"]) == ("tests/utils.py", 10)
    assert found["message"] == (
        "retry decorator tenacity.retry hides intermittent failures: a 10% violation is "
        "reported 0.010% of the time instead of 10.0% (4 attempts; on ensure_workers "
        f"(line 11), which the test calls through ensure_works: {FIGURE}; 1 attempt, no "
        "trial loop recognised)"
    )
