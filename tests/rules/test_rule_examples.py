"""Every example in the rule catalogue is a test: ``detlint check`` on the example's
files reports the rule at the stated place (invalid) or not at all (valid).

The examples are what ``detlint rule`` and docs/rules.md show users, so a rule
whose behaviour drifts from its documentation fails here. Each example runs with
``--extend-select CODE``: the defaults plus the rule, so an opt-in rule (DET301,
DET902) is judged as a user who turns it on would see it.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from click.testing import CliRunner

from detlint.cli.main import cli
from detlint.rules.catalogue_pages import Example, pages


def _cases():
    for code, page in pages().items():
        counts = {"invalid": 0, "valid": 0}
        for example in page.examples:
            yield pytest.param(code, example, id=f"{code}-{example.kind}-{counts[example.kind]}")
            counts[example.kind] += 1


def check_example(root, code: str, example: Example) -> set[tuple[str, int]]:
    """Where ``detlint check`` reports ``code`` on the example's files, written to ``root``."""
    for file in example.files:
        path = root / file.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(file.content, encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["check", "--output-format", "json", "--extend-select", code], prog_name="detlint"
    )
    assert result.exit_code in (0, 1), result.output + result.stderr
    document = json.loads(result.output)
    return {(f["path"], f["line"]) for f in document["findings"] if f["code"] == code}


@pytest.mark.parametrize(("code", "example"), list(_cases()))
def test_example(code, example, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    reported = check_example(tmp_path, code, example)
    if example.kind == "invalid":
        assert reported == {(example.path, example.line)}, example.description
    else:
        assert reported == set(), example.description


def test_the_runner_sees_a_finding_the_example_does_not_state(tmp_path, monkeypatch):
    # The invalid/valid assertions mean something only if the runner reports what
    # detlint finds: the DET101 example with its marker moved down a line is caught.
    monkeypatch.chdir(tmp_path)
    example = next(e for e in pages()["DET101"].examples if e.kind == "invalid")
    assert example.line is not None
    files = tuple(
        replace(file, content="\n" + file.content) if file.path == example.path else file
        for file in example.files
    )
    moved = replace(example, files=files)
    assert check_example(tmp_path, "DET101", moved) == {(example.path, example.line + 1)}
