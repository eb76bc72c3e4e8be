"""CI retry layers around the suite, alone and stacked on a plugin's reruns.

Each layer is simulated by running the suite as often as the CI system would
(``Scenario.runs``); an instance is reported when it failed in every run.
"""

from bench.truth.scenario import Scenario, github_workflow

GITHUB_RETRY = github_workflow(
    "- uses: nick-fields/retry@v3\n"
    "  with:\n"
    "    timeout_minutes: 10\n"
    "    max_attempts: {attempts}\n"
    "    command: pytest test_truth.py"
)

GITLAB_RETRY = """
test:
  image: python:3.12
  retry: {retries}
  script:
    - pip install -r requirements.txt
    - pytest test_truth.py
"""

BUILDKITE_RETRY = """
steps:
  - label: tests
    command: pytest test_truth.py
    retry:
      automatic:
        limit: 2
"""

SHELL_LOOP = github_workflow("- run: for i in 1 2 3; do pytest test_truth.py && break; done")


RERUNS_FLAG = github_workflow("- run: pytest --reruns 2 test_truth.py")

# A marked test that always passes, above the unmarked looped test the claim is about:
# the Python pass lists the marked one alone, and a CI knob acts on both.
MARKED_NEIGHBOUR = """
@pytest.mark.flaky(reruns=1)
def test_marked():
    assert True

"""


def github_retry(attempts: int) -> tuple[tuple[str, str], ...]:
    return ((".github/workflows/ci.yml", GITHUB_RETRY.format(attempts=attempts)),)


def gitlab_retry(retries: int) -> tuple[tuple[str, str], ...]:
    return ((".gitlab-ci.yml", GITLAB_RETRY.format(retries=retries)),)


SCENARIOS = (
    Scenario(
        "ci-github-nick-retry3-T5",
        "rerunfailures",
        trials=5,
        files=github_retry(3),
        runs=3,
        expect_text=("max_attempts` runs a failing job up to 3 times",),
    ),
    Scenario(
        "ci-gitlab-retry2-T5",
        "rerunfailures",
        trials=5,
        files=gitlab_retry(2),
        runs=3,
        expect_text=("`test.retry` runs a failing job up to 3 times",),
    ),
    Scenario(
        "ci-buildkite-retry2-T5",
        "rerunfailures",
        trials=5,
        files=((".buildkite/pipeline.yml", BUILDKITE_RETRY),),
        runs=3,
        expect_text=("`retry.automatic` runs a failing job up to 3 times",),
    ),
    Scenario(
        "ci-shell-loop3-T5",
        "rerunfailures",
        trials=5,
        files=((".github/workflows/ci.yml", SHELL_LOOP),),
        runs=3,
        expect_text=("a `for` loop of 3 rounds",),
        note="the loop ends with the last pytest's status",
    ),
    Scenario(
        "ci-cli-reruns2-marked-neighbour-T5",
        "rerunfailures",
        trials=5,
        module_code=MARKED_NEIGHBOUR,
        files=((".github/workflows/ci.yml", RERUNS_FLAG),),
        pytest_args=("--reruns", "2"),
        claim_code="DET421",
        expect_text=("`--reruns 2`", "test_truth.py::test_case"),
        note="the flag reruns the unmarked test beside a marked one",
    ),
    Scenario(
        "ci-gitlab-retry2-marked-neighbour-T5",
        "rerunfailures",
        trials=5,
        module_code=MARKED_NEIGHBOUR,
        files=gitlab_retry(2),
        runs=3,
        claim_code="DET411",
        expect_text=("`test.retry` runs a failing job up to 3 times", "test_truth.py::test_case"),
        note="the job retry reruns the unmarked test beside a marked one",
    ),
    Scenario(
        "stack-rr-reruns1-gitlab-retry2-T5",
        "rerunfailures",
        ("@pytest.mark.flaky(reruns=1)",),
        trials=5,
        files=gitlab_retry(2),
        runs=3,
        expect_text=("`test.retry` runs a failing job up to 3 times",),
        note="2 attempts in each of 3 runs",
    ),
    Scenario(
        "stack-rr-addopts-reruns1-marker-reruns2-T5",
        "rerunfailures",
        ("@pytest.mark.flaky(reruns=2)",),
        trials=5,
        ini=("addopts = --reruns 1",),
        expect_text=("reruns=2", "5 trials"),
        note="the marker's count wins over the configured one",
    ),
    Scenario(
        "stack-flaky-max2-github-retry2-T5",
        "flaky",
        ("@pytest.mark.flaky(max_runs=2)",),
        trials=5,
        files=github_retry(2),
        runs=2,
        expect_text=("max_attempts` runs a failing job up to 2 times",),
        note="2 runs of flaky's 2 attempts",
    ),
)
