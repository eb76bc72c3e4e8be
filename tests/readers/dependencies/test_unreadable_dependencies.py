"""A dependency file detlint cannot read is one DET901, and no conclusion drawn from
its absence: "no rerun plugin is declared" would be a guess."""

from __future__ import annotations

import subprocess
from pathlib import Path

from repo_expectations import run_check

MARKED = "import pytest\n\n\n@pytest.mark.flaky(reruns=2)\ndef test_x():\n    pass\n"


def make(root: Path, pyproject: str) -> Path:
    (root / "tests").mkdir()
    (root / "tests" / "test_a.py").write_text(MARKED)
    (root / "pyproject.toml").write_text(pyproject)
    subprocess.run(["git", "init", "--quiet", str(root)], check=True)
    return root


def nested(root: Path, pyproject: str) -> Path:
    """A repository whose package ``pkg`` has its own pyproject.toml and tests: the
    package's file is read for dependencies, not for detlint's settings (the run
    starts at the root, whose pyproject.toml is fine)."""
    make(root, '[project]\nname = "root"\n')
    (root / "tests" / "test_a.py").unlink()
    (root / "pkg" / "tests").mkdir(parents=True)
    (root / "pkg" / "tests" / "test_a.py").write_text(MARKED)
    (root / "pkg" / "pyproject.toml").write_text(pyproject)
    return root


def test_broken_nested_pyproject_is_one_det901_and_no_det102(tmp_path: Path) -> None:
    repo = nested(tmp_path, '[project\ndependencies = ["pytest-rerunfailures"]\n')
    _, document = run_check(repo)
    codes = [(f["path"], f["code"]) for f in document["findings"]]
    assert codes == [("pkg/pyproject.toml", "DET901"), ("pkg/tests/test_a.py", "DET101")]


def test_broken_nested_pyproject_that_names_no_plugin_still_declares_none(tmp_path: Path) -> None:
    # Its bytes do not name a rerun plugin at all: "none declared" holds however it parses.
    repo = nested(tmp_path, '[project\nname = "x"\ndependencies = ["pytest"]\n')
    _, document = run_check(repo)
    found = [(f["path"], f["code"]) for f in document["findings"]]
    assert ("pkg/tests/test_a.py", "DET102") in found


def test_readable_pyproject_without_the_plugin_is_a_det102(tmp_path: Path) -> None:
    repo = make(tmp_path, '[project]\nname = "x"\ndependencies = ["pytest"]\n')
    _, document = run_check(repo)
    codes = [(f["path"], f["code"]) for f in document["findings"]]
    assert codes == [("tests/test_a.py", "DET101"), ("tests/test_a.py", "DET102")]
