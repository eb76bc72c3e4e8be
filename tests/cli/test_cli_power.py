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
from detlint.base.percentages import percent
from detlint.cli.main import cli
from detlint.model import Policy, Reruns

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
    ("observed", "rate", "interval"),
    [
        ("0/60", "0%", "[0%, 6.0%]"),
        ("40/40", "100%", "[91.2%, 100%]"),
        ("30/30", "100%", "[88.6%, 100%]"),
        ("3/40", "7.5%", "[2.6%, 19.9%]"),
    ],
)
def test_observed_rates_and_wilson_interval(observed, rate, interval):
    result = invoke(*NEEDLE, "--observed", observed)
    assert result.exit_code == 0
    # Percentages, as the table above it writes them: not 0.06 next to 26.7%.
    assert f"Observed {observed}: rate {rate}, 95% Wilson interval {interval}\n" in result.output
    document = json.loads(invoke(*NEEDLE, "--observed", observed, "--output-format", "json").output)
    estimate = document["observed"]
    assert f"rate {percent(estimate['rate'])}," in result.output
    assert f"[{percent(estimate['low'])}, {percent(estimate['high'])}]" in result.output
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
    "knobs",
    [[], ["--reruns", "0"], ["--retries", "0"], ["--job-retries", "0"]],
)
def test_without_a_knob_there_is_no_knob_to_replace(knobs):
    result = invoke("power", "--trials", "5", *knobs)
    assert result.exit_code == 0, result.output
    assert "knob:" not in result.output
    assert "keeping the knob" not in result.output
    assert "without the knob" not in result.output
    # What is left is the recommendation itself and where today's count stands.
    assert result.output.endswith(
        "Trials needed: 29 trials per attempt report a 10% violation 95% of the time\n"
        "  (5 trials now: 41.0%)\n\n"
        "Green runs in a row that rule out a 10% violation at 95% confidence: 6\n"
    )


def test_without_a_knob_the_recommendation_counts_repeat_copies():
    # pytest-repeat raises detection and is kept "without the knob": 3 copies of
    # one trial report a 50% violation 87.5% of the time, so one trial is enough.
    result = invoke("power", "--repeat", "3", "--reference-rate", "0.5", "--target", "0.6")
    assert result.exit_code == 0, result.output
    assert "Trials instead of the knob" not in result.output
    assert "Trials needed: 1 trial per attempt reports a 50% violation 60% of the time\n" in (
        result.output
    )
    assert "  (1 trial now: 87.5%)\n" in result.output


@pytest.mark.parametrize(
    ("knob", "keeping"),
    [
        (["--reruns", "3"], "keeping the knob, 95% takes 42 trials"),
        (["--job-retries", "1"], "keeping the knob, 95% takes 35 trials"),
        (["--soft-fail"], "keeping the knob, no trial count reaches 95%"),
    ],
)
def test_a_knob_gets_the_trials_that_would_replace_it(knob, keeping):
    result = invoke("power", "--trials", "5", *knob)
    assert result.exit_code == 0, result.output
    assert (
        "Trials instead of the knob: 29 trials per attempt report a 10% violation 95% of the time"
        in result.output
    )
    assert "(5 trials now: 41.0% without the knob, " in result.output
    assert f"; {keeping})" in result.output
    assert "Trials needed:" not in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["--rates", "1.5"],
        ["--rates", "-0.1"],
        ["--rates", "abc"],
        ["--rates", ","],
        ["--reference-rate", "2"],
        ["--target", "120%"],
        ["--target", "0"],
        ["--target", "1"],
        ["--reference-rate", "0"],
        ["--rates", "0.1,0"],
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


@pytest.mark.parametrize(
    ("option", "value", "named", "interval"),
    [
        ("--target", "0", "0", "(0, 1)"),
        ("--target", "1", "1", "(0, 1)"),
        ("--target", "100%", "100%", "(0, 1)"),
        ("--target", "1e-400", "1e-400", "(0, 1)"),  # a float that underflows to 0
        ("--reference-rate", "0", "0", "(0, 1)"),
        ("--reference-rate", "0%", "0%", "(0, 1)"),
        ("--reference-rate", "1", "1", "(0, 1)"),
        ("--reference-rate", "nan", "nan", "(0, 1)"),
        ("--rates", "0", "0", "(0, 1]"),
        ("--rates", "0.05,0%,0.5", "0%", "(0, 1]"),
        ("--rates", "1.01", "1.01", "(0, 1]"),
    ],
)
def test_probability_out_of_range_names_option_and_range(option, value, named, interval):
    result = invoke(*NEEDLE, option, value)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"detlint power: error: Invalid value for '{option}': "
        f"{named} is not a probability in {interval}\n"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--rates", "1"],  # a systematic bug: every knob costs nothing there
        ["--rates", "5%,100%"],
        ["--target", "0.999"],
        ["--reference-rate", "0.001"],
        ["--observed", "0/60"],  # counts, not a chosen probability: K/N may be 0 or 1
        ["--observed", "60/60"],
    ],
)
def test_probabilities_inside_their_range_are_accepted(args):
    result = invoke(*NEEDLE, *args)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


def test_a_systematic_bug_row_costs_the_knob_nothing():
    result = invoke(*NEEDLE, "--rates", "1")
    assert [tuple(row) for row in table_rows(result.output)] == [("100%", "100%", "100%", "100%")]


def test_power_is_not_configured_by_a_settings_file(tmp_path, monkeypatch):
    # `target` and `reference-rate` in [tool.detlint] are for check and audit;
    # the calculator takes its numbers from its options only, so a config file in
    # the working directory, even one holding `target = 1`, neither changes nor
    # breaks it.
    (tmp_path / "detlint.toml").write_text("target = 1\nreference-rate = 0.5\n")
    monkeypatch.chdir(tmp_path)
    result = invoke(*NEEDLE, "--output-format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert (document["target"], document["reference_rate"]) == (0.95, 0.1)
    assert document["trials_needed_without"] == 29
    # The option, not the file, is what is checked against (0, 1).
    rejected = invoke(*NEEDLE, "--target", "1")
    assert rejected.exit_code == 2
    assert "'--target': 1 is not a probability in (0, 1)" in rejected.stderr


def every_command_path() -> list[list[str]]:
    from detlint.cli.main import COMMANDS

    return [[], *([name] for name in sorted(COMMANDS))]


@pytest.mark.parametrize("path", every_command_path(), ids=lambda path: " ".join(path) or "detlint")
def test_help_text_shows_no_doubled_percent(path):
    # click prints help strings as written; "%%" would be a printf escape shown raw.
    result = invoke(*path, "--help")
    assert result.exit_code == 0, result.output
    assert "Usage: detlint" in result.output
    assert "%%" not in result.output


def test_power_help_states_each_range():
    text = " ".join(invoke("power", "--help").output.split())
    assert "Wilson 95% interval" in text
    assert "fractions or percentages, each in (0, 1]" in text
    assert "computed for (q_ref), in (0, 1)" in text
    assert "must reach, in (0, 1)" in text


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
    import detlint.model.power

    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(detlint.model.power, "analyse", explode)
    monkeypatch.delenv("DETLINT_DEBUG", raising=False)
    result = invoke(*NEEDLE)
    assert result.exit_code == 2
    assert result.stderr.startswith("detlint: internal error: RuntimeError: boom")
    assert result.stderr.count("\n") == 1


def test_without_a_knob_observed_and_green_runs_give_one_figure_each() -> None:
    plain = CliRunner().invoke(
        cli, ["power", "--trials", "5", "--observed", "3/40", "--green-runs", "40"]
    )
    assert plain.exit_code == 0, plain.output
    observed = plain.stdout.split("Observed 3/40")[1]
    assert "with the knob" not in observed
    assert "without" not in observed
    assert "  reported: 32.3% at that rate, 12.3% to 67.0% over the interval" in plain.stdout
    assert plain.stdout.rstrip().endswith("confidence:\n  above 1.5%")
    knob = CliRunner().invoke(
        cli, ["power", "--trials", "5", "--reruns", "2", "--observed", "3/40", "--green-runs", "40"]
    )
    assert "  reported with the knob: " in knob.stdout
    assert "  with the knob: above 10.2%\n  without:       above 1.5%" in knob.stdout


def test_green_runs_that_rule_out_the_reference_rate():
    """The inverse of --green-runs: 6 green runs in a row rule out a 10% violation of a
    5-trial test (0.59^6 < 5% <= 0.59^5); under reruns=3, 106 (2.8% reported per run)."""
    document = json.loads(invoke(*NEEDLE, "--output-format", "json").output)
    assert document["runs_to_rule_out"] == 106
    assert document["runs_to_rule_out_without"] == 6
    text = invoke(*NEEDLE).output
    assert "Green runs in a row that rule out a 10% violation at 95% confidence:" in text
    assert "  with the knob: 106\n  without:       6\n" in text
    soft = invoke(*NEEDLE, "--soft-fail").output
    assert "  with the knob: never (it lets no failure block)\n" in soft
    plain = invoke("power", "--reference-rate", "0.05").output
    assert plain.endswith("rule out a 5% violation at 95% confidence: 59\n")


@pytest.mark.parametrize(("trials", "reruns", "rate"), [(1, 0, 0.1), (5, 3, 0.1), (3, 1, 0.02)])
def test_runs_to_rule_out_is_the_inverse_of_the_green_run_bound(trials, reruns, rate):
    """After N runs the bound is at or below the rate; after N - 1 it is still above."""
    policy = Policy(trials, (Reruns(reruns),) if reruns else ())
    runs = policy.green_runs_needed(rate)
    assert runs is not None
    assert policy.green_run_bound(runs) <= rate + 1e-12
    if runs > 1:
        assert policy.green_run_bound(runs - 1) > rate
