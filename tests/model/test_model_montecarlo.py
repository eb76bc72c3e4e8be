"""Every policy of the model against a seeded Monte Carlo re-enactment.

Parameters come from hypothesis; each simulation's seed is derived from its
parameters, so a run is reproducible and a failure names the exact case.
"""

from __future__ import annotations

import zlib

import montecarlo as mc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from detlint.model import (
    ALLOW_FAILURE,
    CONTINUE_ON_ERROR,
    MASKED_EXIT,
    SKIP,
    SOFT_FAIL,
    FlakyRuns,
    JobRetries,
    Policy,
    Repeat,
    Reruns,
    StrictXfail,
)

N = 20_000

rates = st.one_of(
    st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.2, 0.5, 0.9, 1.0]),
    st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
)
trial_counts = st.integers(min_value=1, max_value=8)
rerun_counts = st.integers(min_value=0, max_value=4)
job_limits = st.integers(min_value=0, max_value=3)


@st.composite
def flaky_settings(draw: st.DrawFn) -> tuple[int, int]:
    max_runs = draw(st.integers(min_value=1, max_value=6))
    return max_runs, draw(st.integers(min_value=1, max_value=max_runs))


def seed_for(*params: object) -> int:
    return zlib.crc32(repr(params).encode())


def assert_agrees(model: float, run: mc.Run, *params: object) -> None:
    simulated = mc.share(run, N, seed_for(*params))
    assert abs(simulated - model) <= mc.tolerance(model, N), (model, simulated, params)


@given(q=rates, t=trial_counts)
def test_one_attempt(q, t):
    assert_agrees(Policy(t).reported(q), mc.trials(q, t), "attempt", q, t)


@given(
    q=rates,
    t=trial_counts,
    r=rerun_counts,
    plugin=st.sampled_from(["pytest-rerunfailures", "pytest-retry"]),
)
def test_reruns(q, t, r, plugin):
    policy = Policy(t, (Reruns(r, plugin),))
    assert_agrees(policy.reported(q), mc.rerun_until_pass(mc.trials(q, t), r), "reruns", q, t, r)


@given(q=rates, t=trial_counts, mk=flaky_settings())
def test_flaky_max_runs_min_passes(q, t, mk):
    max_runs, min_passes = mk
    policy = Policy(t, (FlakyRuns(max_runs, min_passes),))
    run = mc.flaky_runs(mc.trials(q, t), max_runs, min_passes)
    assert_agrees(policy.reported(q), run, "flaky", q, t, max_runs, min_passes)


@given(q=rates, t=trial_counts, r=rerun_counts, limit=job_limits)
def test_job_retries_around_reruns(q, t, r, limit):
    policy = Policy(t, (Reruns(r), JobRetries(limit)))
    run = mc.rerun_until_pass(mc.rerun_until_pass(mc.trials(q, t), r), limit)
    assert_agrees(policy.reported(q), run, "job", q, t, r, limit)


@given(q=rates, t=trial_counts, r=rerun_counts, copies=st.integers(min_value=1, max_value=5))
def test_repeat_of_rerun_tests(q, t, r, copies):
    policy = Policy(t, (Reruns(r), Repeat(copies)))
    run = mc.every_copy(mc.rerun_until_pass(mc.trials(q, t), r), copies)
    assert_agrees(policy.reported(q), run, "repeat", q, t, r, copies)


@given(q=rates, t=trial_counts, r=rerun_counts)
def test_strict_xfail_rerun_on_xpass(q, t, r):
    policy = Policy(t, (StrictXfail(), Reruns(r)))
    run = mc.rerun_until_pass(mc.fails_when_passing(mc.trials(q, t)), r)
    assert_agrees(policy.reported(q), run, "strict", q, t, r)


@given(
    q=rates,
    t=trial_counts,
    mk=flaky_settings(),
    limit=job_limits,
    gate=st.sampled_from([SOFT_FAIL, CONTINUE_ON_ERROR, ALLOW_FAILURE, MASKED_EXIT, SKIP]),
)
def test_never_blocking_gate_keeps_visibility_apart(q, t, mk, limit, gate):
    policy = Policy(t, (FlakyRuns(*mk), JobRetries(limit)), gate)
    run = mc.rerun_until_pass(mc.flaky_runs(mc.trials(q, t), *mk), limit)
    assert policy.reported(q) == 0.0
    if gate.visible:
        assert_agrees(policy.visible(q), run, "visible", q, t, mk, limit)
    else:
        assert policy.visible(q) == 0.0


@given(t=trial_counts, r=rerun_counts, limit=job_limits)
def test_simulated_report_rate_at_q50_is_one_half(t, r, limit):
    policy = Policy(t, (Reruns(r), JobRetries(limit)))
    q50 = policy.q50()
    assert q50 is not None
    run = mc.rerun_until_pass(mc.rerun_until_pass(mc.trials(q50, t), r), limit)
    assert_agrees(0.5, run, "q50", t, r, limit)


@given(t=trial_counts, mk=flaky_settings(), runs=st.integers(min_value=1, max_value=200))
def test_green_run_bound_leaves_five_percent_of_all_green_histories(t, mk, runs):
    policy = Policy(t, (FlakyRuns(*mk),))
    bound = policy.green_run_bound(runs)
    assert bound is not None
    one_run = mc.flaky_runs(mc.trials(bound, t), *mk)

    def all_green(rng, n):
        red = one_run(rng, n * runs).reshape(n, runs)
        return ~red.any(axis=1)

    assert_agrees(0.05, all_green, "green", t, mk, runs)


@pytest.mark.parametrize(("q_ref", "target"), [(0.1, 0.95), (0.05, 0.99), (0.3, 0.5), (0.01, 0.9)])
def test_trials_needed_reaches_target_in_simulation(q_ref, target):
    needed = Policy().trials_needed(q_ref, target)
    assert needed is not None
    simulated = mc.share(mc.trials(q_ref, needed), N, seed_for("needed", q_ref, target))
    assert simulated >= target - mc.tolerance(target, N)
