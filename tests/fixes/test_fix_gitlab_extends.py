"""A GitLab job's ``allow_failure`` is fixed where it is written: set to ``false``
where the job ``extends`` others, since removing it would let the job inherit theirs."""

from __future__ import annotations

import json

from click.testing import CliRunner

from detlint.cli.main import cli

PIPELINE = """\
.base:
  allow_failure: true
  image: python:3.12

test:
  extends: .base
  allow_failure: true  # until the cluster is stable
  script:
    - pytest tests

lint:
  allow_failure: true
  script:
    - pytest tests/lint
"""


def invoke(*args: str):
    return CliRunner().invoke(cli, ["check", *args, "."], prog_name="detlint")


def test_a_job_that_extends_others_gets_allow_failure_false(repository, monkeypatch):
    (repository / ".gitlab-ci.yml").write_text(PIPELINE)
    (repository / "tests").mkdir()
    (repository / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n")
    monkeypatch.chdir(repository)
    findings = json.loads(invoke("--output-format", "json").stdout)["findings"]
    fixes = {f["line"]: f["fix"] for f in findings if f["code"] == "DET401"}
    assert fixes[7]["message"] == (
        "Set `allow_failure: false` so that test failures fail the build (the job "
        "`extends` others, which may set it)"
    )
    assert [(e["line"], e["content"]) for e in fixes[7]["edits"]] == [(7, "false")]
    assert fixes[12]["message"] == "Remove `allow_failure` so that test failures fail the build"
    result = invoke("--fix-only", "--unsafe-fixes")
    assert result.exit_code == 0, result.output
    assert (repository / ".gitlab-ci.yml").read_text() == PIPELINE.replace(
        "  allow_failure: true  # until", "  allow_failure: false  # until"
    ).replace("lint:\n  allow_failure: true\n", "lint:\n")
