"""The audit's headline keeps tests whose knobs mask nothing anywhere apart from those
whose knobs hide failures only where a condition holds."""

from __future__ import annotations

import pytest
from realworld_cases import FLAKY, RERUNFAILURES
from repo_expectations import run_audit_output, written_repository

TEST = """\
import sys

import pytest


{mark}
def test_a():
    assert run() == 1
"""
NOTHING = (
    "No test runs under a knob that hides intermittent failures. 1 test has retry or "
    "quarantine knobs that mask nothing wherever the test runs: a filter that lets no "
    "assertion failure by, a condition never true, or a marker that errors every run."
)


def _headline(tmp_path, mark: str, plugin: dict[str, str]) -> list[str]:
    files = {"tests/test_a.py": TEST.format(mark=mark), **plugin}
    output = run_audit_output(written_repository(tmp_path, files), "--output-format", "markdown")
    return output.splitlines()[2:9]


@pytest.mark.parametrize(
    ("mark", "plugin"),
    [
        ('@pytest.mark.flaky(reruns=2, only_rerun=["TimeoutError"])', RERUNFAILURES),
        ("@pytest.mark.flaky(reruns=2, condition=False)", RERUNFAILURES),
        ("@pytest.mark.flaky(reruns=2)", FLAKY),  # a TypeError under the flaky package
    ],
    ids=["only-rerun-excludes-assertions", "condition-false", "errors-every-run"],
)
def test_a_knob_that_masks_nothing_is_said_to(tmp_path, mark: str, plugin) -> None:
    lines = _headline(tmp_path, mark, plugin)
    assert lines[0] == NOTHING
    assert "| More where a condition holds | 0 |" in lines
    assert "| More under knobs that mask nothing | 1 |" in lines


def test_a_conditional_knob_still_hides_where_it_holds(tmp_path) -> None:
    mark = '@pytest.mark.skipif(sys.platform == "win32", reason="flaky on windows")'
    lines = _headline(tmp_path, mark, RERUNFAILURES)
    assert lines[0] == (
        "1 test has knobs that hide intermittent failures only where a condition holds."
    )
    assert "| More where a condition holds | 1 |" in lines
    assert "| More under knobs that mask nothing | 0 |" in lines
