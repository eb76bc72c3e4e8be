"""The model's numbers: the seed analysis digit for digit, exact formulas, and
the properties every policy must have."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binom

from detlint.base.percentages import fraction, percent
from detlint.model import (
    ALLOW_FAILURE,
    BLOCKING,
    SKIP,
    SOFT_FAIL,
    XFAIL,
    FlakyRuns,
    JobRetries,
    Policy,
    Repeat,
    Reruns,
    StrictXfail,
    estimate_rate,
)

NEEDLE = Policy(trials=5, layers=(Reruns(3),))

# The hand analysis of a `@pytest.mark.flaky(reruns=3)` on a 5-trial test.
SEED_TABLE = [
    (0.05, "22.6%", "0.26%", "22.6%"),
    (0.10, "41.0%", "2.8%", "41.0%"),
    (0.20, "67.2%", "20.4%", "67.2%"),
    (0.50, "96.9%", "88.1%", "96.9%"),
    (0.90, "100%", "100%", "100%"),
]


@pytest.mark.parametrize(("q", "one_attempt", "with_knob", "without"), SEED_TABLE)
def test_seed_table_digit_for_digit(q, one_attempt, with_knob, without):
    assert percent(NEEDLE.attempt(q)) == one_attempt
    assert percent(NEEDLE.reported(q)) == with_knob
    assert percent(NEEDLE.baseline().reported(q)) == without


def test_seed_table_exact_values():
    for q, *_ in SEED_TABLE:
        d = 1 - (1 - q) ** 5
        assert NEEDLE.attempt(q) == pytest.approx(d, rel=1e-15)
        assert NEEDLE.reported(q) == pytest.approx(d**4, rel=1e-15)


def test_seed_q50_and_trials_needed():
    assert percent(NEEDLE.q50()) == "30.8%"
    assert percent(NEEDLE.baseline().q50()) == "12.9%"
    assert NEEDLE.baseline().trials_needed(0.10, 0.95) == 29
    # closed form: d = 0.5 ** (1/4), q = 1 - (1 - d) ** (1/5)
    assert NEEDLE.q50() == pytest.approx(1 - (1 - 0.5**0.25) ** 0.2, rel=1e-14)


@pytest.mark.parametrize(
    ("k", "n", "text"),
    [(0, 60, "0.00 [0.00, 0.06]"), (40, 40, "1.00 [0.91, 1.00]"), (30, 30, "1.00 [0.89, 1.00]")],
)
def test_seed_wilson_intervals(k, n, text):
    estimate = estimate_rate(k, n)
    assert (
        f"{fraction(estimate.rate)} [{fraction(estimate.low)}, {fraction(estimate.high)}]" == text
    )


@given(
    k_n=st.integers(min_value=1, max_value=500).flatmap(
        lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
    )
)
def test_wilson_matches_the_score_formula(k_n):
    k, n = k_n
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    estimate = estimate_rate(k, n)
    assert estimate.low == pytest.approx(max(0.0, centre - half), abs=1e-9)
    assert estimate.high == pytest.approx(min(1.0, centre + half), abs=1e-9)
    assert estimate.low <= p <= estimate.high


@pytest.mark.parametrize(("k", "n"), [(5, 3), (-1, 3), (0, 0), (1, -2)])
def test_wilson_rejects_impossible_counts(k, n):
    with pytest.raises(ValueError, match=r"integer|at least 1|cannot come from"):
        estimate_rate(k, n)


@given(
    t=st.integers(1, 10),
    m=st.integers(1, 8),
    data=st.data(),
    q=st.floats(0, 1),
)
def test_flaky_matches_scipy_binomial(t, m, data, q):
    k = data.draw(st.integers(1, m))
    d = 1 - (1 - q) ** t
    expected = binom.cdf(k - 1, m, 1 - d)  # P[Binomial(M, 1 - d) < K]
    assert Policy(t, (FlakyRuns(m, k),)).reported(q) == pytest.approx(expected, abs=1e-12)


def test_flaky_min_passes_hides_rare_violations_and_exposes_frequent_ones():
    # flaky(max_runs=3, min_passes=2) needs two passes: below an attempt failure
    # rate of 1/2 it hides failures, above it it reports more than one attempt.
    policy = Policy(1, (FlakyRuns(3, 2),))
    assert policy.reported(0.2) < 0.2
    assert policy.reported(0.5) == pytest.approx(0.5)
    assert policy.reported(0.8) > 0.8
    assert FlakyRuns(3, 2).break_even() == pytest.approx(0.5)


@pytest.mark.parametrize(("max_runs", "min_passes"), [(10, 9), (10, 3), (5, 2)])
def test_the_break_even_rate_is_where_flaky_reports_as_one_run_would(max_runs, min_passes):
    layer = FlakyRuns(max_runs, min_passes)
    even = layer.break_even()
    assert even is not None
    assert layer.apply(even) == pytest.approx(even)
    assert layer.apply(even * 0.9) < even * 0.9
    assert layer.apply(min(even * 1.1, 0.999)) > min(even * 1.1, 0.999)


def test_no_break_even_for_a_plain_retry_or_a_repeat():
    assert FlakyRuns(5, 1).break_even() is None
    assert FlakyRuns(4, 4).break_even() is None


def test_exact_job_retry_and_gate_formulas():
    policy = Policy(5, (Reruns(3), JobRetries(2)))
    d = 1 - 0.9**5
    assert policy.reported(0.1) == pytest.approx(d ** (4 * 3), rel=1e-14)
    for gate in (SOFT_FAIL, ALLOW_FAILURE, XFAIL, SKIP):
        soft = Policy(5, (Reruns(3),), gate)
        assert soft.reported(0.5) == 0.0
        assert soft.visible(0.5) == (pytest.approx(0.96875**4) if gate.visible else 0.0)
        assert soft.q50() is None
        assert soft.green_run_bound(100) is None
    assert Policy(5, (Repeat(3),)).reported(0.1) == pytest.approx(1 - (1 - d) ** 3)
    assert Policy(5, (StrictXfail(), Reruns(2))).reported(0.1) == pytest.approx((1 - d) ** 3)


# -- properties -------------------------------------------------------------

probabilities = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
masking_layers = st.one_of(
    st.builds(Reruns, st.integers(0, 6)),
    st.builds(JobRetries, st.integers(0, 4)),
    st.integers(1, 6).flatmap(lambda m: st.builds(FlakyRuns, st.just(m), st.integers(1, m))),
    st.builds(Repeat, st.integers(1, 4)),
)
retry_layers = st.one_of(
    st.builds(Reruns, st.integers(0, 6)),
    st.builds(JobRetries, st.integers(0, 4)),
    st.builds(FlakyRuns, st.integers(1, 6), st.just(1)),
    st.builds(Repeat, st.integers(1, 4)),
)
retry_policies = st.builds(
    Policy,
    trials=st.integers(1, 12),
    layers=st.lists(retry_layers, max_size=3).map(tuple),
    gate=st.sampled_from([BLOCKING, BLOCKING, SOFT_FAIL, SKIP]),
)


policies = st.builds(
    Policy,
    trials=st.integers(1, 12),
    layers=st.lists(masking_layers, max_size=3).map(tuple),
    gate=st.sampled_from([BLOCKING, BLOCKING, SOFT_FAIL, SKIP]),
)


@given(policy=policies, q=probabilities, extra=st.integers(1, 3))
def test_more_reruns_never_raise_detection(policy, q, extra):
    more = policy.with_layers((*policy.layers, Reruns(extra)))
    assert more.reported(q) <= policy.reported(q) + 1e-12


@given(policy=policies, q=probabilities, extra=st.integers(1, 5))
def test_more_trials_never_lower_detection(policy, q, extra):
    assert policy.with_trials(policy.trials + extra).reported(q) >= policy.reported(q) - 1e-12


@given(policy=policies)
def test_certain_violation_is_always_caught_unless_the_gate_never_blocks(policy):
    assert policy.reported(1.0) == (1.0 if policy.gate.blocks else 0.0)
    assert policy.reported(0.0) == 0.0


@given(policy=retry_policies, q=probabilities)
def test_a_retry_knob_never_beats_its_baseline(policy, q):
    assert policy.reported(q) <= policy.baseline().reported(q) + 1e-12
    assert policy.reported(q) <= policy.visible(q) or not policy.gate.visible


@given(policy=policies, p=st.floats(min_value=1e-6, max_value=1 - 1e-6))
def test_rate_solver_inverts_reported(policy, p):
    rate = policy.rate_reported_with(p)
    if not policy.gate.blocks:
        assert rate is None
        return
    assert rate is not None
    assert policy.reported(rate) == pytest.approx(p, abs=1e-9)


@given(
    t=st.integers(1, 12),
    layers=st.lists(retry_layers, max_size=3),
    p=st.floats(min_value=1e-4, max_value=1 - 1e-4),
)
def test_closed_form_and_root_finder_agree(t, layers, p):
    policy = Policy(t, tuple(layers))
    closed = policy._closed_form_rate(p)
    assert closed is not None
    numeric = policy._numeric_rate(p)
    assert numeric == pytest.approx(closed, abs=1e-9)


@given(policy=policies, runs=st.integers(1, 10_000))
def test_green_run_bound_definition(policy, runs):
    bound = policy.green_run_bound(runs)
    if bound is None:
        assert not policy.gate.blocks
        return
    assert (1 - policy.reported(bound)) ** runs == pytest.approx(0.05, rel=1e-6)
    assert bound >= policy.baseline().green_run_bound(runs) - 1e-12


@given(
    q_ref=st.floats(min_value=0.001, max_value=1.0),
    target=st.floats(min_value=0.0, max_value=0.999),
)
def test_trials_needed_is_the_smallest_count(q_ref, target):
    needed = Policy().trials_needed(q_ref, target)
    assert needed is not None
    assert 1 - (1 - q_ref) ** needed >= target
    if needed > 1:
        assert 1 - (1 - q_ref) ** (needed - 1) < target


def test_trials_needed_when_no_count_reaches():
    assert Policy().trials_needed(0.0, 0.5) is None
    assert Policy(gate=SOFT_FAIL).trials_needed(0.1, 0.5) is None
    assert Policy().trials_needed(0.1, 1.0) is None
    assert Policy().trials_needed(1.0, 1.0) == 1


@pytest.mark.parametrize(
    "build",
    [
        lambda: Policy(trials=0),
        lambda: Reruns(-1),
        lambda: FlakyRuns(2, 3),
        lambda: FlakyRuns(0, 0),
        lambda: JobRetries(-2),
        lambda: Repeat(0),
        lambda: NEEDLE.reported(1.5),
        lambda: NEEDLE.green_run_bound(0),
    ],
)
def test_invalid_parameters_are_rejected(build):
    with pytest.raises(ValueError, match=r"must|exceed"):
        build()


def test_policies_are_hashable_values():
    assert Policy(5, (Reruns(3),)) == NEEDLE
    assert len({NEEDLE, Policy(5, (Reruns(3),)), NEEDLE.baseline()}) == 2
    with pytest.raises(AttributeError):
        NEEDLE.trials = 3  # type: ignore[misc]


@given(
    k_n=st.integers(min_value=1, max_value=2000).flatmap(
        lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
    ),
    confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_wilson_matches_scipy_binomtest(k_n, confidence):
    from scipy.stats import binomtest

    k, n = k_n
    interval = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    estimate = estimate_rate(k, n, confidence)
    assert estimate.low == pytest.approx(max(0.0, float(interval.low)), rel=1e-9, abs=1e-15)
    assert estimate.high == pytest.approx(min(1.0, float(interval.high)), rel=1e-9, abs=1e-15)
