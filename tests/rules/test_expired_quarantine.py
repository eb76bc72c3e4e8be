"""DET203: a skip or xfail past the end date its reason or comment gives. The day is
fixed with DETLINT_TODAY so that the findings do not move with the calendar."""

from __future__ import annotations

from datetime import date

import pytest
from realworld_cases import check, findings

from detlint.readers.expiries import expiry_date, today

TESTS = """\
    import sys

    import pytest


    @pytest.mark.skip(reason="flaky on the new runners, until 2026-11-30")
    def test_expired_skip():
        assert 1


    @pytest.mark.xfail(reason="#12, expires=2026-12-06")
    def test_expired_xfail():
        assert 1


    @pytest.mark.xfail(reason="#12")  # revisit by 2026-12-07
    def test_ends_today():
        assert 1


    @pytest.mark.skipif(sys.platform == "win32", reason="flaky, remove after 2026-01-15")
    def test_expired_where():
        assert 1


    @pytest.mark.xfail(reason="broken since the 2026-05-01 release")
    def test_a_date_alone():
        assert 1


    @pytest.mark.skip(reason="flaky until 2099-12-31")
    def test_ahead():
        assert 1
    """

REPOSITORY = {"requirements-test.txt": "pytest\n", "tests/test_q.py": TESTS}


@pytest.fixture
def expired(tmp_path, monkeypatch) -> dict[int, str]:
    monkeypatch.setenv("DETLINT_TODAY", "2026-12-07")
    found = findings(check(tmp_path, REPOSITORY), "DET203")
    return {item["line"]: item["message"] for item in found}


def test_a_quarantine_past_its_date_is_flagged_with_how_long_ago(expired):
    assert expired[6] == (
        'skip was to end on 2026-11-30, 7 days ago (reason "flaky on the new runners, '
        'until 2026-11-30"): the test still never runs'
    )
    assert expired[11] == (
        'xfail was to end on 2026-12-06, 1 day ago (reason "#12, expires=2026-12-06"): '
        "the test still runs under it and never fails the build"
    )


def test_a_conditional_quarantine_quotes_where_it_holds(expired):
    assert expired[21].startswith(
        'skip where `sys.platform == "win32"` was to end on 2026-01-15, 326 days ago'
    )


def test_a_date_still_ahead_today_or_without_a_word_of_ending_is_no_finding(expired):
    assert set(expired) == {6, 11, 21}


def test_expiry_dates_are_read_after_a_word_of_ending_only():
    assert expiry_date("until 2027-01-31") == date(2027, 1, 31)
    assert expiry_date("Expires: 2027-02-01") == date(2027, 2, 1)
    assert expiry_date("see #3", "unquarantine by 2027-03-01") == date(2027, 3, 1)
    assert expiry_date("since the 2026-05-01 release") is None
    assert expiry_date("until 2027-02-30") is None  # no such day


def test_today_follows_the_environment(monkeypatch):
    monkeypatch.setenv("DETLINT_TODAY", "2030-01-02")
    assert today() == date(2030, 1, 2)
    monkeypatch.setenv("DETLINT_TODAY", "not a date")
    assert today() == date.today()
