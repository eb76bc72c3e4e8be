"""``detlint check``'s reporting options from the user's side: the exit status is the
same in every output format, ``--output-file``, ``--statistics``, ``--fail-on``,
``--exit-zero`` and the baseline round trip through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from repo_expectations import repository_copy

from detlint.cli.check import check
from detlint.cli.main import cli
from detlint.report.formats import FORMATS

NEEDLE = Path(__file__).parents[2] / "examples" / "needle"


@pytest.fixture
def needle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shipped example with its pipeline: DET101, DET411 and DET501, all warnings."""
    target = repository_copy(NEEDLE, tmp_path / "needle")
    monkeypatch.chdir(target)
    return target


@pytest.fixture
def clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "clean"
    target.mkdir()
    (target / "test_sum.py").write_text("def test_sum():\n    assert 1 + 1 == 2\n")
    monkeypatch.chdir(target)
    return target


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), prog_name="detlint")


def test_the_command_line_offers_every_format_there_is() -> None:
    (option,) = (p for p in check.params if p.name == "output_format")
    assert isinstance(option.type, click.Choice)
    assert tuple(option.type.choices) == FORMATS


@pytest.mark.parametrize("output_format", FORMATS)
def test_exit_status_does_not_depend_on_the_format(needle: Path, output_format: str) -> None:
    assert invoke("check", "--output-format", output_format).exit_code == 1
    assert invoke("check", "--output-format", output_format, "--exit-zero").exit_code == 0
    assert invoke("check", "--output-format", output_format, "--fail-on", "error").exit_code == 0
    assert invoke("check", "--output-format", output_format, "--fail-on", "warning").exit_code == 1


@pytest.mark.parametrize("output_format", FORMATS)
def test_a_clean_tree_exits_0_in_every_format(clean: Path, output_format: str) -> None:
    result = invoke("check", "--output-format", output_format)
    assert result.exit_code == 0, result.output


def test_fail_on_from_the_config(needle: Path) -> None:
    pyproject = needle / "pyproject.toml"
    pyproject.write_text('[tool.detlint]\nfail-on = "error"\n')
    assert invoke("check").exit_code == 0
    # The command line wins over the config.
    assert invoke("check", "--fail-on", "info").exit_code == 1


@pytest.mark.parametrize("option", ["--output-file", "-o"])
def test_output_file_holds_what_stdout_would(needle: Path, option: str) -> None:
    printed = invoke("check", "--output-format", "sarif").output
    result = invoke("check", "--output-format", "sarif", option, "out.sarif")
    assert result.exit_code == 1
    assert result.output == ""
    assert (needle / "out.sarif").read_text(encoding="utf-8") == printed
    assert json.loads(printed)["version"] == "2.1.0"


def test_audit_writes_its_inventory_with_o(needle: Path) -> None:
    printed = invoke("audit").output
    assert invoke("audit", "-o", "inventory.json").output == ""
    assert (needle / "inventory.json").read_text(encoding="utf-8") == printed


def test_output_file_in_a_missing_directory_is_a_usage_error(needle: Path) -> None:
    result = invoke("check", "--output-file", "missing/out.txt")
    assert result.exit_code == 2
    assert "missing/out.txt" in result.output


def test_statistics_count_per_code(needle: Path) -> None:
    result = invoke("check", "--statistics")
    assert result.exit_code == 1
    rows = [line.split() for line in result.output.splitlines() if "DET" in line]
    assert sorted((row[1], int(row[0])) for row in rows) == [
        ("DET101", 1),
        ("DET411", 1),
        ("DET501", 1),
    ]


def test_baseline_round_trip(needle: Path) -> None:
    written = invoke("check", "--write-baseline", "baseline.json")
    assert written.exit_code == 0
    assert "Wrote 3 findings to baseline.json" in written.output
    assert invoke("check", "--baseline", "baseline.json").exit_code == 0

    test_file = needle / "tests" / "test_batch_invariance.py"
    text = test_file.read_text()
    test_file.write_text("# an unrelated line above everything\n" + text)
    assert invoke("check", "--baseline", "baseline.json").exit_code == 0

    test_file.write_text(text.replace("reruns=3", "reruns=4"))
    result = invoke("check", "--baseline", "baseline.json", "--output-format", "json")
    assert result.exit_code == 1
    document = json.loads(result.output)
    assert [f["code"] for f in document["findings"]] == ["DET101"]
    assert (document["baselined"], document["baseline_gone"]) == (2, 1)


def test_baseline_problems_are_usage_errors(needle: Path) -> None:
    (needle / "broken.json").write_text("{")
    result = invoke("check", "--baseline", "broken.json")
    assert result.exit_code == 2
    assert "broken.json" in result.output
    both = invoke("check", "--baseline", "broken.json", "--write-baseline", "b.json")
    assert both.exit_code == 2
    assert not (needle / "b.json").exists()


def test_suppressed_findings_are_counted_not_shown(needle: Path) -> None:
    test_file = needle / "tests" / "test_batch_invariance.py"
    text = test_file.read_text()
    marker = "@pytest.mark.flaky(reruns=3)"
    test_file.write_text(text.replace(marker, f"{marker}  # detlint: ignore[DET101] see #12"))
    result = invoke("check", "--select", "DET101", "--output-format", "json")
    assert result.exit_code == 0
    document = json.loads(result.output)
    assert (document["findings"], document["suppressed"]) == ([], 1)
    # A comment for another code hides nothing, and DET902 says so when selected.
    test_file.write_text(text.replace(marker, f"{marker}  # detlint: ignore[DET103]"))
    result = invoke("check", "--select", "DET101,DET103,DET902", "--output-format", "json")
    codes = sorted(f["code"] for f in json.loads(result.output)["findings"])
    assert codes == ["DET101", "DET902"]
