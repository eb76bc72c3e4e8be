"""Plugin options from a CI step's pytest command line and from pytest.ini."""

from typing import Any

from bench.truth.scenario import Scenario, github_workflow

WORKFLOW = github_workflow("- run: pytest {args} test_truth.py")


def ci_step(name: str, venv: str, args: tuple[str, ...], **fields: Any) -> Scenario:
    """A GitHub Actions job running pytest with ``args``; the plugin run uses them too."""
    text = WORKFLOW.format(args=" ".join(args))
    files = ((".github/workflows/ci.yml", text),)
    return Scenario(name, venv, files=files, pytest_args=args, **fields)


SCENARIOS = (
    ci_step(
        "rr-ci-cli-reruns2-T5",
        "rerunfailures",
        ("--reruns", "2"),
        trials=5,
        expect_text=("`--reruns 2`",),
        fast=True,
    ),
    Scenario(
        "rr-ini-reruns2-T5",
        "rerunfailures",
        trials=5,
        ini=("reruns = 2",),
        expect_text=("ini reruns 2", "5 trials"),
        note="the plugin's own ini key",
    ),
    ci_step(
        "rr-ci-only-rerun-AssertionError-T5",
        "rerunfailures",
        ("--reruns", "2", "--only-rerun", "AssertionError"),
        trials=5,
        expect_text=("`--reruns 2`",),
        note="the assertion matches: rerun twice",
    ),
    ci_step(
        "rr-ci-only-rerun-ValueError-T5",
        "rerunfailures",
        ("--reruns", "2", "--only-rerun", "ValueError"),
        trials=5,
        note="an assertion is no ValueError: nothing is rerun; no finding, and audit's CI "
        "knob says why (--only-rerun keeps an assertion failure from rerunning)",
    ),
    ci_step(
        "rr-ci-reruns-mode-append-T5",
        "rerunfailures",
        ("--reruns", "1", "--reruns-mode", "append"),
        decorators=("@pytest.mark.flaky(reruns=1)",),
        trials=5,
        expect_text=("`--reruns 1`", "--reruns-mode append"),
        note="append mode adds the marker's 1 to the command line's 1: 2 reruns",
    ),
    ci_step(
        "retry-ci-cli-retries2-T5",
        "pytest-retry",
        ("--retries", "2"),
        trials=5,
        expect_text=("`--retries 2`",),
    ),
    Scenario(
        "retry-ini-retries2-T5",
        "pytest-retry",
        trials=5,
        ini=("retries = 2",),
        expect_text=("ini retries 2", "5 trials"),
    ),
    ci_step(
        "flaky-ci-force-flaky-max3-T5",
        "flaky",
        ("--force-flaky", "--max-runs", "3"),
        trials=5,
        expect_text=("`--force-flaky`",),
    ),
)
