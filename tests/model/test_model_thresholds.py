"""Pass thresholds over trials: one attempt detects ``P[Binomial(T, q) >= m]``.

The tail is summed exactly (``detlint.model.threshold.at_least``), cross-checked
with ``scipy.stats.binom`` and against a simulation that counts passes and
evaluates the test's own comparison, as the test does.
"""

from __future__ import annotations

import itertools
import math
import zlib

import montecarlo as mc
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binom

from detlint.base.percentages import percent
from detlint.model import Policy, Reruns, Threshold
from detlint.model.threshold import at_least, evaluate

N_SIMULATED = 20_000
AT_LEAST_THREE = Threshold("passes", ">=", ("num", 3))  # passes >= 3
ALL_BUT_ONE = Threshold("passes", ">=", ("-", ("n",), ("num", 1)))  # passes >= N - 1
AT_MOST_ONE_FAILURE = Threshold("failures", "<=", ("num", 1))  # failures <= 1
MAJORITY = Threshold("passes", ">", ("//", ("n",), ("num", 2)))  # passes > N // 2
EIGHTY_PERCENT = Threshold("passes", ">=", ("*", ("num", 0.8), ("n",)))  # passes >= 0.8 * N


def test_the_majority_of_five():
    """``passes >= 3`` of 5 fails only when 3 trials fail."""
    policy = Policy(trials=5, threshold=AT_LEAST_THREE)
    assert policy.fails_at == 3
    assert policy.attempt(0.1) == pytest.approx(binom.sf(2, 5, 0.1), rel=1e-12)
    assert percent(policy.attempt(0.1)) == "0.86%"
    assert percent(policy.every_trial().attempt(0.1)) == "41.0%"
    assert policy.describe() == "5 trials per attempt, the test failing only when 3 of them fail"


@pytest.mark.parametrize(
    ("threshold", "trials", "needed", "failing"),
    [
        (AT_LEAST_THREE, 5, 3, 3),
        (AT_LEAST_THREE, 10, 3, 8),
        (ALL_BUT_ONE, 5, 4, 2),
        (ALL_BUT_ONE, 50, 49, 2),
        (AT_MOST_ONE_FAILURE, 5, 4, 2),
        (AT_MOST_ONE_FAILURE, 9, 8, 2),
        (Threshold("failures", "<", ("num", 2)), 5, 4, 2),
        (MAJORITY, 5, 3, 3),
        (MAJORITY, 6, 4, 3),
        (EIGHTY_PERCENT, 10, 8, 3),
        (EIGHTY_PERCENT, 9, 8, 2),  # 7.2 rounds up
        (Threshold("passes", ">=", ("num", 1)), 4, 1, 4),
        # Python's float product, as the test computes it: 0.07 * 100 is 7.000000000000001.
        (Threshold("passes", ">=", ("*", ("num", 0.07), ("num", 100))), 100, 8, 93),
        (Threshold("passes", ">=", ("int", ("*", ("num", 0.5), ("n",)))), 7, 3, 5),
        (Threshold("passes", ">=", ("ceil", ("*", ("num", 0.5), ("n",)))), 7, 4, 4),
    ],
)
def test_passes_needed_and_failing_trials(threshold, trials, needed, failing):
    assert threshold.passes_needed(trials) == needed
    assert threshold.fails_at(trials) == failing


def test_whether_m_follows_the_count():
    assert ALL_BUT_ONE.follows_count
    assert AT_MOST_ONE_FAILURE.follows_count
    assert not AT_LEAST_THREE.follows_count
    assert AT_LEAST_THREE.fixed_passes
    assert not MAJORITY.follows_count
    assert not MAJORITY.fixed_passes
    assert not EIGHTY_PERCENT.follows_count
    assert Threshold("passes", ">=", ("+", ("num", 2), ("-", ("n",), ("num", 3)))).follows_count
    assert not Threshold("passes", ">=", ("-", ("n",), ("num", 0.5))).follows_count


def test_evaluation_is_pythons_own_arithmetic():
    assert evaluate(("*", ("num", 0.07), ("num", 100)), 1) == 0.07 * 100
    assert evaluate(("//", ("n",), ("num", 2)), 7) == 3
    assert evaluate(("neg", ("n",)), 4) == -4


@given(
    trials=st.integers(min_value=1, max_value=2_000),
    count=st.integers(min_value=-1, max_value=2_001),
    q=st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
)
def test_the_tail_agrees_with_scipy(trials, count, q):
    expected = float(binom.sf(count - 1, trials, q))
    assert at_least(q, trials, count) == pytest.approx(expected, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize(
    ("trials", "count", "q"), [(10**9, 2, 1e-9), (5_000, 2_600, 0.5), (1_000, 10, 1e-5)]
)
def test_the_tail_of_large_counts(trials, count, q):
    expected = float(binom.sf(count - 1, trials, q))
    assert at_least(q, trials, count) == pytest.approx(expected, rel=1e-9)


def test_more_trials_under_a_fixed_pass_count_lower_detection():
    """For ``passes >= 3`` detection is highest at 3 trials (every one must pass) and
    falls with each trial added: trials_needed has no answer."""
    detection = [Policy(t, threshold=AT_LEAST_THREE).attempt(0.1) for t in range(3, 40)]
    assert detection[0] == pytest.approx(1 - 0.9**3)
    assert all(later < earlier for earlier, later in itertools.pairwise(detection))
    assert Policy(5, threshold=AT_LEAST_THREE).trials_needed(0.1, 0.95) is None
    assert Policy(5, threshold=MAJORITY).trials_needed(0.1, 0.95) is None


def test_trials_needed_when_m_is_fixed():
    """``passes >= N - 1``: m = 2 at every N, so detection rises with N and the search
    is exact: the smallest N with P[Binom(N, 0.1) >= 2] >= 95%."""
    found = Policy(5, threshold=ALL_BUT_ONE).trials_needed(0.1, 0.95)
    brute = next(n for n in range(2, 1_000) if binom.sf(1, n, 0.1) >= 0.95)
    assert found == brute == 46
    assert Policy(5, threshold=AT_MOST_ONE_FAILURE).trials_needed(0.1, 0.95) == 46
    assert Policy(5).trials_needed(0.1, 0.95) == 29


def test_rates_solve_through_the_tail():
    policy = Policy(5, (Reruns(1),), threshold=AT_LEAST_THREE)
    q50 = policy.q50()
    assert q50 is not None
    assert policy.reported(q50) == pytest.approx(0.5, abs=1e-12)
    assert binom.sf(2, 5, q50) ** 2 == pytest.approx(0.5, abs=1e-12)
    assert policy.baseline().threshold == AT_LEAST_THREE
    assert policy.reported(0.1) == pytest.approx(binom.sf(2, 5, 0.1) ** 2)


def test_a_threshold_that_never_fails_or_always_fails():
    assert Policy(5, threshold=Threshold("failures", "<=", ("num", 5))).attempt(0.9) == 0.0
    assert Policy(2, threshold=AT_LEAST_THREE).attempt(0.0) == 1.0
    assert AT_LEAST_THREE.describe(2) == "the test failing even when none fails"
    assert AT_LEAST_THREE.describe(3) == "the test failing when any of them fails"


CHECKS = {
    "passes >= 3": (AT_LEAST_THREE, lambda passes, n: passes >= 3),
    "passes >= N - 1": (ALL_BUT_ONE, lambda passes, n: passes >= n - 1),
    "failures <= 1": (AT_MOST_ONE_FAILURE, lambda passes, n: n - passes <= 1),
    "passes > N // 2": (MAJORITY, lambda passes, n: passes > n // 2),
    "passes >= 0.8 * N": (EIGHTY_PERCENT, lambda passes, n: passes >= 0.8 * n),
}


@given(
    q=st.sampled_from([0.0, 0.05, 0.1, 0.2, 0.5, 0.9, 1.0]),
    trials=st.integers(min_value=3, max_value=12),
    name=st.sampled_from(sorted(CHECKS)),
)
def test_the_tail_agrees_with_a_simulation(q, trials, name):
    threshold, check = CHECKS[name]
    model = Policy(trials, threshold=threshold).attempt(q)
    seed = zlib.crc32(repr(("threshold", q, trials, name)).encode())
    simulated = mc.share(mc.counted_trials(q, trials, check), N_SIMULATED, seed)
    assert abs(simulated - model) <= mc.tolerance(model, N_SIMULATED), (model, simulated)


def test_a_simulation_of_the_majority_of_five():
    model = Policy(5, threshold=AT_LEAST_THREE).attempt(0.1)
    simulated = mc.share(mc.counted_trials(0.1, 5, CHECKS["passes >= 3"][1]), 200_000, 7)
    assert math.isclose(simulated, model, abs_tol=mc.tolerance(model, 200_000))
