"""The code standards CI enforces: ruff lint and format, mypy --strict."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "detlint", "tests", "bench", "scripts"],
        ["ruff", "format", "--check", "detlint", "tests", "bench", "scripts"],
        ["mypy", "--strict", "detlint", "scripts"],
    ],
    ids=["ruff-check", "ruff-format", "mypy-strict"],
)
def test_tool_is_clean(command):
    result = subprocess.run(
        [sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
