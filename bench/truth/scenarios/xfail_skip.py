"""pytest core xfail and skip, alone and under reruns."""

from bench.truth.scenario import Scenario

SCENARIOS = (
    Scenario(
        "xfail-nonstrict-T1",
        "rerunfailures",
        ("@pytest.mark.xfail(strict=False)",),
        1,
        note="failures are xfailed, passes xpassed: nothing fails",
    ),
    Scenario(
        "xfail-strict-T1",
        "rerunfailures",
        ("@pytest.mark.xfail(strict=True)",),
        1,
        note="strict: a pass (XPASS) fails, a violation is xfailed",
    ),
    Scenario(
        "xfail-strict-reruns3-T1",
        "rerunfailures",
        ("@pytest.mark.xfail(strict=True)", "@pytest.mark.flaky(reruns=3)"),
        1,
    ),
    Scenario("skip-T1", "rerunfailures", ('@pytest.mark.skip(reason="quarantined")',), 1),
    Scenario(
        "skipif-true-T1",
        "rerunfailures",
        ('@pytest.mark.skipif(True, reason="quarantined")',),
        1,
        note="never runs: never reported (a skip whose reason names no quarantine or "
        "flakiness is no knob to detlint, and it says nothing of it)",
    ),
    Scenario(
        "xfail-nonstrict-reruns2-T1",
        "rerunfailures",
        ("@pytest.mark.xfail(strict=False)", "@pytest.mark.flaky(reruns=2)"),
        1,
        note="a failure is xfailed, not rerun; nothing fails",
    ),
    Scenario(
        "xfail-run-false-T1",
        "rerunfailures",
        ("@pytest.mark.xfail(run=False)",),
        1,
        note="never runs: reported xfailed",
    ),
)
