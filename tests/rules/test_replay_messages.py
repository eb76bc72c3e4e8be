"""Findings on tests whose attempts replay the same seed or recording.

Each retry knob's numbers count attempts as independent draws. A test that seeds with a
fixed value before the code under test runs draws the same values on every attempt
(measured: pytest-rerunfailures 16.7, flaky 3.8.1 and pytest-retry 1.7.0 set a
function-scoped fixture up again for each rerun, and the body runs again), so the
finding keeps its numbers and says they hold only for what the seed does not decide.
Distilled from pytorch/rl (`@retry(AssertionError, 5)` around tests that begin with
`torch.manual_seed(1)`) and Megatron-LM (a skip guard, then `torch.manual_seed(1234)`).
"""

from __future__ import annotations

from realworld_cases import RERUNFAILURES, check, findings, only
from repo_expectations import github_workflow

KERNELS = """\
import os

import pytest
import torch

TRIALS = int(os.getenv("KERNEL_TRIALS", "5"))


@pytest.mark.flaky(reruns=3)
def test_batch_invariance():
    torch.manual_seed(0)
    for _ in range(TRIALS):
        x = torch.randn(8)
        assert run_batched(x) == run_single(x)
"""

SEED_TAIL = (
    "a failure that seed decides fails every {attempt} alike, so {hides} none of those, and "
    "these figures hold only for nondeterminism beyond the seed (kernel scheduling, threads, "
    "timing)"
)


def test_a_rerun_marker_on_a_seeded_test_keeps_its_numbers_and_says_they_replay(tmp_path):
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_kernels.py": KERNELS})
    finding = only(document, "DET101")
    assert finding["line"] == 9
    assert finding["message"] == (
        "rerun marker hides intermittent failures: a 10% violation is reported 2.8% of the "
        "time instead of 41.0% (reruns=3; pytest-rerunfailures==16.7 from "
        "requirements-test.txt:1; 5 trials from KERNEL_TRIALS); but every attempt replays the "
        "same seed (`torch.manual_seed(0)` on line 11): "
        + SEED_TAIL.format(attempt="rerun", hides="the marker hides")
    )
    # The numbers are the independent-attempt figures, unchanged.
    detects = 1 - 0.9**5
    assert abs(finding["numbers"]["reported"] - detects**4) < 1e-12
    assert abs(finding["numbers"]["reported_without"] - detects) < 1e-12


def test_a_seed_after_randomized_work_or_from_the_clock_adds_nothing(tmp_path):
    late = KERNELS.replace(
        "    torch.manual_seed(0)\n", "    warm = torch.randn(2)\n    torch.manual_seed(0)\n"
    )
    clock = KERNELS.replace("torch.manual_seed(0)", "torch.manual_seed(int(time.time()))")
    for text in (late, clock):
        message = only(check(tmp_path, {**RERUNFAILURES, "tests/test_kernels.py": text}), "DET101")
        assert "replays" not in message["message"]
        assert message["message"].startswith(
            "rerun marker hides intermittent failures: a 10% violation is reported 2.8% of the "
            "time instead of 41.0% (reruns=3;"
        )


def test_an_autouse_fixture_in_conftest_names_its_file_and_fixture(tmp_path):
    conftest = (
        "import pytest\nimport random\n\n\n@pytest.fixture(autouse=True)\n"
        "def deterministic():\n    random.seed(1234)\n    yield\n"
    )
    test = (
        "import pytest\n\n\n@pytest.mark.flaky(reruns=1)\ndef test_sample():\n"
        "    assert sample() in range(10)\n"
    )
    document = check(
        tmp_path,
        {**RERUNFAILURES, "tests/conftest.py": conftest, "tests/test_sample.py": test},
    )
    message = only(document, "DET101")["message"]
    assert message == (
        "rerun marker hides intermittent failures: a 10% violation is reported 1.0% of the time "
        "instead of 10.0% (reruns=1; pytest-rerunfailures==16.7 from requirements-test.txt:1; "
        "1 attempt, no trial loop recognised); but every attempt replays the same seed "
        "(`random.seed(1234)` on tests/conftest.py:7, in autouse fixture `deterministic`): "
        + SEED_TAIL.format(attempt="rerun", hides="the marker hides")
    )


def test_a_recorded_cassette(tmp_path):
    test = (
        "import pytest\n\n\n@pytest.mark.flaky(reruns=2)\n@pytest.mark.vcr\n"
        "def test_fetch():\n    assert fetch('https://example.org').ok\n"
    )
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_fetch.py": test})
    message = only(document, "DET101")["message"]
    assert message.endswith(
        "; but every attempt replays the same recording (`@pytest.mark.vcr` on line 5): a "
        "failure the recorded responses decide fails every rerun alike, so the marker hides "
        "none of those, and these figures hold only for nondeterminism beyond the recording "
        "(threads, timing)"
    )
    assert "reported 0.10% of the time instead of 10.0%" in message


def test_a_marker_covering_several_tests_names_the_one_it_quotes(tmp_path):
    test = (
        "import pytest\nimport numpy as np\n\npytestmark = pytest.mark.flaky(reruns=1)\n\n\n"
        "def test_a():\n    np.random.seed(0)\n    assert draw() < 1\n\n\n"
        "def test_b():\n    np.random.seed(0)\n    assert draw() < 1\n"
    )
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_mod.py": test})
    message = only(document, "DET101")["message"]
    assert (
        "covers 2 tests, 2 test instances); but every attempt of tests/test_mod.py::test_b "
        in message
    )
    assert "(`np.random.seed(0)` on line 13)" in message


def test_a_retry_decorator_replays_a_seed_in_the_body_not_one_in_a_fixture(tmp_path):
    """pytorch/rl: `@retry(AssertionError, tries=10)` around `torch.manual_seed(0)`. A
    decorator repeats the body alone: a fixture's seed is set once, and its generator
    moves on between the decorator's attempts."""
    test = (
        "import pytest\nimport torch\nfrom tenacity import retry, stop_after_attempt\n\n\n"
        "@pytest.fixture\ndef seeded():\n    torch.manual_seed(0)\n\n\n"
        "@retry(stop=stop_after_attempt(3))\ndef test_body():\n    torch.manual_seed(0)\n"
        "    assert collect() == 4\n\n\n"
        "@retry(stop=stop_after_attempt(3))\ndef test_fixture(seeded):\n"
        "    assert collect() == 4\n"
    )
    document = check(tmp_path, {"requirements-test.txt": "tenacity\n", "tests/test_c.py": test})
    by_line = {f["line"]: f["message"] for f in findings(document, "DET103")}
    assert by_line[11] == (
        "retry decorator tenacity.retry hides intermittent failures: a 10% violation is "
        "reported 0.10% of the time instead of 10.0% (3 attempts; 1 attempt, no trial loop "
        "recognised); but every attempt replays the same seed (`torch.manual_seed(0)` on "
        "line 13): " + SEED_TAIL.format(attempt="retry", hides="the decorator hides")
    )
    assert by_line[17] == (
        "retry decorator tenacity.retry hides intermittent failures: a 10% violation is "
        "reported 0.10% of the time instead of 10.0% (3 attempts; 1 attempt, no trial loop "
        "recognised)"
    )


def test_ci_retries_of_a_seeded_test_say_so_with_the_seeds_file(tmp_path):
    unmarked = KERNELS.replace("@pytest.mark.flaky(reruns=3)\n", "")
    workflow = (
        "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: nick-fields/retry@v3\n        with:\n          max_attempts: 3\n"
        "          command: pytest tests --reruns 2\n"
    )
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_kernels.py": unmarked,
            ".github/workflows/ci.yml": workflow,
        },
    )
    where = "(`torch.manual_seed(0)` on tests/test_kernels.py:10)"
    retry = only(document, "DET411")["message"]
    assert retry == (
        "`jobs.test.steps[0].with.max_attempts` runs a failing job up to 3 times: a 10% "
        "violation is reported 0.032% of the time instead of 6.9% in "
        "tests/test_kernels.py::test_batch_invariance (step 'test'; gates 1 test file under "
        f"tests); but every attempt replays the same seed {where}: "
        + SEED_TAIL.format(attempt="run of the job", hides="the retry hides")
    )
    flag = only(document, "DET421")["message"]
    assert flag == (
        "`--reruns 2` reruns every failing test of step 'test': a 10% violation is reported "
        "6.9% of the time instead of 41.0% in tests/test_kernels.py::test_batch_invariance "
        f"(gates 1 test file under tests); but every attempt replays the same seed {where}: "
        + SEED_TAIL.format(attempt="rerun", hides="the flag hides")
    )
    stacked = only(document, "DET501")["message"]
    assert stacked.endswith(
        f"(gates 1 test file under tests); but every attempt replays the same seed {where}: "
        + SEED_TAIL.format(attempt="attempt", hides="the retries hide")
    )
    assert "up to 9 attempts in total" in stacked


def test_github_workflow_helper_still_builds_the_unseeded_case(tmp_path):
    """Without a seed, the same CI findings carry no replay clause."""
    plain = KERNELS.replace("    torch.manual_seed(0)\n", "").replace(
        "@pytest.mark.flaky(reruns=3)\n", ""
    )
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_kernels.py": plain,
            ".github/workflows/ci.yml": github_workflow("pytest tests --reruns 2"),
        },
    )
    message = only(document, "DET421")["message"]
    assert message == (
        "`--reruns 2` reruns every failing test of step 'test': a 10% violation is reported "
        "6.9% of the time instead of 41.0% in tests/test_kernels.py::test_batch_invariance "
        "(gates 1 test file under tests)"
    )


def test_pytest_rngs_fixture_replays_only_where_the_project_declares_the_plugin(tmp_path):
    test = (
        "import pytest\n\n\n@pytest.mark.flaky(reruns=2)\ndef test_mean(rng):\n"
        "    assert abs(rng.normal(size=100).mean()) < 0.5\n"
    )
    declared = {"requirements-test.txt": "pytest-rerunfailures==16.7\npytest-rng\n"}
    message = only(check(tmp_path / "a", {**declared, "tests/test_m.py": test}), "DET101")
    assert message["message"] == (
        "rerun marker hides intermittent failures: a 10% violation is reported 0.10% of the "
        "time instead of 10.0% (reruns=2; pytest-rerunfailures==16.7 from "
        "requirements-test.txt:1; 1 attempt, no trial loop recognised); but every attempt "
        "replays the same seed (`rng` on line 5, pytest-rng's fixture, seeded from the test's "
        "id): " + SEED_TAIL.format(attempt="rerun", hides="the marker hides")
    )
    undeclared = only(check(tmp_path / "b", {**RERUNFAILURES, "tests/test_m.py": test}), "DET101")
    assert "replays" not in undeclared["message"]


def test_a_retry_decorator_without_a_literal_limit_around_a_seeded_body(tmp_path):
    """pytorch/rl's `@retry(AssertionError, 5)` from torchrl.testing, configured as a retry
    decorator, around tests that begin with `torch.manual_seed(1)`."""
    test = (
        "import pytest\nimport torch\nfrom torchrl.testing import retry\n\n\n"
        "class TestMultiAgent:\n    @retry(AssertionError, 5)\n"
        '    @pytest.mark.parametrize("n_agents", [1, 3])\n'
        "    def test_multiagent_mlp(self, n_agents):\n        torch.manual_seed(1)\n"
        "        assert build(n_agents).ok\n"
    )
    files = {
        "tests/test_multiagent.py": test,
        "detlint.toml": 'retry-decorators = ["torchrl.testing.retry"]\n',
    }
    message = only(check(tmp_path, files), "DET103")["message"]
    assert message == (
        "retry decorator torchrl.testing.retry around a test with no literal attempt limit: a "
        "violation is reported only if every attempt shows it (1 attempt, no trial loop "
        "recognised; covers 2 test instances); but every attempt replays the same seed "
        "(`torch.manual_seed(1)` on line 10): a failure that seed decides fails every retry "
        "alike, so the decorator hides none of those, and that holds only for nondeterminism "
        "beyond the seed (kernel scheduling, threads, timing)"
    )
