"""A scanned repository's git settings never make detlint run a program.

detlint lists a tree with ``git ls-files``, and a tree's ``.git/config`` can name
programs git runs (``core.fsmonitor`` on every read of the index, filter drivers,
textconv, hooks, pagers). Each command below runs as a user would run it, on a
repository whose config names a program that leaves a file behind when it runs:
the file never appears, and under strace the only programs started are the
Python running detlint and git.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from repo_expectations import RERUN_PYPROJECT, RERUN_TEST

PYPROJECT, TEST_A = RERUN_PYPROJECT, RERUN_TEST
JUNIT = """\
<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="1">
<testcase classname="tests.test_a" name="test_one" time="0.01"/>
</testsuite></testsuites>
"""
ROOT = Path(__file__).resolve().parents[2]


def hostile_repository(root: Path) -> Path:
    """A git repository whose config runs ``touch PWNED-<what>`` from every setting
    that names a program; the marker file says which one ran."""
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "tests" / "test_a.py").write_text(TEST_A)
    (root / ".gitattributes").write_text("* filter=evil diff=evil\n")
    subprocess.run(["git", "init", "--quiet", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "."], check=True)
    hooks = root / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "pre-commit", "post-checkout"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {root}/PWNED-hook\n")
        (hooks / hook).chmod(0o755)
    settings = {
        "core.fsmonitor": f"touch {root}/PWNED-fsmonitor; false",
        "core.hooksPath": str(hooks),
        "core.pager": f"touch {root}/PWNED-pager; cat",
        "filter.evil.clean": f"touch {root}/PWNED-clean; cat",
        "filter.evil.smudge": f"touch {root}/PWNED-smudge; cat",
        "filter.evil.process": f"sh -c 'touch {root}/PWNED-process'",
        "diff.evil.textconv": f"touch {root}/PWNED-textconv; cat",
        "diff.external": f"touch {root}/PWNED-diff",
        "core.untrackedCache": "true",
    }
    for key, value in settings.items():
        subprocess.run(["git", "-C", str(root), "config", key, value], check=True)
    # The index holds files newer than itself, as after an edit: the racy case in
    # which git compares contents (and would run a clean filter) if it ever did.
    (root / "tests" / "test_a.py").write_text(TEST_A + "\n")
    (root / "tests" / "test_b.py").write_text(TEST_A)
    return root


def detlint(root: Path, *arguments: str, stdin: str | None = None) -> list[str]:
    """``python -m detlint ARGUMENTS`` in ``root``; the command line it ran."""
    command = [sys.executable, "-m", "detlint", *arguments]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(
        command, cwd=root, env=environment, input=stdin, capture_output=True, text=True, timeout=120
    )
    return command


RUNS = {
    "check": ("check", "."),
    "check no cache": ("check", "--no-cache", "."),
    "fix": ("check", "--fix", "--unsafe-fixes", "."),
    "diff": ("check", "--diff", "--unsafe-fixes", "."),
    "stdin": ("check", "--stdin-filename", "tests/test_a.py", "-"),
    "audit": ("audit", "."),
    "evidence": ("evidence", "--repo", ".", "junit.xml"),
}


@pytest.mark.parametrize("arguments", RUNS.values(), ids=RUNS.keys())
def test_no_program_the_repository_names_runs(tmp_path: Path, arguments: tuple[str, ...]) -> None:
    root = hostile_repository(tmp_path / "repo")
    (root / "junit.xml").write_text(JUNIT)
    detlint(root, *arguments, stdin=TEST_A)
    assert sorted(path.name for path in root.glob("PWNED*")) == []


def test_git_alone_is_started_under_strace(tmp_path: Path) -> None:
    """Every ``execve`` of a check that lists the tree and reads its dependencies
    (a rerun marker asks which plugin is installed): Python's, then git's only."""
    strace = shutil.which("strace")
    assert strace is not None, "strace is needed (.ci/run installs it)"
    root = hostile_repository(tmp_path / "repo")
    log = tmp_path / "execve.log"
    command = [sys.executable, "-m", "detlint", "check", "--no-cache", "."]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [strace, "-f", "-qq", "-e", "trace=execve", "-o", str(log), *command],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "DET101" in result.stdout
    # Every program asked for, the tries along PATH that found no file included.
    started = re.findall(r'execve\("([^"]+)", (\[[^]]*)', log.read_text())
    programs = [os.path.basename(path) for path, _ in started]
    assert programs[0] == os.path.basename(sys.executable)
    assert set(programs[1:]) == {"git"}
    assert all('"core.fsmonitor=false"' in arguments for _, arguments in started[1:])
    git_processes = set(re.findall(r'^(\d+)\s+execve\("[^"]*/git"', log.read_text(), re.M))
    assert len(git_processes) >= 2  # the walk's listing and the dependency files'
    assert sorted(path.name for path in root.glob("PWNED*")) == []
