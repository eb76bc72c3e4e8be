"""``detlint evidence``, ``check --evidence`` and ``audit --evidence`` on reports that
real pytest runs wrote: twelve builds of a small suite under pytest-rerunfailures,
whose test fails its first attempt in the builds a seeded schedule names.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from scipy.stats import binomtest

from detlint.base.percentages import percent
from detlint.cli.main import cli

PYTEST = (
    *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
    *("-p", "no:flaky", "-p", "no:pytest-retry", "-p", "rerunfailures"),
)
BUILDS = 12
FLAKY_BUILDS = (2, 5, 9)  # the builds where test_kernel fails its first attempt
# The suite of examples/evidence: its test fails its first attempt in the builds
# FLAKY_BUILDS names.
TEST_MODULE = (
    Path(__file__).parents[2] / "examples" / "evidence" / "tests" / "test_kernel.py"
).read_text(encoding="utf-8")


def run_builds(root: Path, formats: tuple[str, ...] = ("junitxml",)) -> Path:
    """The suite run BUILDS times, one report per build in ``root/reports``."""
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "requirements-test.txt").write_text("pytest-rerunfailures==16.7\n")
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "test_kernel.py").write_text(TEST_MODULE)
    reports = root / "reports"
    reports.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["FLAKY_BUILDS"] = ",".join(map(str, FLAKY_BUILDS))
    for build in range(BUILDS):
        env["BUILD"] = str(build)
        env["ATTEMPTS"] = str(root / f"attempts-{build}")
        outputs = []
        if "junitxml" in formats:
            outputs.append(f"--junitxml={reports}/build-{build:02d}.xml")
        if "report-log" in formats:
            outputs.append(f"--report-log={reports}/build-{build:02d}.jsonl")
        done = subprocess.run(
            [*PYTEST, *outputs, "tests"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout[-2000:]
    return reports


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("evidence")
    run_builds(root)
    return root


def detlint(root: Path, *args: str) -> tuple[int, str, str]:
    previous = Path.cwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(cli, list(args), prog_name="detlint")
    finally:
        os.chdir(previous)
    return result.exit_code, result.stdout, result.stderr


def wilson(k: int, n: int) -> tuple[float, float]:
    interval = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(interval.low), float(interval.high)


def test_the_counts_and_interval_from_real_junit_reports(builds):
    status, out, _ = detlint(builds, "evidence", "reports", "--output-format", "json")
    assert status == 0
    document = json.loads(out)
    assert document["builds"] == BUILDS
    kernel = next(t for t in document["tests"] if t["test"].endswith("test_kernel"))
    flaky = len(FLAKY_BUILDS)
    assert (kernel["builds"], kernel["attempts"]) == (BUILDS, BUILDS + flaky)
    assert (kernel["first_failures"], kernel["flaky_passes"], kernel["hard_failures"]) == (
        flaky,
        flaky,
        0,
    )
    low, high = wilson(flaky, BUILDS)
    assert kernel["rate"]["rate"] == flaky / BUILDS
    assert (kernel["rate"]["low"], kernel["rate"]["high"]) == (
        pytest.approx(low, rel=1e-12),
        pytest.approx(high, rel=1e-12),
    )
    assert kernel["reported"] is None  # no --repo: the policy is not known
    steady = next(t for t in document["tests"] if t["test"].endswith("test_steady"))
    assert (steady["builds"], steady["first_failures"]) == (BUILDS, 0)


def test_with_the_repository_it_says_what_the_knob_hid_and_what_green_builds_prove(builds):
    status, out, _ = detlint(builds, "evidence", "reports", "--repo", ".")
    assert status == 0
    rate = len(FLAKY_BUILDS) / BUILDS
    low, high = wilson(len(FLAKY_BUILDS), BUILDS)
    assert (
        f"3 of 12 builds needed a rerun to pass: per-attempt failure rate {percent(rate)} "
        f"[{percent(low)}, {percent(high)}]" in out
    )
    assert (
        "under reruns=3 (pytest-rerunfailures, 4 attempts): a violation this frequent is "
        f"reported {percent(rate**4)} of the time, {percent(rate)} without" in out
    )
    without = 1 - 0.05 ** (1 / BUILDS)
    assert (
        f"12 builds green under reruns=3 (pytest-rerunfailures, 4 attempts) only show "
        f"q < {percent(without**0.25)}; without the knob the same builds would show "
        f"q < {percent(without)}" in out
    )
    assert "1 more test never failed an attempt and runs under no knob" in out


def test_fail_on_flaky_exits_1_and_a_report_is_no_gate_otherwise(builds):
    assert detlint(builds, "evidence", "reports")[0] == 0
    assert detlint(builds, "evidence", "reports", "--fail-on-flaky")[0] == 1


def test_bad_reports_are_named_and_the_run_goes_on(builds, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "truncated.xml").write_text('<?xml version="1.0"?><testsuites><testsuite name="x">')
    (bad / "notes.xml").write_text("this is not XML\n")
    status, out, err = detlint(builds, "evidence", "reports", str(bad), "--output-format", "json")
    assert status == 0
    assert json.loads(out)["builds"] == BUILDS
    assert "truncated.xml" in err
    assert "notes.xml" in err


def test_check_and_audit_quote_the_measured_rate(builds):
    status, out, _ = detlint(builds, "check", "--evidence", "reports", "--no-cache")
    assert status == 1
    rate, (low, high) = len(FLAKY_BUILDS) / BUILDS, wilson(len(FLAKY_BUILDS), BUILDS)
    assert (
        f"measured in CI: 3 of 12 builds needed a rerun to pass: per-attempt failure rate "
        f"{percent(rate)} [{percent(low)}, {percent(high)}]" in out
    )
    assert "against the reference rate 10%" in out
    status, page, _ = detlint(
        builds, "audit", "--evidence", "reports", "--no-cache", "--output-format", "html"
    )
    assert status == 0
    assert "measured in CI: 3 of 12 builds needed a rerun to pass" in page
    status, summary, _ = detlint(
        builds, "audit", "--evidence", "reports", "--no-cache", "--output-format", "markdown"
    )
    assert status == 0
    row = next(line for line in summary.splitlines() if line.startswith("| `tests/test_kernel"))
    assert row.endswith(
        "| 3 of 12 builds needed a rerun to pass: per-attempt failure rate "
        f"{percent(rate)} [{percent(low)}, {percent(high)}] (95% Wilson interval, "
        "3 of 12 first attempts); flip rate 54.5% (6 of 11 build pairs), against the reference "
        "rate 10% |"
    )


def test_the_report_log_gives_the_same_counts(tmp_path):
    run_builds(tmp_path, formats=("report-log",))
    status, out, _ = detlint(tmp_path, "evidence", "reports", "--output-format", "json")
    assert status == 0
    kernel = next(t for t in json.loads(out)["tests"] if t["test"].endswith("test_kernel"))
    assert kernel["test"] == "tests/test_kernel.py::test_kernel"
    assert (kernel["builds"], kernel["flaky_passes"], kernel["attempts"]) == (12, 3, 15)


def readme_block(marker: str) -> str:
    text = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    after = text.split(f"<!-- readme:{marker} -->\n", 1)[1]
    return after.split("```", 2)[1].split("\n", 1)[1]


def test_the_readme_example_prints_what_the_readme_shows():
    """examples/evidence/reports were written by real pytest runs (generate.py)."""
    root = Path(__file__).parents[2]
    (command,) = readme_block("evidence").strip().splitlines()
    status, out, _ = detlint(root, *command.split()[1:])
    assert status == 0
    assert out == readme_block("evidence-output")
