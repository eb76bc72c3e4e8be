"""Helpers for the tests distilled from real repositories (tests/test_real_*.py).

Each such test writes a small repository of its own, shaped like the real code
that produced a wrong finding (named in the test's docstring, with the
verdicts in bench/realworld/), runs ``detlint check`` or ``detlint audit`` on
it and asserts the right output with its numbers.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
from click.testing import CliRunner
from repo_expectations import run_check, written_repository

from detlint.cli.main import cli

RERUNFAILURES = {"requirements-test.txt": "pytest-rerunfailures==16.7\n"}
FLAKY = {"requirements-test.txt": "flaky==3.8.1\n"}
RETRY = {"requirements-test.txt": "pytest-retry==1.7.0\n"}
AUDIT_SCHEMA = Path(__file__).parent.parent / "docs" / "json-schema" / "audit-1.json"


def check(root: Path, files: dict[str, str], *args: str) -> dict:
    """``detlint check --output-format json`` on a repository of ``files``."""
    _, document = run_check(written_repository(root, files), *args)
    return document


def audit(root: Path, files: dict[str, str]) -> dict:
    """``detlint audit`` on a repository of ``files``, checked against its JSON schema."""
    repo = written_repository(root, files)
    previous = Path.cwd()
    os.chdir(repo)
    try:
        result = CliRunner().invoke(cli, ["audit", "--no-cache"], prog_name="detlint")
    finally:
        os.chdir(previous)
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    jsonschema.validate(document, json.loads(AUDIT_SCHEMA.read_text(encoding="utf-8")))
    return document


def findings(document: dict, code: str | None = None) -> list[dict]:
    return [f for f in document["findings"] if code is None or f["code"] == code]


def only(document: dict, code: str) -> dict:
    (found,) = findings(document, code)
    return found


def one_test(document: dict, name: str) -> dict:
    (found,) = [t for t in document["tests"] if t["test"].endswith(name)]
    return found
