"""A Python script CI runs in place of pytest keeps or drops pytest's exit status: a
``pytest.main([...])`` or ``subprocess.run([... "pytest" ...])`` whose result is thrown
away, in a script that never exits with a status of its own, ends with 0 whatever the
tests did (DET431). A kept result, ``check=True``, ``sys.exit`` or a ``raise`` leave the
status to the script, which detlint does not guess."""

from __future__ import annotations

import pytest
from repo_expectations import run_check, written_repository

TEST = "def test_a():\n    assert True\n"
WORKFLOW = """\
on: push
jobs:
  t:
    runs-on: ubuntu-latest
    steps:
      - run: python scripts/run_tests.py
"""


def _det431(tmp_path, script: str) -> list[dict]:
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": TEST,
            "scripts/run_tests.py": script,
            ".github/workflows/ci.yml": WORKFLOW,
        },
    )
    _, document = run_check(repo)
    return [f for f in document["findings"] if f["code"] == "DET431"]


@pytest.mark.parametrize(
    "script",
    [
        'import pytest\n\npytest.main(["tests"])\nprint("done")\n',
        'import subprocess, sys\n\nsubprocess.run([sys.executable, "-m", "pytest", "tests"])\n',
        'import os\n\nos.system("pytest tests")\n',
    ],
)
def test_a_discarded_pytest_result_hides_the_tests_status(tmp_path, script):
    (found,) = _det431(tmp_path, script)
    assert (found["path"], found["line"]) == (".github/workflows/ci.yml", 6)
    assert found["message"].startswith("a discarded pytest result (`scripts/run_tests.py` line 3)")
    assert "reported 0% of the time" in found["message"]


@pytest.mark.parametrize(
    "script",
    [
        'import pytest, sys\n\nsys.exit(pytest.main(["tests"]))\n',
        'import pytest\n\nraise SystemExit(pytest.main(["tests"]))\n',
        'import subprocess\n\nsubprocess.run(["pytest", "tests"], check=True)\n',
        'import subprocess\n\nsubprocess.check_call(["pytest", "tests"])\n',
        'import pytest\n\ncode = pytest.main(["tests"])\nprint(code)\n',
        'import subprocess\n\nout = subprocess.run(["pytest"], capture_output=True)\n'
        'if b" failed" in out.stdout:\n    raise RuntimeError("tests failed")\n',
        'import pytest, sys\n\npytest.main(["tests"])\nsys.exit(1 if open("x").read() else 0)\n',
    ],
)
def test_a_kept_or_checked_status_is_not_reported(tmp_path, script):
    assert _det431(tmp_path, script) == []


@pytest.mark.parametrize(
    ("name", "script", "reported"),
    [
        ("test_system.py", "def test_all():\n    assert 1 + 1 == 2\n\n\ntest_all()\n", True),
        ("smoke_test.py", "import unittest\n\nunittest.main()\n", True),
        ("test_selector.py", "import sys\n\nprint(sys.argv[1:])\n", False),
        ("check_system.py", "def test_all():\n    pass\n", False),
    ],
)
def test_a_test_module_run_as_a_script_anywhere_runs_its_tests(tmp_path, name, script, reported):
    workflow = (
        "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"      - run: python {name}\n        continue-on-error: true\n"
    )
    repo = written_repository(
        tmp_path, {"tests/test_a.py": TEST, name: script, ".github/workflows/ci.yml": workflow}
    )
    _, document = run_check(repo)
    found = [f for f in document["findings"] if f["code"] == "DET401"]
    assert bool(found) is reported
    if reported:
        assert f"single-attempt test of those `python {name}` runs" in found[0]["message"]
