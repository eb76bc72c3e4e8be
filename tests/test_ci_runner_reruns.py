"""Test runners other than pytest rerun failing tests themselves: Bazel's
``--flaky_test_attempts`` (on the command line, or in a ``.bazelrc`` config the command
selects), CTest's ``--repeat until-pass:N``, cargo-nextest's ``--retries``, Surefire's
``rerunFailingTestsCount``. Each is a retry of the tests that runner runs (DET411),
placed where the option is written, with the attempts in all."""

from __future__ import annotations

import pytest
from repo_expectations import run_check, written_repository

TEST = "def test_a():\n    assert True\n"


def _det411(tmp_path, command: str, **files: str) -> list[dict]:
    pipeline = f"steps:\n  - label: unit\n    command: {command}\n"
    repo = written_repository(
        tmp_path, {"tests/test_a.py": TEST, ".buildkite/pipeline.yml": pipeline, **files}
    )
    _, document = run_check(repo)
    return [f for f in document["findings"] if f["code"] == "DET411"]


@pytest.mark.parametrize(
    ("command", "option", "attempts"),
    [
        ("bazel test --flaky_test_attempts=3 //...", "--flaky_test_attempts=3", 3),
        ("bazelisk test --flaky_test_attempts 2 //...", "--flaky_test_attempts 2", 2),
        ("ctest --output-on-failure --repeat until-pass:4", "--repeat until-pass:4", 4),
        ("ctest --repeat-until-pass 3", "--repeat-until-pass 3", 3),
        ("cargo nextest run --retries 2", "--retries 2", 3),
        ("mvn test -Dsurefire.rerunFailingTestsCount=2", "-Dsurefire.rerunFailingTestsCount=2", 3),
    ],
)
def test_a_runners_own_rerun_option_is_a_retry_of_its_tests(tmp_path, command, option, attempts):
    (found,) = _det411(tmp_path, command)
    assert (found["path"], found["line"]) == (".buildkite/pipeline.yml", 3)
    assert found["message"].startswith(f"`{option}` reruns the tests that failed")
    assert f"({attempts} attempts in all)" in found["message"]
    assert "single-attempt test" in found["message"]
    assert found["help"].startswith("drop the option")


@pytest.mark.parametrize(
    "command",
    [
        "bazel test --flaky_test_attempts=1 //...",
        "bazel test --flaky_test_attempts=default //...",
        "bazel test --flaky_test_attempts=//foo:.*@3 //...",
        "ctest --repeat until-fail:3",
        "cargo nextest run --retries 0",
        "bazel build //...",
    ],
)
def test_no_rerun_or_an_unreadable_count_is_no_retry(tmp_path, command):
    assert _det411(tmp_path, command) == []


BAZELRC = """\
# CI settings
common:ci --config=flaky
test:flaky --flaky_test_attempts=3
build:release --flaky_test_attempts=5
test --test_output=errors
"""


def test_a_bazelrc_config_the_command_selects_is_read_where_the_option_is_written(tmp_path):
    (found,) = _det411(tmp_path, "bazel test --config=ci //...", **{".bazelrc": BAZELRC})
    assert (found["path"], found["line"]) == (".bazelrc", 3)
    assert "`--flaky_test_attempts=3`" in found["message"]
    assert "(3 attempts in all)" in found["message"]


def test_a_bazelrc_config_the_command_does_not_select_is_not_a_retry(tmp_path):
    assert _det411(tmp_path, "bazel test //...", **{".bazelrc": BAZELRC}) == []
