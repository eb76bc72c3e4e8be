"""``detlint check`` and ``detlint audit`` from the user's side: output formats,
exit codes, rule selection, configuration and the installed console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from detlint.cli.main import cli

REPOS = Path(__file__).parents[1] / "fixtures" / "repos"
NEEDLE = Path(__file__).parents[2] / "examples" / "needle"
AUDIT_SCHEMA = Path(__file__).parents[2] / "docs" / "json-schema" / "audit-1.json"


@pytest.fixture
def needle(tmp_path, monkeypatch):
    """A copy of the shipped example's Python side (its pipeline has tests of its own)."""
    target = tmp_path / "needle"
    shutil.copytree(NEEDLE, target, ignore=shutil.ignore_patterns(".buildkite"))
    monkeypatch.chdir(target)
    return target


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), prog_name="detlint")


def test_concise_output_and_exit_status(needle):
    result = invoke("check")
    assert result.exit_code == 1
    first, help_line, summary, fixes = result.output.splitlines()
    # The concise form: the knob and its numbers; the details are in `full`.
    assert first == (
        "tests/test_batch_invariance.py:25:2: DET101 rerun marker: a 10% violation is "
        "reported 2.8% instead of 41.0%"
    )
    full = invoke("check", "--output-format", "full").output.splitlines()[0]
    assert full.startswith("tests/test_batch_invariance.py:25:2: DET101 rerun marker hides")
    assert "reported 2.8% of the time instead of 41.0%" in full
    assert "5 trials from NEEDLE_TRIALS" in full
    assert help_line.startswith("  help: drop the marker and raise NEEDLE_TRIALS to 29")
    assert summary == "Found 1 finding in 2 files."  # the test file and pytest.ini
    # Every fix detlint has changes what CI does: none is applied without --unsafe-fixes.
    assert fixes == (
        "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)."
    )


def test_json_fields(needle):
    result = invoke("check", "--output-format", "json")
    document = json.loads(result.output)
    assert document["schema"] == "detlint.check/1"
    (finding,) = document["findings"]
    for key in ("code", "path", "line", "column", "end_line", "end_column", "severity"):
        assert key in finding
    assert finding["path"] == "tests/test_batch_invariance.py"
    assert type(finding["numbers"]["reported"]) is float
    assert finding["numbers"]["instances"] == 2


def test_clean_tree_exits_zero(needle):
    marked = needle / "tests" / "test_batch_invariance.py"
    marked.write_text(marked.read_text().replace("@pytest.mark.flaky(reruns=3)\n", ""))
    result = invoke("check")
    assert result.exit_code == 0
    assert result.output == "All checks passed (2 files).\n"


def test_select_and_ignore(needle):
    assert invoke("check", "--ignore", "DET101").exit_code == 0
    assert invoke("check", "--select", "DET2").exit_code == 0
    assert invoke("check", "--select", "DET101").exit_code == 1
    assert invoke("check", "--select", "ALL").exit_code == 1


def test_unknown_code_is_a_usage_error(needle):
    result = invoke("check", "--select", "DET999")
    assert result.exit_code == 2
    assert result.stderr == "detlint check: error: --select has an unknown rule code 'DET999'\n"


def test_config_in_pyproject(needle):
    (needle / "pyproject.toml").write_text(
        '[tool.detlint]\nreference-rate = 0.2\ntarget = 0.99\nignore = ["DET2"]\n'
    )
    document = json.loads(invoke("check", "--output-format", "json").output)
    (finding,) = document["findings"]
    assert "a 20% violation is reported 20.4% of the time instead of 67.2%" in finding["message"]
    assert finding["numbers"]["trials_needed"] == 21  # 1 - 0.8**21 >= 0.99


@pytest.mark.parametrize(
    ("table", "error"),
    [
        ("colour = 1", "unknown key 'colour' in [tool.detlint]"),
        ("target = 2", "target must be a probability in (0, 1), got 2"),
        ("target = 1", "target must be a probability in (0, 1), got 1"),
        ("reference-rate = 0", "reference-rate must be a probability in (0, 1), got 0"),
        ('select = "DET1"', "select must be a list of strings"),
        (
            'tracking-issue-pattern = "("',
            "tracking-issue-pattern is not a valid regular expression",
        ),
    ],
)
def test_bad_config_names_the_key(needle, table, error):
    (needle / "pyproject.toml").write_text(f"[tool.detlint]\n{table}\n")
    result = invoke("check")
    assert result.exit_code == 2
    assert error in result.stderr
    assert result.stderr.count("\n") == 1


def test_tracking_pattern_is_configurable(tmp_path, monkeypatch):
    shutil.copytree(REPOS / "quarantine", tmp_path / "q")
    monkeypatch.chdir(tmp_path / "q")
    before = json.loads(invoke("check", "--select", "DET201", "--output-format", "json").output)
    (tmp_path / "q" / "pyproject.toml").write_text(
        '[tool.detlint]\ntracking-issue-pattern = "A100"\n'
    )
    after = json.loads(invoke("check", "--select", "DET201", "--output-format", "json").output)
    lines_before = {f["line"] for f in before["findings"]}
    lines_after = {f["line"] for f in after["findings"]}
    assert 7 in lines_before - lines_after  # "flaky on the A100 nodes" now counts as tracked
    assert (
        17 in lines_after - lines_before
    )  # the pattern replaces the default, so #4821 no longer does


def test_nonexistent_path_is_reported_not_fatal(needle):
    result = invoke("check", "missing.py", "tests")
    assert result.exit_code == 1
    assert "missing.py:1:1: DET901 path does not exist" in result.output
    assert "DET101" in result.output


def test_nothing_is_written(needle):
    before = {p: p.read_bytes() for p in needle.rglob("*") if p.is_file()}
    invoke("check")
    invoke("audit")
    after = {p: p.read_bytes() for p in needle.rglob("*") if p.is_file()}
    assert before == after


def test_audit_inventory(needle):
    result = invoke("audit")
    assert result.exit_code == 0
    document = json.loads(result.output)
    assert document["schema"] == "detlint.audit/1"
    skip, knob = document["knobs"]
    assert (knob["kind"], knob["path"], knob["line"], knob["end_line"]) == (
        "flaky",
        "tests/test_batch_invariance.py",
        25,
        25,
    )
    assert knob["arguments"]["keywords"] == {"reruns": 3}
    assert knob["tests"] == [
        "tests/test_batch_invariance.py::test_generation_is_deterministic_across_batch_sizes"
    ]
    assert (skip["kind"], skip["line"]) == ("skipif", 24)
    (test,) = document["tests"]
    assert test["trials"] == {
        "count": 5,
        "env": "NEEDLE_TRIALS",
        "origin": "NEEDLE_TRIALS (default 5)",
        "line": 16,
        "fails_at": None,
    }
    (environment,) = test["environments"]
    assert environment["condition"] == '`sys.platform == "darwin"`'
    assert (environment["effect"], environment["gate"]["kind"]) == ("skipped", "skip")
    assert (environment["reported"], environment["visible"]) == (0.0, 0.0)
    assert test["plugin"]["name"] == "pytest-rerunfailures"
    assert test["layers"][0]["kind"] == "reruns"
    numbers = test["numbers"]
    assert numbers["reported"] == pytest.approx((1 - 0.9**5) ** 4)
    assert numbers["q50"] == pytest.approx(0.3076, abs=1e-4)
    assert numbers["q50_without"] == pytest.approx(0.1294, abs=1e-4)
    assert numbers["trials_needed"] == 29
    jsonschema.validate(document, json.loads(AUDIT_SCHEMA.read_text(encoding="utf-8")))


def test_audit_lists_quiet_knobs_too():
    import os

    previous = os.getcwd()
    os.chdir(REPOS / "quarantine")
    try:
        document = json.loads(invoke("audit").output)
    finally:
        os.chdir(previous)
    kinds = {(knob["line"], knob["kind"]) for knob in document["knobs"]}
    assert (17, "xfail") in kinds  # tracked: no finding, still in the inventory
    assert (27, "xfail") in kinds  # strict: no finding, still in the inventory
    ranked = [test["numbers"]["loss"] for test in document["tests"]]
    assert ranked == sorted(ranked, reverse=True)


def test_installed_console_script_on_the_example(needle):
    script = Path(sys.executable).with_name("detlint")
    result = subprocess.run([str(script), "check"], capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert "DET101" in result.stdout
    assert result.stderr == ""


def test_a_check_run_loads_only_the_check_command(tmp_path):
    """The commands are loaded lazily: a pre-commit run does not define `power`'s options."""
    (tmp_path / "test_plain.py").write_text("def test_sum():\n    assert 1 + 1 == 2\n")
    script = (
        "import sys\n"
        "from detlint.cli.main import COMMANDS, main\n"
        "sys.argv = ['detlint', 'check', 'test_plain.py']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as done:\n"
        "    print(done.code, sorted(n for n, m in COMMANDS.items() if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines()[-1] == "0 ['check']"


def test_help_lists_every_command_and_an_unknown_one_is_a_usage_error():
    listed = invoke("--help").output
    for name in ("audit", "check", "power", "rule"):
        assert f"\n  {name} " in listed
    result = invoke("nope")
    assert result.exit_code == 2
    assert "No such command 'nope'" in result.output


def test_every_option_of_check_reaches_the_run_as_one_read_only_value():
    from detlint.cli.check import check
    from detlint.cli.check_arguments import CheckArguments

    names = {parameter.name for parameter in check.params}
    assert names == set(CheckArguments.__slots__)
    arguments = CheckArguments(**dict.fromkeys(names))
    with pytest.raises(AttributeError):
        arguments.quiet = True  # type: ignore[misc]
    with pytest.raises(TypeError, match="missing: verbose"):
        CheckArguments(**dict.fromkeys(names - {"verbose"}))
