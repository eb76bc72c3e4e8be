"""``detlint evidence`` on reports the real plugins wrote (tests/fixtures/evidence/<scenario>):
each directory holds the truth harness's project (parametrized instances of one test with a
seeded 10% violation per trial) and the reports of a few of its builds, written by pytest
9.2.0 with pytest-rerunfailures 16.7, flaky 3.8.1 or pytest-retry 1.7.0. The counts asserted
are those of the files; ``bench/truth/evidence_check.py`` checks the same readings against
the truth on a thousand builds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from detlint.cli.main import cli

FIXTURES = Path(__file__).parents[1] / "fixtures" / "evidence"


def evidence(scenario: str, *extra: str) -> dict[str, Any]:
    root = FIXTURES / scenario
    reports = sorted(str(path) for path in (root / "reports").iterdir())
    args = ["evidence", "--repo", str(root), "--output-format", "json", *extra, *reports]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def by_name(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {test["test"].rsplit("::", 1)[-1]: test for test in document["tests"]}


def test_flaky_min_passes_rate_counts_attempts_not_the_passing_reruns():
    # flaky logs every rerun attempt as a bare teardown, passed or failed: with
    # min_passes=2 a green build took exactly 2 passes, so 3 attempts mean 1 failure.
    tests = by_name(evidence("flaky-max3-min2-T1"))
    case0 = tests["test_case[0]"]
    assert (case0["attempts"], case0["builds"], case0["hard_failures"]) == (7, 3, 0)
    assert case0["rate"]["basis"] == "attempts"
    assert (case0["rate"]["count"], case0["rate"]["of"]) == (1, 7)
    assert case0["rate"]["rate"] == pytest.approx(1 / 7)
    assert case0["flip_rate"] is None  # which build failed an attempt is not recorded
    assert tests["test_case[1]"]["rate"]["rate"] == 0.0  # 6 attempts, 2 passes in each build


def test_pytest_retry_rate_in_junit_comes_from_the_failed_builds():
    # JUnit keeps only pytest-retry's last call: a build fails when all 3 attempts of 5
    # trials failed, so 1 failed build of 3 gives p = (1/3) ** (1/3), q = 1 - (1 - p) ** (1/5).
    case0 = by_name(evidence("retry-retries2-T5"))["test_case[0]"]
    assert (case0["builds"], case0["hard_failures"]) == (3, 1)
    assert case0["rate"]["basis"] == "failed builds"
    p = (1 / 3) ** (1 / 3)
    assert case0["rate"]["rate"] == pytest.approx(p)
    assert case0["trials"] == 5
    assert case0["per_trial"]["rate"] == pytest.approx(1 - (1 - p) ** (1 / 5))
    assert (case0["flips"], case0["pairs"]) == (1, 2)


def test_per_trial_rate_of_a_five_trial_loop_under_reruns():
    case1 = by_name(evidence("rr-loop5-reruns2"))["test_case[1]"]
    assert (case1["first_failures"], case1["builds"], case1["hard_failures"]) == (2, 3, 1)
    assert case1["rate"]["basis"] == "first attempts"
    assert case1["rate"]["rate"] == pytest.approx(2 / 3)
    assert case1["per_trial"]["rate"] == pytest.approx(1 - (1 / 3) ** (1 / 5))  # 19.7%
    assert case1["flip_rate"] == pytest.approx(0.5)


def test_text_says_the_per_trial_rate_and_the_flip_rate():
    root = FIXTURES / "rr-loop5-reruns2"
    reports = sorted(str(path) for path in (root / "reports").iterdir())
    result = CliRunner().invoke(cli, ["evidence", "--repo", str(root), *reports])
    assert (
        "per-attempt failure rate 66.7% [20.8%, 93.9%] (95% Wilson interval, 2 of 3 first "
        "attempts); per trial 19.7% [4.5%, 42.8%] at the 5 trials per attempt the test's loop "
        "makes; flip rate 50.0% (1 of 2 build pairs)"
    ) in result.output


def test_an_xfail_is_a_failed_attempt_that_left_the_build_green():
    document = evidence("xfail-nonstrict-T1")
    case8 = by_name(document)["test_case[8]"]
    assert (case8["builds"], case8["expected_failures"], case8["hard_failures"]) == (2, 1, 0)
    assert case8["first_failures"] == 1
    assert case8["rate"]["rate"] == 0.5
    assert sum(test["first_failures"] for test in document["tests"]) == 1  # 1 XFAIL of 20


def test_a_strict_xpass_fails_the_build_without_a_failed_attempt():
    # Build 0: all ten instances XPASS(strict); build 1: nine XPASS(strict), one XFAIL.
    document = evidence("xfail-strict-T1", "--infrastructure-share", "0.999")
    assert document["infrastructure_failures"] == [
        str(FIXTURES / "xfail-strict-T1" / "reports" / "build-000.jsonl")
    ]
    tests = by_name(document)
    assert sum(test["hard_failures"] for test in tests.values()) == 9
    assert sum(test["expected_failures"] for test in tests.values()) == 1
    assert tests["test_case[8]"]["first_failures"] == 1
    assert tests["test_case[0]"]["first_failures"] == 0


def test_surefire_reruns_are_attempts_of_one_test():
    path = FIXTURES / "surefire" / "TEST-a.BTest.xml"
    result = CliRunner().invoke(cli, ["evidence", "--output-format", "json", str(path)])
    tests = by_name(json.loads(result.stdout))
    flaky, failed = tests["flakyOnce"], tests["failedAfterReruns"]
    assert (flaky["attempts"], flaky["first_failures"], flaky["flaky_passes"]) == (2, 1, 1)
    assert (failed["attempts"], failed["hard_failures"], failed["rate"]["rate"]) == (3, 1, 1.0)
    assert tests["steady"]["rate"]["rate"] == 0.0


def test_strict_xfail_under_reruns_counts_xfails_of_all_attempts():
    # pytest-rerunfailures reruns a strict XPASS (the checks passed) until an XFAIL or
    # its 4 attempts are spent; JUnit leaves the reruns bare. Every attempt but an XFAIL
    # passed its checks: test_case[0] ended in an XFAIL once in 3 builds of 10 attempts.
    tests = by_name(evidence("xfail-strict-reruns3-T1"))
    case0 = tests["test_case[0]"]
    assert (case0["attempts"], case0["builds"]) == (10, 3)
    assert (case0["hard_failures"], case0["expected_failures"]) == (2, 1)
    assert case0["rate"]["basis"] == "XFAIL attempts"
    assert (case0["rate"]["count"], case0["rate"]["of"]) == (1, 10)
    assert (case0["flips"], case0["pairs"]) == (1, 2)  # XFAIL, red, red
    case2 = tests["test_case[2]"]  # a strict XPASS in all 12 attempts: no violation seen
    assert (case2["rate"]["count"], case2["rate"]["of"], case2["flips"]) == (0, 12, 0)
