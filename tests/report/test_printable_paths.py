"""A file name holding a newline or another character that does not print is shown
escaped in the text outputs (one finding, one line), and kept exact where the format
escapes it itself (JSON strings, GitHub properties, SARIF URIs, XML attributes)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from detlint.base.paths import printable
from detlint.cli.main import cli

MARKED = "import pytest\n\n\n@pytest.mark.flaky(reruns=3)\ndef test_a():\n    assert True\n"


def test_printable_escapes_only_what_does_not_print() -> None:
    assert printable("tests/test_é b.py") == "tests/test_é b.py"
    assert printable("test_a\nb.py") == "test_a\\nb.py"
    assert printable("a\\b\r\t\x1b\x7f.py") == "a\\\\b\\r\\t\\x1b\\x7f.py"
    assert printable("\udcff\u2028.py") == "\\udcff\\u2028.py"


def output(repository, monkeypatch, output_format: str) -> str:
    (repository / "test_a\nb.py").write_text(MARKED)
    monkeypatch.chdir(repository)
    result = CliRunner().invoke(
        cli, ["check", "--output-format", output_format, "."], prog_name="detlint"
    )
    assert result.exit_code == 1, result.output
    return result.stdout


def test_the_text_formats_print_the_newline_escaped(repository, monkeypatch) -> None:
    for output_format in ("concise", "full"):
        lines = output(repository, monkeypatch, output_format).splitlines()
        assert lines[0].startswith("test_a\\nb.py:4:2: DET101 rerun marker"), lines[0]
        assert not any(line == "b.py" or line.startswith("b.py:") for line in lines)
    buildkite = output(repository, monkeypatch, "buildkite")
    assert "1. **DET101** retry-marker at `test_a\\nb.py:4:2`" in buildkite


def test_junit_escapes_the_name_in_text_and_keeps_it_in_the_file_attribute(
    repository, monkeypatch
) -> None:
    junit = output(repository, monkeypatch, "junit")
    assert 'classname="test_a\\nb.py"' in junit
    assert 'file="test_a&#10;b.py"' in junit
    assert '">test_a\\nb.py:4:2: rerun marker hides' in junit
    assert "\nb.py" not in junit


def test_the_machine_formats_carry_the_exact_name(repository, monkeypatch) -> None:
    findings = json.loads(output(repository, monkeypatch, "json"))["findings"]
    assert [f["path"] for f in findings] == ["test_a\nb.py"]
    gitlab = json.loads(output(repository, monkeypatch, "gitlab"))
    assert [f["location"]["path"] for f in gitlab] == ["test_a\nb.py"]
    assert "file=test_a%0Ab.py," in output(repository, monkeypatch, "github")
    sarif = json.loads(output(repository, monkeypatch, "sarif"))
    locations = sarif["runs"][0]["results"][0]["locations"]
    assert locations[0]["physicalLocation"]["artifactLocation"]["uri"] == "test_a%0Ab.py"
