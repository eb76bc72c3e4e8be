"""Keywords of the ``flaky`` marker the flaky package rejects, alone and with
pytest-rerunfailures installed beside it (both read the marker)."""

from bench.truth.scenario import Scenario

SCENARIOS = (
    Scenario(
        "flaky-rejects-reruns3-T1",
        "flaky",
        ("@pytest.mark.flaky(reruns=3)",),
        1,
        expect_text=("100%",),
        fast=True,
        note="flaky rejects the reruns keyword: every run errors",
    ),
    Scenario(
        "both-rr-reruns3-T1",
        "rerunfailures+flaky",
        ("@pytest.mark.flaky(reruns=3)",),
        1,
        expect_text=("100%",),
        note="flaky rejects the reruns keyword whichever plugin runs the test: every run errors",
    ),
    Scenario(
        "both-flaky-max3-T5",
        "rerunfailures+flaky",
        ("@pytest.mark.flaky(max_runs=3)",),
        5,
        expect_text=("max_runs=3", "5 trials"),
        note="flaky's max_runs=3 and rerunfailures' default of one rerun",
    ),
)
