"""DET201 and DET202 on reasons that say "unstable": flaky where the test is unstable
("TODO: unstable test", "unstable on Windows"), not where the reason, its comment or
the test's own name says the instability is numerics or a difference between
implementations and platforms (scipy's "Too unstable across LAPACKs.", "Test unstable
on some platforms", ``xfail(reason='unstable')`` on ``test_cubic_deriv_unstable``).
"""

from __future__ import annotations

from realworld_cases import check, findings

TESTS = """\
import sys

import pytest


@pytest.mark.xfail(reason="Too unstable across LAPACKs.")
def test_singular():
    assert 1


@pytest.mark.xfail(reason="unstable")
def test_cubic_deriv_unstable():
    assert 1


@pytest.mark.xfail(reason="unstable")
def test_cubic_deriv():
    assert 1


def test_pdf(case):
    if sys.maxsize < 2**32:
        pytest.skip("Test unstable on some platforms; see gh-17839")
    assert case


@pytest.mark.xfail(reason="unstable")  # numerically unstable for long knots
def test_long_knots():
    assert 1


@pytest.mark.skip("TODO: unstable test")
def test_schedule():
    assert 1


@pytest.mark.skipif(sys.platform == "win32", reason="ProcPool start/stop is unstable on Windows")
def test_pool():
    assert 1
"""


def test_unstable_is_flaky_only_when_nothing_says_numerics_or_platforms(tmp_path):
    document = check(tmp_path, {"tests/test_unstable.py": TESTS})
    lines = {
        (f["code"], f["line"]) for f in findings(document) if f["code"] in ("DET201", "DET202")
    }
    assert lines == {("DET201", 16), ("DET202", 32), ("DET202", 37)}
