"""A decorator of the repository's own that returns a wrapper it decorates with a rerun
knob (``@flaky(max_runs=limit) @wraps(fn) def wrapper``), built directly or in a nested
function it calls, applies that knob to the test: its count is read with the names the
enclosing functions bind, and a bare use leaves the decorator's parameters at their
defaults, which the finding names. A call that may set one of those parameters is not
given the defaults' count.
"""

from __future__ import annotations

from realworld_cases import check, findings

UTILS = """\
from functools import wraps

import pytest
from flaky import flaky


def retry_failed(fn=None, extended: bool = False):
    def decorate():
        limit = 20 if extended else 5

        @flaky(max_runs=limit, min_passes=1)
        @wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)

        return wrapper

    return decorate() if fn else decorate


def rerun_twice(fn):
    @pytest.mark.flaky(max_runs=3)
    @wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


def cached(fn):
    @wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


def replaced(fn):
    @flaky(max_runs=4)
    def other():
        return None

    return other
"""

TESTS = """\
from tests.utils import cached, replaced, rerun_twice, retry_failed


@retry_failed
def test_bare():
    assert 1


@retry_failed(extended=True)
def test_extended():
    assert 1


@rerun_twice
def test_marked_wrapper():
    assert 1


@cached
def test_cached():
    assert 1


@replaced
def test_replaced():
    assert 1
"""

REPOSITORY = {
    "pyproject.toml": (
        '[project]\nname = "x"\n[project.optional-dependencies]\ntest = ["pytest", "flaky"]\n'
    ),
    "tests/__init__.py": "",
    "tests/utils.py": UTILS,
    "tests/test_wrapped.py": TESTS,
}


def test_a_wrapper_decorated_with_a_knob_applies_it_to_the_test(tmp_path):
    document = check(tmp_path, REPOSITORY)
    by_line = {f["line"]: f for f in findings(document)}
    assert sorted(by_line) == [4, 9, 14]
    bare = by_line[4]
    assert bare["code"] == "DET101"
    assert "max_runs=5, min_passes=1" in bare["message"]
    assert "retry_failed with its default extended=False" in bare["message"]
    assert "reported <0.001% of the time instead of 10.0%" in bare["message"]
    # The call may set `extended`: no count read with its default.
    extended = by_line[9]
    assert extended["code"] == "DET103"
    assert "no literal attempt limit" in extended["message"]
    assert "max_runs=5" not in extended["message"]
    marked = by_line[14]
    assert marked["code"] == "DET101"
    assert "max_runs=3" in marked["message"]
    assert "reported 0.10% of the time instead of 10.0%" in marked["message"]
