"""Steps that run the repository's tests from inside a CI image: absolute container
paths (``/workspace/<repo>/tests/...``), wrapper scripts handed the command, node ids
and ``--ignore`` narrowing what runs, and runs that reach no test file here.

Each case is distilled from a real repository's Buildkite setup (bench/realworld:
tpu-inference, torchmetrics, Megatron-LM)."""

from __future__ import annotations

from repo_expectations import run_check, written_repository

PLAIN = "def test_plain():\n    assert True\n"
# A trial loop: each iteration checks what it computed, so test_many takes 5 trials.
LOOPING = """\
import os


def generate(seed):
    return seed * 0


def test_many():
    baseline = generate(0)
    for _ in range(int(os.getenv("TRIALS", "5"))):
        output = generate(1)
        assert output == baseline


def test_once():
    assert generate(1) == 0
"""


def _buildkite(command: str, key: str = "soft_fail: true") -> str:
    return f"""\
steps:
  - label: unit tests
    {key}
    commands:
      - |
        {command}
"""


def _findings(tmp_path, files: dict[str, str]) -> list[dict]:
    repo = written_repository(tmp_path, files)
    _, document = run_check(repo)
    return document["findings"]


def test_an_absolute_container_target_is_the_repository_path_it_ends_in(tmp_path):
    (found,) = _findings(
        tmp_path,
        {
            "tests/models/test_qwen.py": PLAIN,
            "tests/other/test_other.py": PLAIN,
            ".buildkite/models.yml": _buildkite(
                "python3 -m pytest -s -v -x /workspace/tpu_inference/tests/models/test_qwen.py"
            ),
        },
    )
    assert found["code"] == "DET401"
    assert "tests/models/test_qwen.py (tests without knobs)" in found["message"]
    assert "gates 1 test file under tests/models" in found["message"]


def test_a_wrapper_script_handed_the_command_runs_it(tmp_path):
    # run_in_docker.sh ends in `docker run ... "$@"`: what follows it is the command.
    (found,) = _findings(
        tmp_path,
        {
            "tests/e2e/test_sp.py": PLAIN,
            ".buildkite/scripts/run_in_docker.sh": 'docker run --rm image "$@"\n',
            ".buildkite/sp.yml": _buildkite(
                ".buildkite/scripts/run_in_docker.sh \\\n"
                "          bash -c 'python3 -m pytest -s -v /workspace/proj/tests/e2e/test_sp.py'"
            ),
        },
    )
    assert "gates 1 test file under tests/e2e" in found["message"]


def test_an_absolute_script_path_is_followed_into_the_repository(tmp_path):
    (found,) = _findings(
        tmp_path,
        {
            "tests/unit/test_u.py": PLAIN,
            "ci/unit.sh": "cd tests\npytest unit\n",
            ".buildkite/unit.yml": _buildkite("bash /workspace/proj/ci/unit.sh"),
        },
    )
    assert found["path"] == ".buildkite/unit.yml"
    assert "gates 1 test file under tests/unit" in found["message"]


def test_a_node_id_target_runs_only_the_tests_it_names(tmp_path):
    files = {"tests/e2e/test_spec.py": LOOPING}
    everything = _findings(
        tmp_path / "all",
        {**files, ".buildkite/a.yml": _buildkite("pytest tests/e2e/test_spec.py")},
    )
    (whole,) = everything
    assert "instead of 41.0% in tests/e2e/test_spec.py::test_many" in whole["message"]
    (one,) = _findings(
        tmp_path / "one",
        {
            **files,
            ".buildkite/a.yml": _buildkite(
                "pytest /workspace/proj/tests/e2e/test_spec.py::test_once"
            ),
        },
    )
    assert "test_many" not in one["message"]
    assert "instead of 10.0% in tests/e2e/test_spec.py" in one["message"]


def test_ignored_paths_are_not_gated(tmp_path):
    (found,) = _findings(
        tmp_path,
        {
            "tests/kernels/test_kernel.py": LOOPING,
            "tests/unit/test_u.py": PLAIN,
            "tests/unit/test_v.py": PLAIN,
            ".buildkite/a.yml": _buildkite(
                "pytest -x /workspace/proj/tests/ --ignore=/workspace/proj/tests/kernels"
                " --ignore tests/unit/test_v.py"
            ),
        },
    )
    assert "test_kernel" not in found["message"]
    assert "gates 1 test file under tests/unit" in found["message"]


def test_a_file_read_for_trial_loops_and_found_with_none_is_gated_as_plain(tmp_path):
    # The helper's loop makes the file worth reading; its test holds no knob.
    source = (
        "def prompts():\n    return [str(i) for i in range(3)]\n\n\n"
        "def build():\n    out = []\n    for p in prompts():\n        out.append(p)\n"
        "    return out\n\n\n"
        "def test_sp_correctness():\n    assert build()\n"
    )
    (found,) = _findings(
        tmp_path,
        {
            "tests/e2e/test_sp.py": source,
            ".buildkite/a.yml": _buildkite("pytest tests/e2e/test_sp.py::test_sp_correctness"),
        },
    )
    assert "in tests/e2e/test_sp.py (tests without knobs)" in found["message"]
    assert "single-attempt" not in found["message"]


def test_a_run_of_another_projects_tests_says_so(tmp_path):
    # The image holds vllm's checkout too: /workspace/vllm/tests is not this repository.
    (found,) = _findings(
        tmp_path,
        {
            "tests/test_a.py": PLAIN,
            ".buildkite/torch.yml": _buildkite(
                "python3 -m pytest -s -v /workspace/vllm/tests/v1/tpu/test_perf.py"
            ),
        },
    )
    assert (
        "in the tests `python3 -m pytest -s -v /workspace/vllm/tests/v1/tpu/test_perf.py` "
        "runs, which detlint finds in no test file here"
    ) in found["message"]
    assert "single-attempt" not in found["message"]
    assert "could link" not in found["message"]


def test_targets_set_at_run_time_are_named_as_such(tmp_path):
    found = _findings(
        tmp_path,
        {
            "tests/test_a.py": PLAIN,
            ".github/workflows/ci.yml": """\
                on: push
                jobs:
                  pytester:
                    runs-on: ubuntu-latest
                    steps:
                      - run: python -m pytest $TEST_DIRS --reruns 3
            """,
        },
    )
    (rerun,) = [f for f in found if f["code"] == "DET421"]
    assert "(its targets are set at run time)" in rerun["message"]


def test_pipelines_in_an_excluded_directory_are_not_read(tmp_path):
    found = _findings(
        tmp_path,
        {
            "tests/test_a.py": PLAIN,
            ".buildkite/excluded/guard.yml": _buildkite("pytest tests"),
            ".buildkite/models/kept.yml": _buildkite("pytest tests"),
        },
    )
    assert [f["path"] for f in found] == [".buildkite/models/kept.yml"]


def test_a_python_tool_kept_in_a_test_tree_is_not_a_test_runner(tmp_path):
    found = _findings(
        tmp_path,
        {
            "tests/test_a.py": PLAIN,
            ".gitlab-ci.yml": """\
                golden_values:
                  allow_failure: true
                  script:
                    - python tests/test_utils/python_scripts/download_golden_values.py
                run_tests:
                  allow_failure: true
                  script:
                    - python tests/run_tests.py
            """,
        },
    )
    assert [f["line"] for f in found] == [6]


def test_a_benchmark_only_run_names_no_test(tmp_path):
    # pytest-benchmark skips every test without its fixture; which ones run is unknown.
    (found,) = _findings(
        tmp_path,
        {
            "autotest/test_grid.py": LOOPING,
            ".github/workflows/bench.yml": """\
                on: push
                jobs:
                  bench:
                    runs-on: ubuntu-latest
                    steps:
                      - working-directory: autotest
                        shell: bash -l {0}  # no errexit: `ls` decides the status
                        run: |
                          uv run pytest --benchmark-only --benchmark-json .b/${{ matrix.os }}.json
                          ls .b
            """,
        },
    )
    assert found["code"] == "DET431"
    assert (
        "in the benchmarks it runs (`--benchmark-only` skips the other tests)" in (found["message"])
    )
    assert "test_many" not in found["message"]


def test_a_run_in_a_directory_set_at_run_time_says_so(tmp_path):
    found = _findings(
        tmp_path,
        {
            "src/integrations/prefect-aws/tests/test_a.py": PLAIN,
            ".github/workflows/integrations.yml": """\
                on: push
                jobs:
                  run-tests:
                    runs-on: ubuntu-latest
                    steps:
                      - working-directory: src/integrations/${{ matrix.package }}
                        run: uv run pytest tests --reruns 2
            """,
        },
    )
    (rerun,) = [f for f in found if f["code"] == "DET421"]
    assert "(in a directory set at run time)" in rerun["message"]
