"""A rerun flag in a block scalar whose key line carries a chomping or indentation
indicator (``run: >-``, ``>+``, ``>2-``, ``|-``, ``|+``) is found and fixed where its
plain form (``>``, ``|``) is: the script's text starts on the line after the indicator
whether or not chomping leaves it a line break, so the finding points into the script,
covers what its fix edits, and the fix removes the option there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from detlint.cli.main import cli

# Line 8 is a one-line script, lines 10-11 a literal script of two commands, lines
# 13-16 one command folded over four lines.
WORKFLOW = """\
name: ci
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: {indicator}
          python -m pytest -q --reruns 3 tests
      - run: {indicator}
          echo start
          python -m pytest -q --reruns 4 tests
      - run: {indicator}
          python -m pytest
          -q
          --reruns 5
          tests
"""

# What the finding points at and what its fix edits, as (line, column, end line, end
# column); a literal script reads `--reruns 5` on a line of its own, which runs no pytest.
FOLDED = [
    ((8, 1, 8, 1), [(8, 31, 8, 42)]),
    ((13, 1, 16, 16), [(15, 1, 16, 1)]),
]
LITERAL = [
    ((8, 1, 8, 1), [(8, 31, 8, 42)]),
    ((11, 1, 11, 1), [(11, 31, 11, 42)]),
]

FIXED = """\
name: ci
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: {indicator}
          python -m pytest -q tests
      - run: {indicator}
          echo start
          python -m pytest -q{second} tests
      - run: {indicator}
          python -m pytest
          -q
{third}          tests
"""

CASES = [
    (">", FOLDED),
    (">-", FOLDED),
    (">+", FOLDED),
    (">2-", FOLDED),
    ("|", LITERAL),
    ("|-", LITERAL),
    ("|+", LITERAL),
]


def _repository(root: Path, indicator: str) -> Path:
    workflow = root / ".github" / "workflows" / "ci.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(WORKFLOW.format(indicator=indicator))
    (root / "tests").mkdir()
    (root / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n")
    return workflow


def _det421(root: Path) -> list[tuple[tuple[int, ...], list[tuple[int, ...]]]]:
    result = CliRunner().invoke(
        cli, ["check", "--no-cache", "--output-format", "json", str(root)], prog_name="detlint"
    )
    assert result.exit_code == 1, result.output
    found = []
    for finding in json.loads(result.stdout)["findings"]:
        if finding["code"] != "DET421":
            continue
        span = tuple(finding[k] for k in ("line", "column", "end_line", "end_column"))
        assert finding["fix"] is not None, finding
        edits = [
            tuple(edit[k] for k in ("line", "column", "end_line", "end_column"))
            for edit in finding["fix"]["edits"]
        ]
        found.append((span, edits))
    return found


@pytest.mark.parametrize(("indicator", "expected"), CASES, ids=[case[0] for case in CASES])
def test_the_finding_points_into_the_script_and_its_fix_is_offered(
    repository: Path, indicator: str, expected: list[tuple[tuple[int, ...], list[tuple[int, ...]]]]
) -> None:
    _repository(repository, indicator)
    found = _det421(repository)
    assert found == expected
    for (line, _, end_line, _), edits in found:
        assert all(line <= edit[0] and edit[2] <= max(end_line, line + 1) for edit in edits)


@pytest.mark.parametrize(("indicator", "expected"), CASES, ids=[case[0] for case in CASES])
def test_the_fix_removes_the_option_in_the_script(
    repository: Path, indicator: str, expected: list[tuple[tuple[int, ...], list[tuple[int, ...]]]]
) -> None:
    workflow = _repository(repository, indicator)
    result = CliRunner().invoke(
        cli,
        ["check", "--no-cache", "--fix", "--unsafe-fixes", str(repository)],
        prog_name="detlint",
    )
    assert result.exit_code == 0, result.output
    literal = indicator.startswith("|")
    assert workflow.read_text() == FIXED.format(
        indicator=indicator,
        second="" if literal else " --reruns 4",
        third="          --reruns 5\n" if literal else "",
    )


def test_gitlab_and_buildkite_scripts_with_a_chomping_indicator(repository: Path) -> None:
    """A GitLab script item ``- >-`` and a Buildkite ``command: |-``: the same reading."""
    gitlab = repository / ".gitlab-ci.yml"
    gitlab.write_text(
        "test:\n  script:\n    - >-\n      python -m pytest -q\n      --reruns 3 tests\n"
    )
    buildkite = repository / ".buildkite" / "pipeline.yml"
    buildkite.parent.mkdir()
    buildkite.write_text(
        "steps:\n  - label: t\n    command: |-\n      python -m pytest -q --reruns 2 tests\n"
    )
    (repository / "tests").mkdir()
    (repository / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n")
    assert sorted(_det421(repository)) == [
        ((4, 1, 4, 1), [(4, 27, 4, 38)]),  # Buildkite
        ((4, 1, 5, 23), [(5, 7, 5, 18)]),  # GitLab: the folded script from its command on
    ]
    result = CliRunner().invoke(
        cli,
        ["check", "--no-cache", "--fix", "--unsafe-fixes", str(repository)],
        prog_name="detlint",
    )
    assert result.exit_code == 0, result.output
    assert (
        gitlab.read_text() == "test:\n  script:\n    - >-\n      python -m pytest -q\n      tests\n"
    )
    assert buildkite.read_text() == (
        "steps:\n  - label: t\n    command: |-\n      python -m pytest -q tests\n"
    )
