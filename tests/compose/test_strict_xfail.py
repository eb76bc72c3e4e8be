"""A strict xfail turns the build red when the test passes, and the rerun plugins
each treat that XPASS(strict) their own way.

Checked against the real plugins (pytest 8.4, pytest-rerunfailures 16.x) on 2000
parametrized cases of five seeded trials each at a 10% violation rate per trial: a plain
``xfail(strict=True)`` was red for 1195 (59.8%; model 0.9**5 = 59.0%); with
``flaky(reruns=3)`` 237 (11.9%; model 0.9**20 = 12.2%), the XPASS(strict) rerun until an
attempt is XFAIL; with ``--reruns 2`` from the command line 418 (20.9%; model 0.9**15 =
20.6%). pytest-retry never retries an xpassed test, and under the flaky package a strict
XPASS is suppressed and counted a success (docs/semantics, "xfail").
"""

from __future__ import annotations

import pytest
from realworld_cases import FLAKY, RERUNFAILURES, RETRY, audit, check, findings, one_test

LOOP = """\
import pytest


{marks}
def test_known_bug():
    for _ in range(5):
        assert run() == 1
"""
STRICT = '@pytest.mark.xfail(strict=True, reason="#12")'


def _test(tmp_path, marks: str, files: dict[str, str]) -> dict:
    document = audit(tmp_path, {"tests/test_a.py": LOOP.format(marks=marks), **files})
    return one_test(document, "test_known_bug")


def test_a_strict_xfail_is_red_when_the_test_passes(tmp_path) -> None:
    test = _test(tmp_path, STRICT, RERUNFAILURES)
    assert test["gate"]["blocks"] is True
    assert [layer["kind"] for layer in test["layers"]] == ["strict_xfail"]
    assert test["numbers"]["reported"] == pytest.approx(0.9**5)


def test_the_config_makes_a_bare_xfail_strict(tmp_path) -> None:
    files = {**RERUNFAILURES, "pytest.ini": "[pytest]\nxfail_strict = true\n"}
    test = _test(tmp_path, '@pytest.mark.xfail(reason="#12")', files)
    assert test["gate"]["blocks"] is True
    assert test["numbers"]["reported"] == pytest.approx(0.9**5)


def test_rerunfailures_reruns_a_strict_xpass(tmp_path) -> None:
    test = _test(tmp_path, f"{STRICT}\n@pytest.mark.flaky(reruns=3)", RERUNFAILURES)
    assert [layer["kind"] for layer in test["layers"]] == ["strict_xfail", "reruns"]
    assert test["numbers"]["reported"] == pytest.approx(0.9**20)
    assert test["numbers"]["reported_without"] == pytest.approx(1 - 0.9**5)
    assert any("reruns a strict XPASS" in note for note in test["notes"])


def test_pytest_retry_does_not_retry_a_strict_xpass(tmp_path) -> None:
    test = _test(tmp_path, f"{STRICT}\n@pytest.mark.flaky(retries=3)", RETRY)
    assert [layer["kind"] for layer in test["layers"]] == ["strict_xfail"]
    assert test["numbers"]["reported"] == pytest.approx(0.9**5)
    assert any("does not retry an xpassed test" in note for note in test["notes"])


def test_the_flaky_package_hides_a_strict_xpass(tmp_path) -> None:
    test = _test(tmp_path, f"{STRICT}\n@pytest.mark.flaky(max_runs=3)", FLAKY)
    assert test["gate"]["blocks"] is False
    assert test["numbers"]["reported"] == 0.0
    assert any("suppresses a strict XPASS" in note for note in test["notes"])


def test_a_known_bug_marker_is_no_hidden_violation(tmp_path) -> None:
    """A rerun on a strict xfail hides a fixed bug, not a violation: neither the retry
    rules nor the quarantine rule speak of it."""
    files = {"tests/test_a.py": LOOP.format(marks=f"{STRICT}\n@pytest.mark.flaky(reruns=3)")}
    assert findings(check(tmp_path, {**files, **RERUNFAILURES})) == []


def test_a_conditional_strict_xfail_says_how_often_a_pass_is_red_there(tmp_path) -> None:
    """Where the xfail holds, ``reruns=10`` reruns each XPASS(strict): red only when all
    eleven attempts pass, 0.9**11 = 31.4% at a 10% violation rate."""
    marks = (
        "@pytest.mark.xfail(sys.platform == 'win32', reason='#12', strict=True)\n"
        "@pytest.mark.flaky(reruns=10)"
    )
    source = "import sys\n" + LOOP.format(marks=marks).replace("range(5)", "range(1)")
    (found,) = findings(check(tmp_path, {"tests/test_a.py": source, **RERUNFAILURES}), "DET101")
    assert found["numbers"]["reported"] == pytest.approx(0.1**11)
    assert "where the test runs" in found["message"]
    assert found["message"].endswith(
        "; elsewhere: XFAIL(strict) where `sys.platform == 'win32'` (red 31.4% of runs there)"
    )


RETRIED_JOB = """\
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: nick-fields/retry@v3
        with:
          max_attempts: 3
          timeout_minutes: 10
          command: pytest tests
"""


def test_a_job_retry_is_not_quoted_for_a_strict_xfail(tmp_path) -> None:
    """Job retries over a strict xfail make a fixed bug's XPASS red less often; the job
    retry rules quote a single-attempt test, and no stacked retries, for it."""
    source = LOOP.format(marks=f"{STRICT}\n@pytest.mark.flaky(reruns=2)")
    files = {"tests/test_a.py": source, ".github/workflows/ci.yml": RETRIED_JOB}
    document = check(tmp_path, {**files, **RERUNFAILURES})
    (found,) = findings(document)
    assert found["code"] == "DET411"
    assert (
        "reported 0.10% of the time instead of 10.0% in a single-attempt test" in found["message"]
    )
