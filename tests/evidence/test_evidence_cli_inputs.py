"""``detlint evidence`` on what a CI step really hands it: a download that failed
(nothing readable: exit 2), reports it cannot read (each said once), ``-q``, and one
pytest session kept in two formats (JUnit XML and a report log), counted once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from detlint.cli.main import cli

PYTEST = (
    *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
    *("-p", "no:flaky", "-p", "no:pytest-retry", "-p", "rerunfailures"),
)
SUITE = """\
import os

import pytest


@pytest.mark.flaky(reruns=1)
def test_kernel():
    first = not os.path.exists(os.environ["ATTEMPTS"])
    open(os.environ["ATTEMPTS"], "w").close()
    assert os.environ["BUILD"] != "1" or not first


def test_steady():
    assert True
"""


def sessions(root: Path, count: int) -> Path:
    """``count`` pytest sessions, each writing a JUnit XML and a report log of itself
    into ``root/reports``; test_kernel fails its first attempt in session 1."""
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "test_suite.py").write_text(SUITE)
    reports = root / "reports"
    reports.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    for build in range(count):
        env["BUILD"], env["ATTEMPTS"] = str(build), str(root / f"attempts-{build}")
        done = subprocess.run(
            [
                *PYTEST,
                f"--junitxml={reports}/build-{build}.xml",
                f"--report-log={reports}/build-{build}.jsonl",
                "test_suite.py",
            ],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-2000:]
    return reports


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sessions(tmp_path_factory.mktemp("sessions"), 2)


def evidence(*args: str) -> tuple[int, str, str]:
    """``detlint evidence ARGS`` as the console script runs it (exit status included)."""
    runner = CliRunner()
    result = runner.invoke(cli, ["evidence", *args], prog_name="detlint", standalone_mode=True)
    return result.exit_code, result.stdout, result.stderr


def test_nothing_readable_exits_2(tmp_path: Path) -> None:
    missing = tmp_path / "artifacts" / "junit.xml"
    status, out, err = evidence(str(missing))
    assert status == 2
    assert out == ""
    assert err == (
        f"detlint evidence: not read: {missing}: cannot read: No such file or directory\n"
        "detlint evidence: error: no readable report among the inputs (1 given)\n"
    )
    (tmp_path / "empty").mkdir()
    (tmp_path / "broken.xml").write_text("<testsuite><testcase name='x'>")
    status, _, err = evidence(str(tmp_path / "empty"), str(tmp_path / "broken.xml"))
    assert status == 2
    assert "no readable report among the inputs (2 given)" in err


def test_each_report_not_read_is_said_once(reports: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing.xml"
    status, out, err = evidence(str(reports / "build-0.xml"), str(missing))
    assert status == 0
    line = f"not read: {missing}: cannot read: No such file or directory"
    assert (out + err).count(line) == 1
    assert out.startswith("detlint evidence: 1 build read, 2 tests")
    # Written to a file, the report keeps it and standard error says it, once each.
    written = tmp_path / "evidence.txt"
    status, out, err = evidence(str(reports / "build-0.xml"), str(missing), "-o", str(written))
    assert (status, out, err.count(line)) == (0, "", 1)
    assert written.read_text().count(line) == 1


def test_quiet_prints_the_tests_worth_a_look_and_nothing_else(
    reports: Path, tmp_path: Path
) -> None:
    missing = str(tmp_path / "missing.xml")
    _, loud, _ = evidence(str(reports / "build-0.xml"), str(reports / "build-1.xml"), missing)
    status, out, err = evidence(
        "-q", str(reports / "build-0.xml"), str(reports / "build-1.xml"), missing
    )
    assert (status, err) == (0, "")
    assert loud.startswith("detlint evidence: 2 builds read, 2 tests")
    assert "not read" in loud
    assert out.startswith("test_suite::test_kernel\n  1 of 2 builds needed a rerun to pass")
    assert "detlint evidence" not in out
    assert "not read" not in out
    assert "more test never failed" not in out
    assert out.strip() in loud


def test_one_session_in_two_formats_is_one_build(reports: Path) -> None:
    status, out, _ = evidence(str(reports / "build-1.xml"), str(reports / "build-1.jsonl"))
    assert status == 0
    assert out.startswith("detlint evidence: 1 build read, 2 tests")
    assert (
        f"not read: {reports / 'build-1.jsonl'}: the same pytest session as "
        f"{reports / 'build-1.xml'} (JUnit XML and report log of one run); counted once"
    ) in out
    # Two sessions in both formats are two builds: the directory, file by file.
    status, out, _ = evidence(str(reports))
    assert out.startswith("detlint evidence: 2 builds read, 2 tests")
    assert out.count("the same pytest session as") == 2
    # ... and the failure of session 1 is counted once: 1 of 3 attempts over 2 builds.
    status, out, _ = evidence("--output-format", "json", str(reports))
    (kernel,) = [t for t in json.loads(out)["tests"] if t["test"].endswith("test_kernel")]
    assert (kernel["builds"], kernel["attempts"], kernel["first_failures"]) == (2, 3, 1)


def test_a_document_keeps_the_reports_not_read_and_standard_error_says_them_once(
    reports: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "missing.xml"
    status, out, err = evidence(
        "--output-format", "json", str(reports / "build-0.xml"), str(missing)
    )
    assert status == 0
    line = f"{missing}: cannot read: No such file or directory"
    assert json.loads(out)["problems"] == [line]
    assert err == f"detlint evidence: not read: {line}\n"
