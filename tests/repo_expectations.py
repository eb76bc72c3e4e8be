"""Fixture repositories state their own expected findings in comments.

A line that should produce a finding carries ``# expect: DET101`` (several
codes separated by commas); every other line must produce none. The test then
compares the set of (path, line, code) detlint reports with the set the
comments declare, so a fixture cannot drift from its assertions.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

from click.testing import CliRunner

from detlint.cli.main import cli

EXPECT = re.compile(r"expect:\s*((?:DET\d{3}\s*,?\s*)+)")
TEXT_SUFFIXES = {".py", ".ini", ".toml", ".cfg", ".txt", ".yml", ".yaml"}


# A project that pins a rerun plugin, and a test module with one rerun marker: the
# smallest repository with a finding (DET101 at tests/test_a.py:4) and a fix.
RERUN_PYPROJECT = """\
[project]
name = "demo"
version = "0"
dependencies = ["pytest-rerunfailures==14.0"]
"""
RERUN_TEST = """\
import pytest


@pytest.mark.flaky(reruns=2)
def test_one():
    assert True
"""


def repository_copy(source: Path, destination: Path) -> Path:
    """``source`` copied to ``destination`` as a git repository of its own (inside
    this one, detlint would take this repository's root for its root)."""
    shutil.copytree(source, destination)
    subprocess.run(["git", "init", "--quiet", str(destination)], check=True)
    return destination


def written_repository(root: Path, files: dict[str, str]) -> Path:
    """A repository at ``root`` holding ``files`` (path: dedented text) and an empty
    pyproject.toml that makes it a project of its own."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    (root / "pyproject.toml").touch()
    return root


def git_repository(root: Path, files: dict[str, str]) -> Path:
    """A git work tree at ``root`` holding ``files`` (path: text, written as given), with
    no user configuration read, so that detlint lists its files as git does."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    subprocess.run(
        ["git", "init", "-q"],
        cwd=root,
        check=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull},
    )
    return root


def github_workflow(*runs: str) -> str:
    """A GitHub workflow of one job on ubuntu whose steps are ``runs``, each a ``run: |``
    block (the first command of the first step on line 7)."""
    steps = "".join("      - run: |\n" + textwrap.indent(run, " " * 10) + "\n" for run in runs)
    return "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n" + steps


def expected_findings(repo: Path) -> set[tuple[str, int, str]]:
    found = set()
    for path in sorted(repo.rglob("*")):
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES:
            continue
        data = path.read_bytes()
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
        for number, line in enumerate(text.splitlines(), start=1):
            match = EXPECT.search(line)
            if match:
                for code in re.findall(r"DET\d{3}", match.group(1)):
                    found.add((path.relative_to(repo).as_posix(), number, code))
    return found


def run_check(repo: Path, *args: str) -> tuple[int, dict]:
    """``detlint check --output-format json`` in ``repo``; (exit code, document)."""
    previous = Path.cwd()
    os.chdir(repo)
    try:
        result = CliRunner().invoke(
            cli, ["check", "--output-format", "json", *args], prog_name="detlint"
        )
    finally:
        os.chdir(previous)
    assert result.exit_code in (0, 1), result.output + result.stderr
    return result.exit_code, json.loads(result.output)


def reported_findings(document: dict) -> set[tuple[str, int, str]]:
    return {(f["path"], f["line"], f["code"]) for f in document["findings"]}


def run_audit(repo: Path, *args: str) -> dict:
    """``detlint audit`` (JSON) in ``repo``; the document."""
    return json.loads(run_audit_output(repo, *args))


def run_audit_output(repo: Path, *args: str) -> str:
    """``detlint audit`` in ``repo`` with ``args`` (``--output-format markdown``...); what
    it prints."""
    previous = Path.cwd()
    os.chdir(repo)
    try:
        result = CliRunner().invoke(cli, ["audit", *args], prog_name="detlint")
    finally:
        os.chdir(previous)
    assert result.exit_code == 0, result.output + result.stderr
    return result.output
