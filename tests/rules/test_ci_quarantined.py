"""A CI knob over tests that are already quarantined quotes a plain test's numbers,
not the "0% instead of 0%" of a test that is never reported either way."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from repo_expectations import run_check

XFAIL_TEST = """\
import pytest


@pytest.mark.xfail(strict=False, reason="https://example.org/issues/12")
def test_allreduce():
    assert True
"""

PIPELINE = """\
steps:
  - command: pytest tests
    retry:
      automatic: true
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_comm.py").write_text(XFAIL_TEST)
    (tmp_path / ".buildkite").mkdir()
    (tmp_path / ".buildkite" / "pipeline.yml").write_text(PIPELINE)
    subprocess.run(["git", "init", "--quiet", str(tmp_path)], check=True)
    return tmp_path


def test_job_retry_over_a_quarantined_test_quotes_a_single_attempt(repo: Path) -> None:
    _, document = run_check(repo, "--select", "DET411")
    (finding,) = document["findings"]
    numbers = finding["numbers"]
    # limit 2 by default: three runs of a single-attempt test, 0.1^3 against 0.1.
    assert numbers["reported"] == pytest.approx(0.1**3)
    assert numbers["reported_without"] == pytest.approx(0.1)
    assert "instead of 0%" not in finding["message"]
    assert "never reported either way" in finding["message"]
