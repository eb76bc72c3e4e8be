"""What ``detlint check`` prints, from the user's side, where it follows ruff's CLI:
the GitLab Code Quality report, ``--statistics`` in JSON, the JUnit times, colour
(``--color``, ``NO_COLOR``, ``FORCE_COLOR``) and the summary of a run that checked
no file.

Every test runs the command line on a copy of the shipped example (DET101,
DET411 and DET501, all warnings, two of them with an unsafe fix) and reads the
output back the way its consumer would: JSON parsed and validated, XML parsed,
ANSI codes looked for or stripped.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from repo_expectations import repository_copy

from detlint.cli import check as cli_check
from detlint.cli.main import cli
from detlint.report.formats import FORMATS
from detlint.report.sarif import FINGERPRINT_KEY

NEEDLE = Path(__file__).parents[2] / "examples" / "needle"
GITLAB_SCHEMA = Path(__file__).parents[1] / "schemas" / "gitlab-code-quality.json"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# The environment of a plain run: whatever the machine running the tests sets.
PLAIN_ENV = {"NO_COLOR": None, "FORCE_COLOR": None}


@pytest.fixture
def needle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
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


def invoke(*args: str, env: dict[str, str | None] | None = None):
    return CliRunner().invoke(
        cli, list(args), prog_name="detlint", env={**PLAIN_ENV, **(env or {})}
    )


def check_json(*args: str) -> dict:
    return json.loads(invoke("check", "--output-format", "json", *args).output)


# -- gitlab ------------------------------------------------------------------------


def gitlab_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(GITLAB_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def gitlab_report(*args: str) -> list[dict]:
    result = invoke("check", "--output-format", "gitlab", *args)
    assert result.exit_code == 1
    assert not result.output.startswith("\ufeff")  # GitLab's parser rejects a BOM
    return json.loads(result.output)


def test_gitlab_report_validates_and_carries_every_finding(needle: Path) -> None:
    issues = gitlab_report()
    gitlab_validator().validate(issues)
    findings = check_json()["findings"]
    assert len(issues) == len(findings) == 3
    severities = {"info": "info", "warning": "major", "error": "critical"}
    for issue, finding in zip(issues, findings, strict=True):
        assert issue["check_name"] == finding["code"]
        assert issue["description"].startswith(f"{finding['code']} {finding['message']}")
        assert issue["description"].endswith(f"; help: {finding['help']}")
        assert issue["severity"] == severities[finding["severity"]]
        assert issue["location"]["path"] == finding["path"]
        assert issue["location"]["lines"] == {
            "begin": finding["line"],
            "end": finding["end_line"],
        }


def test_gitlab_schema_is_not_vacuous(needle: Path) -> None:
    """A report GitLab would refuse fails the schema: each required field matters."""
    validator = gitlab_validator()
    issue = gitlab_report()[0]
    for field in ("description", "check_name", "fingerprint", "severity", "location"):
        broken = {key: value for key, value in issue.items() if key != field}
        assert not validator.is_valid([broken]), field
    assert not validator.is_valid([{**issue, "severity": "warning"}])
    assert not validator.is_valid([{**issue, "location": {"path": issue["location"]["path"]}}])
    assert not validator.is_valid([{**issue, "location": {"lines": {"begin": 1}}}])
    assert not validator.is_valid(issue)  # an issue, not an array of them
    # GitLab's other spelling of the line is accepted.
    positions = {"path": "a.py", "positions": {"begin": {"line": 3, "column": 1}}}
    assert validator.is_valid([{**issue, "location": positions}])


def test_gitlab_fingerprints_are_unique_and_survive_moved_lines(needle: Path) -> None:
    before = gitlab_report()
    prints = [issue["fingerprint"] for issue in before]
    # DET411 and DET501 sit on the same line of the pipeline: still told apart.
    assert len(set(prints)) == len(prints)
    # The same identity as SARIF's, so a finding is one thing in both reports.
    sarif = json.loads(invoke("check", "--output-format", "sarif").output)
    sarif_prints = [r["partialFingerprints"][FINGERPRINT_KEY] for r in sarif["runs"][0]["results"]]
    assert sarif_prints == prints

    test_file = needle / "tests" / "test_batch_invariance.py"
    test_file.write_text("# a line above everything\n\n" + test_file.read_text())
    after = gitlab_report()
    moved = next(issue for issue in after if issue["check_name"] == "DET101")
    assert moved["location"]["lines"]["begin"] == 27  # it did move ...
    assert [issue["fingerprint"] for issue in after] == prints  # ... and kept its identity


def test_gitlab_fingerprint_changes_with_the_knob(needle: Path) -> None:
    test_file = needle / "tests" / "test_batch_invariance.py"
    before = {issue["check_name"]: issue["fingerprint"] for issue in gitlab_report()}
    test_file.write_text(test_file.read_text().replace("reruns=3", "reruns=4"))
    after = {issue["check_name"]: issue["fingerprint"] for issue in gitlab_report()}
    assert after["DET101"] != before["DET101"]
    assert after["DET411"] == before["DET411"]  # the pipeline's line did not change


def test_gitlab_clean_run_is_an_empty_array(clean: Path) -> None:
    result = invoke("check", "--output-format", "gitlab")
    assert (result.exit_code, result.output) == (0, "[]\n")
    gitlab_validator().validate(json.loads(result.output))


# -- --statistics --output-format json --------------------------------------------


def test_statistics_json_has_ruffs_keys_and_the_counts(needle: Path) -> None:
    result = invoke("check", "--statistics", "--output-format", "json")
    assert result.exit_code == 1
    rows = json.loads(result.output)
    assert all(list(row) == ["code", "name", "count", "fixable"] for row in rows)
    findings = check_json()["findings"]
    counted = {row["code"]: row["count"] for row in rows}
    assert counted == {code: [f["code"] for f in findings].count(code) for code in counted}
    assert sum(counted.values()) == len(findings)
    assert {row["code"]: row["name"] for row in rows} == {f["code"]: f["name"] for f in findings}
    # Every fix of the example is unsafe: without --unsafe-fixes, --fix fixes nothing.
    assert not any(row["fixable"] for row in rows)


def test_statistics_json_fixable_follows_unsafe_fixes(needle: Path) -> None:
    rows = json.loads(
        invoke("check", "--statistics", "--output-format", "json", "--unsafe-fixes").output
    )
    findings = check_json("--unsafe-fixes")["findings"]

    def has_fix(finding: dict) -> bool:
        return finding["fix"] is not None or "fix_unavailable" in finding

    expected = {
        code: all(has_fix(f) for f in findings if f["code"] == code)
        for code in {f["code"] for f in findings}
    }
    assert {row["code"]: row["fixable"] for row in rows} == expected
    assert set(expected.values()) == {True, False}  # both answers were checked


def test_statistics_json_of_a_clean_run_is_an_empty_array(clean: Path) -> None:
    result = invoke("check", "--statistics", "--output-format", "json")
    assert (result.exit_code, result.output) == (0, "[]\n")


@pytest.mark.parametrize("output_format", ["concise", "sarif", "junit"])
def test_statistics_in_other_formats_are_the_text_lines(needle: Path, output_format: str) -> None:
    result = invoke("check", "--statistics", "--output-format", output_format)
    rows = [line.split("\t") for line in result.output.splitlines()]
    assert sorted(code for _, code, _ in rows) == ["DET101", "DET411", "DET501"]


def test_statistics_json_after_fix(needle: Path) -> None:
    """--fix reports what is left through its own path; its statistics follow the format."""
    left = invoke("check", "--fix", "--statistics", "--output-format", "json")
    assert left.exit_code == 1  # every fix is unsafe: nothing was fixed
    assert sorted(row["code"] for row in json.loads(left.output)) == ["DET101", "DET411", "DET501"]
    fixed = invoke("check", "--fix", "--unsafe-fixes", "--statistics", "--output-format", "json")
    assert (fixed.exit_code, fixed.output) == (0, "[]\n")  # DET501 went with the two it stacked


# -- JUnit times -------------------------------------------------------------------


class FakeClock:
    """``time`` for detlint.cli.check: every analysis takes ``step`` seconds."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 100.0
        self.calls = 0

    def perf_counter(self) -> float:
        self.calls += 1
        if self.calls % 2 == 0:  # the reading after an analysis
            self.now += self.step
        return self.now


def junit(*args: str) -> ET.Element:
    return ET.fromstring(invoke("check", "--output-format", "junit", *args).output.encode())


def test_junit_cases_have_time_0_and_the_suite_the_run_time(
    needle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock(1.23456)
    monkeypatch.setattr(cli_check, "time", clock)
    root = junit()
    assert clock.calls == 2  # one analysis, timed once
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == 3
    assert [case.get("time") for case in cases] == ["0"] * 3
    assert suite.get("time") == root.get("time") == "1.235"  # pytest's three decimals


def test_junit_time_of_a_real_run_is_seconds(needle: Path) -> None:
    root = junit()
    assert re.fullmatch(r"\d+\.\d{3}", root.get("time"))
    assert 0 <= float(root.get("time")) < 60


def test_junit_time_after_fix_counts_every_round(
    needle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock(0.5)
    monkeypatch.setattr(cli_check, "time", clock)
    root = junit("--fix", "--unsafe-fixes")
    rounds = clock.calls // 2
    assert rounds >= 2  # the fixing round and the check of the fixed files
    assert root.get("time") == f"{0.5 * rounds:.3f}"
    assert [case.get("time") for case in root.iter("testcase")] == ["0"]  # all fixed


# -- colour ------------------------------------------------------------------------


def coloured_spans(text: str) -> list[str]:
    """The pieces of ``text`` between an ANSI style and the next reset."""
    return re.findall(r"\x1b\[[0-9;]*m((?:\x1b\[[0-9;]*m)*[^\x1b]*)\x1b\[0m", text)


@pytest.mark.parametrize("output_format", ["concise", "full"])
def test_color_always_styles_location_code_and_percentages(
    needle: Path, output_format: str
) -> None:
    plain = invoke("check", "--output-format", output_format, "--color", "never").output
    result = invoke("check", "--output-format", output_format, "--color", "always")
    assert result.exit_code == 1
    spans = [ANSI.sub("", span) for span in coloured_spans(result.output)]
    assert "tests/test_batch_invariance.py:25:2" in spans
    assert ".buildkite/pipeline.yml:7:7" in spans
    assert {"DET101", "DET411", "DET501"} <= set(spans)
    assert {"10%", "2.8%", "41.0%", "0.079%"} <= set(spans)
    # Colour adds styles and nothing else: without them it is the plain output.
    assert ANSI.sub("", result.output) == plain
    assert ANSI.search(plain) is None


def test_color_always_styles_the_statistics_lines(needle: Path) -> None:
    result = invoke("check", "--statistics", "--color", "always")
    spans = [ANSI.sub("", span) for span in coloured_spans(result.output)]
    assert {"DET101", "DET411", "DET501", "1"} <= set(spans)
    assert ANSI.sub("", result.output) == invoke("check", "--statistics").output


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (("--color", "never"), {"FORCE_COLOR": "1"}),
        ((), {}),  # auto: CliRunner's output is no terminal
        (("--color", "auto"), {"NO_COLOR": "1", "FORCE_COLOR": "1"}),
    ],
)
def test_no_color_unless_asked_or_on_a_terminal(needle: Path, args, env) -> None:
    result = invoke("check", *args, env=env)
    assert result.exit_code == 1
    assert "DET101" in result.output
    assert ANSI.search(result.output) is None


def test_force_color_colours_auto_but_not_a_report_file(needle: Path) -> None:
    printed = invoke("check", env={"FORCE_COLOR": "1"}).output
    assert ANSI.search(printed)
    assert invoke("check", "-o", "report.txt", env={"FORCE_COLOR": "1"}).output == ""
    written = (needle / "report.txt").read_text(encoding="utf-8")
    assert "DET101" in written
    assert ANSI.search(written) is None
    assert written == ANSI.sub("", printed)


@pytest.mark.parametrize("output_format", [f for f in FORMATS if f not in ("concise", "full")])
def test_machine_formats_are_never_coloured(needle: Path, output_format: str) -> None:
    def untimed(text: str) -> str:
        return re.sub(r' time="[^"]*"', "", text)  # JUnit's run time differs between runs

    result = invoke(
        "check", "--output-format", output_format, "--color", "always", env={"FORCE_COLOR": "1"}
    )
    assert "DET101" in result.output
    assert "\x1b" not in result.output
    assert untimed(result.output) == untimed(
        invoke("check", "--output-format", output_format).output
    )


def test_color_always_with_fix(needle: Path) -> None:
    """--fix renders what is left through its own path; it is coloured the same way.
    (Every fix of the example is unsafe, so --fix alone leaves all three findings.)"""
    result = invoke("check", "--fix", "--color", "always")
    assert result.exit_code == 1
    spans = [ANSI.sub("", span) for span in coloured_spans(result.output)]
    assert {"DET101", "DET411", "DET501"} <= set(spans)
    assert ANSI.sub("", result.output) == invoke("check", "--fix").output


def test_color_help_names_no_color() -> None:
    assert "NO_COLOR" in invoke("check", "--help").output


def test_color_rejects_an_unknown_choice(needle: Path) -> None:
    result = invoke("check", "--color", "sometimes")
    assert result.exit_code == 2
    assert "sometimes" in result.output


# -- summary of a run that checked nothing -----------------------------------------


def test_a_missing_path_is_a_finding_and_no_file_was_checked(needle: Path) -> None:
    result = invoke("check", "pyproject.toml")  # the example has none
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == "pyproject.toml:1:1: DET901 path does not exist"
    assert lines[-1] == "Found 1 finding; no file was checked."
    assert "0 files" not in result.output


def test_a_directory_with_nothing_to_read_does_not_claim_checks_passed(
    needle: Path,
) -> None:
    (needle / "empty").mkdir()
    result = invoke("check", "empty")
    assert (result.exit_code, result.output) == (0, "No file was checked.\n")
