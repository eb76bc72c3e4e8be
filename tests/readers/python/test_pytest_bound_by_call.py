"""``pytest = importorskip("pytest")`` and its kin bind the pytest module: the marks
written through that name are read as ``import pytest`` would read them."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_expectations import git_repository, run_check

from detlint.readers.project.discovery import clear_cache

BODY = (
    "\n\nclass TestComplexity(unittest.TestCase):\n"
    "    @pytest.mark.flaky\n"
    "    def test_implied_dirs_performance(self):\n"
    "        self.assertTrue(True)\n"
)


def _repository(root: Path, test: str) -> None:
    clear_cache()
    files = {
        "pyproject.toml": '[project]\nname = "p"\n[project.optional-dependencies]\n'
        'test = ["pytest"]\n',
        "tests/test_complexity.py": test,
    }
    git_repository(root, files)


@pytest.mark.parametrize(
    "binding",
    [
        "from ._support import import_or_skip\npytest = import_or_skip('pytest')",
        "pytest = importorskip('pytest')",
        'from test import support\npytest = support.import_module("pytest")',
        "import importlib\npytest = importlib.import_module('pytest', package=None)",
    ],
)
def test_a_helper_that_imports_pytest_binds_its_marks(tmp_path, binding):
    _repository(tmp_path, f"import unittest\n{binding}{BODY}")
    _, document = run_check(tmp_path)
    line = 4 + binding.count("\n") + 1
    found = sorted((f["code"], f["line"]) for f in document["findings"])
    assert found == [("DET101", line), ("DET102", line)]
    (det102,) = (f for f in document["findings"] if f["code"] == "DET102")
    assert det102["message"].startswith(
        "no rerun plugin is declared in this project's dependencies: unless one is "
        "installed some other way, this marker does nothing"
    )
    clear_cache()


@pytest.mark.parametrize(
    "binding",
    [
        "pytest = import_or_skip('pytest_asyncio')",  # another module
        "pytest = make(name)",  # no literal
        "pytest = lookup(0, 'pytest')",  # not the module argument
    ],
)
def test_other_calls_bind_no_pytest(tmp_path, binding):
    _repository(tmp_path, f"import unittest\n{binding}{BODY}")
    _, document = run_check(tmp_path)
    assert document["findings"] == []
    clear_cache()
