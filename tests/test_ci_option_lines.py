"""A rerun option on a command continued over lines (``pytest \\`` then ``--force-flaky
\\``) is reported on the line it is written on, in a pipeline's block script and in a
Makefile recipe alike; the fix still edits the whole command."""

from __future__ import annotations

import pytest
from repo_expectations import github_workflow, run_check, written_repository

TEST = "def test_a():\n    assert True\n"
MAKEFILE = """\
test-ci:
\tuv run pytest \\
\t\t--cov \\
\t\t-v \\
\t\t--force-flaky \\
\t\t--max-runs=3 \\
\t\ttests
"""


def _det421(tmp_path, files: dict[str, str]) -> list[dict]:
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, **files})
    _, document = run_check(repo)
    return [f for f in document["findings"] if f["code"] == "DET421"]


def test_an_option_on_a_later_recipe_line_is_reported_there(tmp_path):
    files = {"Makefile": MAKEFILE, ".github/workflows/ci.yml": github_workflow("make test-ci")}
    (found,) = _det421(tmp_path, files)
    assert (found["path"], found["line"]) == ("Makefile", 5)


@pytest.mark.parametrize(
    ("script", "line"),
    [
        ("pytest tests \\\n  -v \\\n  --reruns 3", 9),
        ("pytest tests --reruns 3", 7),
    ],
)
def test_an_option_in_a_block_script_is_reported_on_its_line(tmp_path, script, line):
    (found,) = _det421(tmp_path, {".github/workflows/ci.yml": github_workflow(script)})
    assert found["line"] == line
    (edit,) = found["fix"]["edits"]
    assert (edit["line"], edit["content"]) == (line, "")
