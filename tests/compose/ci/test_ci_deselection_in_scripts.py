"""``-m "not <tag>"`` inside a script a CI step calls deselects like one on the
step's own command line (DET202 at the script's line)."""

from __future__ import annotations

import pytest
from repo_expectations import run_check, written_repository

FILES = {
    "pyproject.toml": (
        '[project]\nname = "x"\n[tool.pytest.ini_options]\nmarkers = ["gpu_flaky: flaky on GPUs"]\n'
    ),
    "tests/test_a.py": (
        "import pytest\n\n\n@pytest.mark.gpu_flaky\ndef test_a():\n    assert True\n"
    ),
    "ci/test.sh": '#!/bin/bash\nset -e\npytest -m "not gpu_flaky" tests\n',
}


def _workflow(command: str) -> str:
    return (
        f"on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: {command}\n"
    )


@pytest.mark.parametrize(
    ("command", "where"),
    [("bash ci/test.sh", ("ci/test.sh", 3)), ("./ci/test.sh", ("ci/test.sh", 3))],
)
def test_a_script_that_deselects_a_tag_is_reported_at_the_script(tmp_path, command, where):
    files = {**FILES, ".github/workflows/ci.yml": _workflow(command)}
    _, document = run_check(written_repository(tmp_path, files))
    (found,) = document["findings"]
    assert (found["code"], found["path"], found["line"]) == ("DET202", *where)
    assert "deselects the tests marked 'gpu_flaky' in step 't'" in found["message"]


def test_a_step_that_selects_the_tag_elsewhere_makes_it_no_finding(tmp_path):
    workflow = _workflow("bash ci/test.sh") + "      - run: pytest -m gpu_flaky tests\n"
    files = {**FILES, ".github/workflows/ci.yml": workflow}
    _, document = run_check(written_repository(tmp_path, files))
    assert document["findings"] == []
