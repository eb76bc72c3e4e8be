"""Output people read, from the user's side: the concise line's short message (the
whole message stays in ``full`` and JSON), the Buildkite annotation's ranking by the
chance a knob takes away, and ``detlint audit``'s summary on a terminal (JSON when
piped or asked for).

Every test writes a small repository into ``tmp_path`` and runs the command line on
it; the terminal is a real pseudo-terminal (``pty``) around a ``python -m detlint``
subprocess.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from detlint.cli.main import cli
from detlint.report.concise import concise_message

ROOT = Path(__file__).resolve().parents[2]
TESTS = """\
import pytest


@pytest.mark.flaky(reruns=3)
def test_marked():
    assert compute() == 1


@pytest.mark.skip(reason="flaky on CI")
def test_skipped():
    assert compute() == 1


@pytest.mark.flaky(reruns=1)
def test_many_trials():
    for seed in range(10):
        assert compute(seed) < 2
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "requirements-test.txt").write_text("pytest-rerunfailures==16.7\n")
    (root / "tests" / "test_c.py").write_text(TESTS)
    monkeypatch.chdir(root)
    return root


def run(*args: str) -> str:
    result = CliRunner().invoke(
        cli, ["check", "--no-cache", *args], prog_name="detlint", env={"NO_COLOR": "1"}
    )
    assert result.exit_code == 1, result.output
    return result.output


def test_concise_lines_are_short_and_keep_the_numbers(repo: Path) -> None:
    heads = [line for line in run().splitlines() if ": DET" in line]
    assert heads == [
        "tests/test_c.py:4:2: DET101 rerun marker: a 10% violation is reported 0.010% "
        "instead of 10.0%",
        "tests/test_c.py:9:2: DET202 test skipped as 'flaky': a 10% violation is never "
        "reported (was 10.0%)",
        "tests/test_c.py:14:2: DET101 rerun marker: a 10% violation is reported 42.4% "
        "instead of 65.1%",
    ]
    assert all(len(head) <= 100 for head in heads)


def test_full_and_json_keep_the_whole_message(repo: Path) -> None:
    whole = (
        "rerun marker hides intermittent failures: a 10% violation is reported 0.010% of "
        "the time instead of 10.0% (reruns=3; pytest-rerunfailures==16.7 from "
        "requirements-test.txt:1; 1 attempt, no trial loop recognised)"
    )
    messages = [f["message"] for f in json.loads(run("--output-format", "json"))["findings"]]
    assert messages[0] == whole
    assert messages[1] == (
        "test skipped as 'flaky': it never runs, so a 10% violation is never reported (was "
        "10.0%) and nothing shows it (1 attempt, no trial loop recognised)"
    )
    assert f"tests/test_c.py:4:2: DET101 {whole}" in run("--output-format", "full")


def test_buildkite_annotation_ranks_by_the_chance_lost(repo: Path) -> None:
    text = run("--output-format", "buildkite")
    ranked = re.findall(r"^\d+\. \*\*(DET\d+)\*\* .*?`tests/test_c\.py:(\d+):", text, re.M)
    # Lost: the skip 10.0 points, reruns=3 9.99, reruns=1 over 10 trials 22.7 points
    # (though its ratio, 0.65, is the mildest of the three).
    assert ranked == [("DET101", "14"), ("DET202", "9"), ("DET101", "4")]


@pytest.mark.parametrize(
    ("message", "short"),
    [
        (
            "xfail quarantines a test as 'Flaky' with no tracking issue (reason \"x\"): a 10% "
            "violation shows as XFAIL 10.0% of the time but never fails the build (was reported "
            "10.0%; the loop over `results` (line 59) checks each item; detlint cannot count "
            "them)",
            "xfail quarantines a test as 'Flaky': a 10% violation shows as XFAIL 10.0% but "
            "never fails the build (was reported 10.0%)",
        ),
        (
            "`|| { ...; }` hides the exit status of `mvn verify` in step 'verify': a 10% "
            "violation is reported 0% of the time instead of 10.0% in a single-attempt test "
            "of those `mvn verify` runs (detlint links pytest runs test by test)",
            "masked-exit-status: a 10% violation is reported 0% instead of 10.0%",
        ),
        (
            "t/test_worker.py::test_x is retried inside pytest by reruns=5 (pytest-"
            "rerunfailures, 6 attempts) and again by `jobs.t.steps[4].with.max_attempts` (3 "
            "job runs): up to 18 attempts in total; a 10% violation is reported <0.001% of "
            "the time instead of 41.0% (gates 4 test files under t/integration)",
            "stacked-retries: a 10% violation is reported <0.001% instead of 41.0%",
        ),
        (
            "rerun marker hides intermittent failures: a 10% violation is reported 1.0% of "
            "the time instead of 10.0% (reruns=1; 1 attempt); measured in CI: 3 of 12 builds "
            "needed a rerun to pass (per attempt): 25.0% [8.9%, 53.2%], against the reference "
            "rate 10%",
            "rerun marker: a 10% violation is reported 1.0% instead of 10.0%; measured in CI: "
            "3 of 12 builds needed a rerun to pass (per attempt): 25.0% [8.9%, 53.2%], against "
            "the reference rate 10%",
        ),
        (
            "invalid Python, not analysed: Missing parentheses in call to 'print'. Did you "
            "mean print(...)?",
            "invalid Python, not analysed: Missing parentheses in call to 'print'. Did you "
            "mean print(...)?",
        ),
        (
            "no rerun plugin is declared in this project's dependencies: this marker does "
            "nothing (pytest warns PytestUnknownMarkWarning)",
            "no rerun plugin is declared in this project's dependencies: this marker does nothing",
        ),
    ],
)
def test_concise_message_of_each_shape(message: str, short: str) -> None:
    name = "masked-exit-status" if "mvn" in message else "stacked-retries"
    assert concise_message(message, name) == short


def test_audit_says_what_instead_of_compares_to(repo: Path) -> None:
    result = CliRunner().invoke(cli, ["audit", "--output-format", "markdown", "-q", "--no-cache"])
    assert result.exit_code == 0, result.output
    text = result.output
    assert (
        "a 10% violation is reported 0.010% of the time (median) instead of 10.0% without "
        "those knobs." in text
    )
    assert (
        "With it, the 1 test it reaches reports a 10% violation 42.4% of the time instead of "
        "65.1% without it (on average; their other knobs kept). The 2 rerun-marker knobs let "
        "their 2 tests report it 21.2% of the time instead of 37.6% without each knob alone "
        "(on average)." in text
    )


def _on_a_terminal(args: list[str], cwd: Path) -> str:
    """What ``python -m detlint ARGS`` prints with a pseudo-terminal as its stdout."""
    main, child = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "100"}
    process = subprocess.Popen(
        [sys.executable, "-m", "detlint", *args],
        cwd=cwd,
        stdout=child,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    os.close(child)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=120)
    os.close(main)
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_audit_on_a_terminal_prints_a_summary(repo: Path) -> None:
    text = _on_a_terminal(["audit", "-q", "--no-cache", "."], repo)
    lines = text.splitlines()
    assert lines[0] == "detlint audit: ."
    assert "3 tests run under knobs that hide intermittent failures" in text
    assert "Knobs, by what removing each wins back (3 of 3):" in lines
    assert lines[lines.index("Knobs, by what removing each wins back (3 of 3):") + 1] == (
        "  1. tests/test_c.py:14  rerun-marker: pytest.mark.flaky(reruns=1)"
    )
    tests = lines[lines.index("Tests that lose most (3 of 3):") + 1 :]
    assert tests[:4] == [
        "  - tests/test_c.py::test_many_trials",
        "    reported 42.4%, 65.1% without its knobs (22.7 points lost; rerun-marker)",
        "  - tests/test_c.py::test_skipped",
        "    never reported, 10.0% without its knobs (10.0 points lost; skip)",
    ]
    assert "3 findings (`detlint check` lists them)." in text
    assert not text.lstrip().startswith("{")


def test_audit_prints_json_when_piped_or_asked(repo: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    piped = subprocess.run(
        [sys.executable, "-m", "detlint", "audit", "-q", "--no-cache", "."],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert json.loads(piped.stdout)["schema"] == "detlint.audit/1"
    asked = _on_a_terminal(["audit", "-q", "--no-cache", "--output-format", "json", "."], repo)
    assert json.loads(asked)["schema"] == "detlint.audit/1"
