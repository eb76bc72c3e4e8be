"""detlint reads a repository's code and configuration; it never imports or runs them.

Every Python file of the repository below leaves a file behind when it is imported or
run: the test modules and ``conftest.py`` pytest would import, ``setup.py`` and
``noxfile.py`` that tools run, and modules named like the libraries detlint itself
imports (``click``, ``yaml``, ``libcst``), which a scanned tree put on the import path
would shadow. Each command reads them all (a rerun marker, pins, a pipeline, a fix to
build) and none of them leaves its file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNS_ON_IMPORT = "import pathlib\n\npathlib.Path(__file__).with_name('RAN-{name}').touch()\n"
MARKED = """\
import pytest

{runs}

@pytest.mark.flaky(reruns=2)
def test_one():
    assert True
"""
FILES = {
    "pyproject.toml": (
        '[project]\nname = "demo"\nversion = "0"\n'
        'dependencies = ["pytest-rerunfailures==14.0"]\n'
        '[tool.pytest.ini_options]\naddopts = "-p conftest_plugin"\n'
    ),
    "tests/test_a.py": MARKED.format(runs=RUNS_ON_IMPORT.format(name="test_a")),
    "tests/conftest.py": RUNS_ON_IMPORT.format(name="conftest"),
    "tests/conftest_plugin.py": RUNS_ON_IMPORT.format(name="plugin"),
    "setup.py": RUNS_ON_IMPORT.format(name="setup") + "tests_require = ['flaky==3.8.1']\n",
    "noxfile.py": RUNS_ON_IMPORT.format(name="noxfile"),
    "click.py": RUNS_ON_IMPORT.format(name="click"),
    "yaml.py": RUNS_ON_IMPORT.format(name="yaml"),
    "libcst.py": RUNS_ON_IMPORT.format(name="libcst"),
    ".github/workflows/ci.yml": (
        "name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: python setup.py test && pytest tests\n"
        "        continue-on-error: true\n"
    ),
}
# Each command, and what its output shows it read.
RUNS = {
    "check": (("check", "--no-cache", "{repo}"), "repo/tests/test_a.py:8:2: DET101"),
    "fix": (("check", "--fix", "--unsafe-fixes", "{repo}"), "(2 fixed, 1 remaining)"),
    "json": (("check", "--output-format", "json", "--unsafe-fixes", "{repo}"), '"DET401"'),
    "audit": (("audit", "--output-format", "json", "{repo}"), '"repo/tests/test_a.py::test_one"'),
}


@pytest.mark.parametrize(("arguments", "read"), RUNS.values(), ids=RUNS.keys())
def test_no_file_of_the_repository_is_imported_or_run(
    tmp_path: Path, arguments: tuple[str, ...], read: str
) -> None:
    repo = tmp_path / "repo"
    for name, text in FILES.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    subprocess.run(["git", "init", "--quiet", str(repo)], check=True)
    result = subprocess.run(
        [sys.executable, "-m", "detlint", *(a.format(repo=repo) for a in arguments)],
        cwd=tmp_path,  # `python -m` puts the working directory on the import path
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode in (0, 1), result.stderr
    assert read in result.stdout
    assert sorted(path.name for path in repo.rglob("RAN-*")) == []


def test_python_m_detlint_in_the_scanned_root_imports_none_of_its_modules(tmp_path: Path) -> None:
    """``python -m`` puts the working directory first on the import path; run from the
    scanned tree's root, detlint still imports click, yaml and libcst, not the tree's."""
    repo = tmp_path / "repo"
    for name, text in FILES.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    subprocess.run(["git", "init", "--quiet", str(repo)], check=True)
    result = subprocess.run(
        [sys.executable, "-m", "detlint", "check", "--output-format", "json", "--unsafe-fixes"],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    assert '"DET401"' in result.stdout
    assert sorted(path.name for path in repo.rglob("RAN-*")) == []
