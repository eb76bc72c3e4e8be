"""A rerun flag in a folded script (``run: >``) is one line of the command but any
line of the file: the finding covers the script, so the line its fix removes is
inside what the finding points at."""

from __future__ import annotations

import json

from click.testing import CliRunner

from detlint.cli.main import cli

WORKFLOW = """\
name: ci
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: >
          python -m pytest
          -q
          --reruns 3
          tests
      - run: |
          python -m pytest -q \\
            --reruns 2 tests
"""


def test_the_finding_covers_the_folded_line_its_fix_removes(repository, monkeypatch):
    (repository / ".github" / "workflows").mkdir(parents=True)
    (repository / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW)
    (repository / "tests").mkdir()
    (repository / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n")
    monkeypatch.chdir(repository)
    result = CliRunner().invoke(cli, ["check", "--output-format", "json", "."])
    findings = [f for f in json.loads(result.stdout)["findings"] if f["code"] == "DET421"]
    spans = [(f["line"], f["column"], f["end_line"], f["end_column"]) for f in findings]
    edits = [
        [(e["line"], e["column"], e["end_line"], e["end_column"]) for e in f["fix"]["edits"]]
        for f in findings
    ]
    # the folded script from its command to its end; the literal one at the flag's line
    assert spans == [(8, 1, 11, 16), (14, 1, 14, 1)]
    assert edits == [[(10, 1, 11, 1)], [(14, 13, 14, 24)]]
