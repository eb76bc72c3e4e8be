"""Pass thresholds: ``passes >= k`` of N trials fails only when m = N - k + 1 fail.

One attempt then detects ``P[Binomial(N, q) >= m]``, and for a fixed k more trials
lower detection. The numbers below are that tail at the default reference rate
(10%); the model's tests cross-check it with scipy and a simulation.
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, audit, check, findings, one_test, only
from scipy.stats import binom

HEADER = "import os\n\nimport pytest\n\nTRIALS = int(os.getenv('TRIALS', '5'))\n"
NO_LOOP = "1 attempt, no trial loop recognised"


def _module(body: str, marked: bool = True) -> str:
    mark = "@pytest.mark.flaky(reruns=1)\n" if marked else ""
    lines = "".join(f"    {line}\n" for line in body.strip("\n").split("\n"))
    return f"{HEADER}\n\n{mark}def test_loop():\n{lines}"


def _trials(tmp_path, body: str) -> str:
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_loop.py": _module(body)})
    message = only(document, "DET101")["message"]
    return message[message.rindex("; ") + 2 : message.rindex(")")]


COUNTED = "passes = 0\nfor _ in range({n}):\n    if run() == EXPECTED:\n        passes += 1\n"
FAILED = "fails = 0\nfor _ in range({n}):\n    if run() != EXPECTED:\n        fails += 1\n"


@pytest.mark.parametrize(
    ("body", "trials"),
    [
        (
            COUNTED.format(n=5) + "assert passes >= 3",
            "5 trials (literal loop bound), the test failing only when 3 of them fail",
        ),
        (
            FAILED.format(n=5) + "assert fails <= 1",
            "5 trials (literal loop bound), the test failing only when 2 of them fail",
        ),
        (
            FAILED.format(n=5) + "assert fails < 2",
            "5 trials (literal loop bound), the test failing only when 2 of them fail",
        ),
        (
            "n = 5\n" + COUNTED.format(n="n") + "assert passes > n // 2",
            "5 trials (literal loop bound), the test failing only when 3 of them fail",
        ),
        # Read the other way round, with the bound on the left.
        (
            COUNTED.format(n=5) + "assert 4 <= passes",
            "5 trials (literal loop bound), the test failing only when 2 of them fail",
        ),
        # A fraction of the count, as Python computes it: 0.8 * 10 == 8.0, 8 passes.
        (
            "n = 10\n" + COUNTED.format(n="n") + "assert passes >= 0.8 * n",
            "10 trials (literal loop bound), the test failing only when 3 of them fail",
        ),
        # ... and 0.07 * 100 == 7.000000000000001: 8 passes, not 7.
        (
            COUNTED.format(n=100) + "assert passes >= 0.07 * 100",
            "100 trials (literal loop bound), the test failing only when 93 of them fail",
        ),
        (
            "results = []\nfor _ in range(5):\n    results.append(run() == EXPECTED)\n"
            "assert sum(results) >= 4",
            "5 trials (literal loop bound), the test failing only when 2 of them fail",
        ),
        (
            "results = []\nfor _ in range(5):\n    ok = run() == EXPECTED\n    results.append(ok)\n"
            "assert sum(results) >= 4",
            "5 trials (literal loop bound), the test failing only when 2 of them fail",
        ),
        # One passing trial is enough: every one must fail.
        (
            "results = []\nfor _ in range(4):\n    results.append(run() == EXPECTED)\n"
            "assert any(results)",
            "4 trials (literal loop bound), the test failing only when all of them fail",
        ),
        (
            "assert any(run() == EXPECTED for _ in range(4))",
            "4 trials (literal loop bound), the test failing only when all of them fail",
        ),
        # The environment-bound variant: N - 1 passes needed, whatever N is.
        (
            COUNTED.format(n="TRIALS") + "assert passes >= TRIALS - 1",
            "5 trials from TRIALS, the test failing only when 2 of them fail",
        ),
        # Every trial required is no threshold at all.
        (COUNTED.format(n=5) + "assert passes == 5", "5 trials (literal loop bound)"),
        (FAILED.format(n=5) + "assert fails == 0", "5 trials (literal loop bound)"),
        (COUNTED.format(n="TRIALS") + "assert passes >= TRIALS", "5 trials from TRIALS"),
        # A bound detlint cannot read: no trial count rather than a wrong one.
        (COUNTED.format(n=5) + "assert passes >= minimum_passes()", NO_LOOP),
        # A check that never fails, or one of an exact count of passes.
        (FAILED.format(n=5) + "assert fails <= 5", NO_LOOP),
        (COUNTED.format(n=5) + "assert passes == 3", NO_LOOP),
    ],
)
def test_thresholds(tmp_path, body, trials):
    assert _trials(tmp_path, body) == trials


def test_majority_threshold_numbers(tmp_path):
    """``passes >= 3`` of 5 (a literal loop in a test a rerun marker marks flaky): fails
    when 3 fail, P[Binom(5, 0.1) >= 3] = 0.856%."""
    body = COUNTED.format(n=5) + "assert passes >= 3"
    document = check(
        tmp_path,
        {**RERUNFAILURES, "tests/test_loop.py": _module(body)},
        "--extend-select",
        "DET301",
    )
    finding = only(document, "DET301")
    assert finding["line"] == 11  # the loop's bound
    assert binom.sf(2, 5, 0.1) == pytest.approx(0.00856)
    assert finding["numbers"]["reported_without"] == pytest.approx(binom.sf(2, 5, 0.1))
    assert finding["message"] == (
        "5 trials (literal loop bound), the test failing only when 3 of them fail: one attempt "
        "detects a 10% violation 0.86% of the time, under the 95% target (test_loop)"
    )
    assert finding["help"] == (
        "the check passes with up to 2 of 5 trials failing; require every trial to pass "
        "(5 trials then detect a 10% violation 41.0% of the time per attempt; raise the "
        "trial loop from 5 to 29 iterations to reach 95%); more trials under this threshold "
        "lower detection, they do not raise it"
    )
    assert finding["numbers"]["trials_needed"] is None  # no count answers under it


def test_env_bound_threshold_numbers(tmp_path):
    """``passes >= TRIALS - 1``: 2 failing trials fail it at any count, so more trials
    help: 46 is the smallest N with P[Binom(N, 0.1) >= 2] >= 95%."""
    body = COUNTED.format(n="TRIALS") + "assert passes >= TRIALS - 1"
    document = check(
        tmp_path,
        {**RERUNFAILURES, "tests/test_loop.py": _module(body, marked=False)},
        "--extend-select",
        "DET301",
    )
    finding = only(document, "DET301")
    assert finding["line"] == 5
    assert binom.sf(1, 45, 0.1) < 0.95 <= binom.sf(1, 46, 0.1)
    assert finding["message"] == (
        "5 trials from TRIALS, the test failing only when 2 of them fail: one attempt detects "
        "a 10% violation 8.1% of the time, under the 95% target (test_loop)"
    )
    assert finding["help"] == (
        "raise TRIALS to 46 to reach 95% with this threshold, or require every trial to pass "
        "(5 trials then detect a 10% violation 41.0% of the time per attempt; raise TRIALS to "
        "29 to reach 95%)"
    )
    assert finding["numbers"]["trials_needed"] == 46


def test_a_rerun_marker_on_a_threshold_test(tmp_path):
    """``fails <= 1`` of 5 with reruns=1: 8.146% per attempt, 0.66% with the rerun; the
    threshold fails on 2 failing trials at any count, so raising the loop helps."""
    body = FAILED.format(n=5) + "assert fails <= 1"
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_loop.py": _module(body)})
    finding = only(document, "DET101")
    attempt = binom.sf(1, 5, 0.1)
    assert finding["numbers"]["reported"] == pytest.approx(attempt**2)
    assert finding["numbers"]["reported_without"] == pytest.approx(attempt)
    assert "reported 0.66% of the time instead of 8.1%" in finding["message"]
    assert finding["help"].startswith(
        "drop the marker and raise the trial loop from 5 to 46 iterations "
        "(reports a 10% violation 95% of the time)"
    )


def test_a_fixed_pass_count_is_not_raised(tmp_path):
    """``passes >= 3`` under a rerun marker: the help asks for every trial to pass, and
    no fix raises the count (it would lower detection)."""
    body = COUNTED.format(n="TRIALS") + "assert passes >= 3"
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_loop.py": _module(body)})
    finding = only(document, "DET101")
    assert finding["help"].startswith(
        "drop the marker and require every trial to pass (the check needs 3 passes of 5) "
        "and raise TRIALS to 29 (reports a 10% violation 95% of the time)"
    )
    assert finding["numbers"]["trials_needed"] is None
    assert finding["fix"]["message"].startswith("Replace the rerun marker by xfail")


@pytest.mark.parametrize(
    "body",
    [
        "for _ in range(5):\n    assert run() == EXPECTED",
        COUNTED.format(n=5) + "assert passes >= 3",
    ],
)
def test_an_ordinary_literal_loop_is_not_flagged(tmp_path, body):
    """A literal loop in a test no knob marks flaky is a loop, threshold or not (and its
    file is not even read unless something else in it is worth reading)."""
    document = check(
        tmp_path,
        {**RERUNFAILURES, "tests/test_loop.py": _module(body, marked=False)},
        "--extend-select",
        "DET301",
    )
    assert not findings(document, "DET301")


def test_a_ci_step_sets_the_count_the_threshold_is_read_at(tmp_path):
    """TRIALS=3 in CI: ``passes >= TRIALS - 1`` still fails on 2 failing trials,
    P[Binom(3, 0.1) >= 2] = 2.8% against 8.1% at the default 5 (DET302). Under
    ``passes >= 3`` the 3 trials must all pass: detection rises (0.86% -> 27.1%), and
    the override is no loss."""
    passes = "    passes = 0\n    for _ in range(TRIALS):\n        if run() == EXPECTED:\n"
    document = check(
        tmp_path,
        {
            "tests/test_k.py": HEADER
            + f"\n\ndef test_all_but_one():\n{passes}            passes += 1\n"
            + "    assert passes >= TRIALS - 1\n"
            + f"\n\ndef test_three_passes():\n{passes}            passes += 1\n"
            + "    assert passes >= 3\n",
            ".github/workflows/ci.yml": "name: ci\non: [push]\njobs:\n  fast:\n"
            "    runs-on: ubuntu-latest\n    env:\n      TRIALS: '3'\n    steps:\n"
            "      - uses: actions/checkout@v4\n      - run: pytest tests/test_k.py\n",
        },
    )
    finding = only(document, "DET302")
    assert finding["numbers"]["reported"] == pytest.approx(binom.sf(1, 3, 0.1))
    assert finding["numbers"]["reported_without"] == pytest.approx(binom.sf(1, 5, 0.1))
    assert (
        "sets TRIALS=3, below the test's own 5: a 10% violation is reported 2.8% of the time "
        "instead of 8.1% in tests/test_k.py::test_all_but_one"
    ) in finding["message"]


def test_the_audit_gives_the_failing_trials_that_fail_the_test(tmp_path):
    body = COUNTED.format(n=5) + "assert passes >= 3"
    document = audit(tmp_path, {**RERUNFAILURES, "tests/test_loop.py": _module(body)})
    trials = one_test(document, "test_loop")["trials"]
    assert (trials["count"], trials["fails_at"], trials["line"]) == (5, 3, 11)
    assert one_test(document, "test_loop")["numbers"]["reported_without"] == pytest.approx(
        binom.sf(2, 5, 0.1)
    )
