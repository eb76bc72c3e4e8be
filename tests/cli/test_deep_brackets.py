"""A test file holding a bracket nesting of a hundred thousand levels (which Python's
parser refuses) is read in time linear in its size: the bracket balance is counted in
one pass, not one pass per level (which took minutes on such a file)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from detlint.readers.python.blocks import statement_starts

ROOT = Path(__file__).parents[2]
DEPTH = 100_000
MARKED = "\n\n@pytest.mark.flaky(reruns=2)\ndef test_a():\n    assert True\n"


def test_a_file_nested_a_hundred_thousand_deep_is_checked_in_seconds(repository: Path) -> None:
    deep = "{a = " * DEPTH + "1" + "}" * DEPTH
    (repository / "test_deep.py").write_text(f"import pytest\n\ndeep = {deep}\n{MARKED}")
    result = subprocess.run(
        [sys.executable, "-m", "detlint", "check", "--no-cache", "--output-format", "concise", "."],
        cwd=repository,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=30,  # minutes before the balance was counted in one pass
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("test_deep.py:6:2: DET101 "), result.stdout


def test_the_statements_of_deeply_nested_text() -> None:
    text = "x = " + "(" * DEPTH + "1" + ")" * DEPTH + "\ny = 2\n"
    assert statement_starts(text) == [0, text.index("y")]
    assert statement_starts(text.replace(")\n", "\n", 1)) is None  # one stays open
    assert statement_starts(")" + text[:-1] + "(") is None  # closes one never opened
