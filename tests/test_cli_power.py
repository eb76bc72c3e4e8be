"""``detlint power`` end to end: through click's runner and as the installed
console script, text and JSON, good input and bad."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from detlint import __version__
from detlint.cli import cli
from detlint.model import Policy, Reruns
from detlint.report.numbers import percent

NEEDLE = ["power", "--trials", "5", "--reruns", "3"]
SEED_ROWS = [
    ("5%", "22.6%", "0.26%", "22.6%"),
    ("10%", "41.0%", "2.8%", "41.0%"),
    ("20%", "67.2%", "20.4%", "67.2%"),
    ("50%", "96.9%", "88.1%", "96.9%"),
    ("90%", "100%", "100%", "100%"),
]


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), prog_name="detlint")


def table_rows(text: str) -> list[list[str]]:
    """The cells of the loss table's data rows (lines that start with a rate)."""
    return [line.split() for line in text.splitlines() if line.strip()[:1].isdigit()]


def test_needle_table_digit_for_digit():
    result = invoke(*NEEDLE)
    assert result.exit_code == 0, result.output
    assert [tuple(row) for row in table_rows(result.output)] == SEED_ROWS
    assert "30.8% with the knob, 12.9% without" in result.output
    assert "29 trials per attempt report a 10% violation 95% of the time" in result.output
    assert "keeping the knob, 95% takes 42 trials" in result.output


def test_json_agrees_with_text_and_model():
    text = invoke(*NEEDLE).output
    result = invoke(*NEEDLE, "--output-format", "json")
    assert result.exit_code == 0
    document = json.loads(result.output)
    assert document["schema"] == "detlint.power/1"
    policy = Policy(5, (Reruns(3),))
    for row, cells in zip(document["rates"], table_rows(text), strict=True):
        for key in ("rate", "one_attempt", "reported", "visible", "reported_without"):
            assert type(row[key]) is float
        assert row["reported"] == policy.reported(row["rate"])
        assert row["reported_without"] == policy.baseline().reported(row["rate"])
        assert cells[1:] == [
            percent(row["one_attempt"]),
            percent(row["reported"]),
            percent(row["reported_without"]),
        ]
    assert document["q50"] == policy.q50()
    assert document["q50_without"] == policy.baseline().q50()
    assert percent(document["q50"]) == "30.8%"
    assert document["trials_needed_without"] == 29
    assert document["reference_rate"] == 0.1
    assert document["target"] == 0.95
    assert document["policy"]["layers"] == [
        {
            "kind": "reruns",
            "count": 3,
            "plugin": "pytest-rerunfailures",
            "masks": True,
            "description": "reruns=3 (pytest-rerunfailures, 4 attempts)",
        }
    ]
    assert document["observed"] is None
    assert document["green_runs"] is None


@pytest.mark.parametrize(
    ("observed", "interval"),
    [("0/60", "[0.00, 0.06]"), ("40/40", "[0.91, 1.00]"), ("30/30", "[0.89, 1.00]")],
)
def test_observed_rates_and_wilson_interval(observed, interval):
    result = invoke(*NEEDLE, "--observed", observed)
    assert result.exit_code == 0
    assert f"Observed {observed}: " in result.output
    assert f"95% Wilson interval {interval}" in result.output
    document = json.loads(invoke(*NEEDLE, "--observed", observed, "--output-format", "json").output)
    low, high = (float(x) for x in interval.strip("[]").split(", "))
    assert round(document["observed"]["low"], 2) == low
    assert round(document["observed"]["high"], 2) == high
    policy = Policy(5, (Reruns(3),))
    assert document["observed"]["reported"]["at_high"] == policy.reported(
        document["observed"]["high"]
    )


def test_green_runs_bound_with_and_without():
    result = invoke(*NEEDLE, "--green-runs", "100", "--output-format", "json")
    green = json.loads(result.output)["green_runs"]
    policy = Policy(5, (Reruns(3),))
    assert green == {
        "runs": 100,
        "confidence": 0.95,
        "bound": policy.green_run_bound(100),
        "bound_without": policy.baseline().green_run_bound(100),
    }
    text = invoke(*NEEDLE, "--green-runs", "100").output
    assert f"with the knob: above {percent(green['bound'])}" in text
    assert f"without:       above {percent(green['bound_without'])}" in text
    assert green["bound"] > 10 * green["bound_without"]


def test_soft_fail_never_blocks_but_stays_visible():
    result = invoke(*NEEDLE, "--soft-fail", "--job-retries", "2", "--output-format", "json")
    document = json.loads(result.output)
    assert all(row["reported"] == 0.0 for row in document["rates"])
    assert all(row["visible"] > 0.0 for row in document["rates"])
    assert document["q50"] is None
    assert document["policy"]["gate"] == {"kind": "soft fail", "blocks": False, "visible": True}
    text = invoke(*NEEDLE, "--soft-fail").output
    assert "visible with the knob" in text
    assert "never (soft fail never blocks) with the knob" in text


def test_flaky_package_and_custom_rates():
    result = invoke(
        "power", "--trials", "2", "--max-runs", "3", "--min-passes", "2",
        "--rates", "1%,0.3", "--output-format", "json",
    )  # fmt: skip
    document = json.loads(result.output)
    assert [row["rate"] for row in document["rates"]] == [0.01, 0.3]
    assert document["policy"]["layers"][0]["kind"] == "flaky"
    assert document["policy"]["layers"][0]["max_runs"] == 3


def test_no_knob_says_so():
    result = invoke("power", "--trials", "5")
    assert "No knob here lowers detection" in result.output
    assert [row[2] for row in table_rows(result.output)] == [
        row[3] for row in table_rows(result.output)
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["--rates", "1.5"],
        ["--rates", "-0.1"],
        ["--rates", "abc"],
        ["--rates", ","],
        ["--reference-rate", "2"],
        ["--target", "120%"],
        ["--max-runs", "2", "--min-passes", "3"],
        ["--min-passes", "3"],
        ["--reruns", "-1"],
        ["--trials", "0"],
        ["--observed", "5/3"],
        ["--observed", "0/0"],
        ["--observed", "a/b"],
        ["--observed", "-1/3"],
        ["--green-runs", "0"],
        ["--reruns", "2", "--max-runs", "3"],
        ["--output-format", "yaml"],
        ["--bogus"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(args):
    result = invoke("power", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("detlint power: error: ")
    assert "Traceback" not in result.stderr


def test_version_and_help():
    assert invoke("--version").output == f"detlint, version {__version__}\n"
    assert "--reruns" in invoke("power", "--help").output
    bare = invoke()
    assert bare.exit_code == 2
    assert "power" in bare.stderr


def console_script() -> Path:
    script = Path(sys.executable).with_name("detlint")
    assert script.exists(), "detlint must be installed (pip install '.[test]') to run this test"
    return script


def test_installed_console_script_prints_the_table():
    result = subprocess.run(
        [str(console_script()), *NEEDLE], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert [tuple(row) for row in table_rows(result.stdout)] == SEED_ROWS


def test_installed_console_script_bad_input():
    result = subprocess.run(
        [str(console_script()), "power", "--observed", "5/3"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "5 violations cannot come from 3 trials" in result.stderr


def test_python_dash_m():
    result = subprocess.run(
        [sys.executable, "-m", "detlint", "--version"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert result.stdout.strip() == f"detlint, version {__version__}"


def test_internal_error_is_one_line_without_traceback(monkeypatch):
    import detlint.power

    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(detlint.power, "analyse", explode)
    monkeypatch.delenv("DETLINT_DEBUG", raising=False)
    result = invoke(*NEEDLE)
    assert result.exit_code == 2
    assert result.stderr.startswith("detlint: internal error: RuntimeError: boom")
    assert result.stderr.count("\n") == 1
