"""What CI history says about a test: counts, Wilson intervals, what knobs hid, and
what green builds prove.

The builds here are written as records; tests/test_evidence_cli.py runs the
command on reports that real pytest runs wrote.
"""

from __future__ import annotations

import pytest
from scipy.stats import binomtest

from detlint.base.percentages import percent
from detlint.evidence.reports.records import Build, TestAttempts
from detlint.evidence.sentences import green, hidden, measured
from detlint.evidence.view import attempt_policy, evidence_view, infrastructure_failure
from detlint.model import BLOCKING, Policy, Reruns

TEST = "tests/test_kernel.py::test_deterministic"


def attempts(test: str, tries: int, failed: int, outcome: str) -> TestAttempts:
    return TestAttempts(
        test=test,
        classname="",
        name=test.rpartition("::")[2],
        file=None,
        attempts=tries,
        failed_attempts=failed,
        outcome=outcome,
    )


def history(flaky: int, failed: int, total: int, others: int = 0) -> list[Build]:
    """``total`` builds of TEST: ``flaky`` passed on a rerun, ``failed`` failed for good."""
    builds = []
    for index in range(total):
        if index < flaky:
            mine = attempts(TEST, 2, 1, "passed")
        elif index < flaky + failed:
            mine = attempts(TEST, 4, 4, "failed")
        else:
            mine = attempts(TEST, 1, 0, "passed")
        rest = tuple(
            attempts(f"tests/test_other.py::test_{n}", 1, 0, "passed") for n in range(others)
        )
        builds.append(Build(f"build-{index}.xml", None, (mine, *rest), "junit"))
    return builds


def wilson(k: int, n: int) -> tuple[float, float]:
    interval = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(interval.low), float(interval.high)


def reruns(count: int, trials: int = 1) -> Policy:
    return Policy(trials=trials, layers=(Reruns(count),), gate=BLOCKING)


def test_counts_and_the_wilson_interval_of_the_first_attempts():
    view = evidence_view(history(flaky=7, failed=1, total=200))
    (test,) = view.tests
    assert (test.builds, test.attempts) == (200, 7 * 2 + 4 + 192)
    assert (test.first_failures, test.flaky_passes, test.hard_failures) == (8, 7, 1)
    assert test.rate.rate == 8 / 200
    assert (test.rate.low, test.rate.high) == pytest.approx(wilson(8, 200), rel=1e-12)
    assert test.green == 199
    assert "7 of 200 builds needed a rerun to pass; 1 of 200 builds failed" in measured(test)
    assert "per-attempt failure rate 4.0% [2.0%, 7.7%]" in measured(test)


def test_what_the_knob_hid_and_what_the_green_builds_prove():
    """Under reruns=3 a 3.5% attempt failure turns 0.035**4 of builds red; 193 green
    builds bound q by 1 - 0.05**(1/193) without the knob, and by its fourth root with it."""

    def policy_of(_: TestAttempts) -> tuple[str, Policy, str]:
        return TEST, reruns(3, trials=5), "reruns=3 (pytest-rerunfailures, 4 attempts)"

    view = evidence_view(history(flaky=7, failed=0, total=200), policy_of)
    (test,) = view.tests
    rate = 7 / 200
    assert test.policy == attempt_policy(reruns(3, trials=5))
    assert test.policy.trials == 1  # the measured rate is per attempt: trials are inside it
    assert test.reported == pytest.approx(rate**4)
    assert test.hidden == pytest.approx(rate - rate**4)
    without = 1 - 0.05 ** (1 / 200)
    assert test.green_bound_without == pytest.approx(without)
    assert test.green_bound == pytest.approx(without**0.25)
    assert hidden(test) == (
        "under reruns=3 (pytest-rerunfailures, 4 attempts): a violation this frequent is "
        "reported <0.001% of the time, 3.5% without"  # 0.035**4 = 0.00015%
    )
    assert green(test).startswith(
        "200 builds green under reruns=3 (pytest-rerunfailures, 4 attempts) only show "
        f"q < {percent(without**0.25)}; without the knob the same builds would show q < 1.5%"
    )


def suite(failing: int, count: int) -> tuple[TestAttempts, ...]:
    """``count`` other tests, the first ``failing`` of them failing for good."""
    return tuple(
        attempts(
            f"tests/test_other.py::test_{n}",
            1,
            int(n < failing),
            "failed" if n < failing else "passed",
        )
        for n in range(count)
    )


def test_builds_where_most_tests_failed_are_set_apart():
    builds = history(flaky=2, failed=0, total=50, others=9)
    broken = Build(
        "build-broken.xml", None, (*suite(9, 9), attempts(TEST, 1, 1, "failed")), "junit"
    )
    # Half the tests failed: evidence, not an infrastructure failure.
    half = Build("build-half.xml", None, (*suite(5, 9), attempts(TEST, 1, 0, "passed")), "junit")
    assert infrastructure_failure(broken)
    assert not infrastructure_failure(half)
    view = evidence_view([*builds, broken, half])
    assert view.infrastructure == ("build-broken.xml",)
    mine = next(test for test in view.tests if test.test == TEST)
    assert (mine.builds, mine.first_failures) == (51, 2)
    assert view.tests[0].test == TEST  # ranked: the flaky one before those that never failed


def test_the_share_is_configurable_and_small_builds_are_never_set_apart():
    tiny = Build("tiny.xml", None, (attempts(TEST, 1, 1, "failed"),), "junit")
    assert not infrastructure_failure(tiny)
    builds = history(flaky=0, failed=0, total=3, others=9)
    six_of_ten = Build("six.xml", None, suite(6, 10), "junit")
    assert evidence_view([*builds, six_of_ten], share=0.5).infrastructure == ("six.xml",)
    assert evidence_view([*builds, six_of_ten]).infrastructure == ()


def test_skipped_runs_are_no_evidence():
    builds = history(flaky=0, failed=0, total=10)
    builds.append(Build("skipped.xml", None, (attempts(TEST, 1, 0, "skipped"),), "junit"))
    (test,) = evidence_view(builds).tests
    assert test.builds == 10
