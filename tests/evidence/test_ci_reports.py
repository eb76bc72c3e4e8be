"""The CI report readers against reports that real pytest runs wrote.

A small suite whose failures follow a fixed schedule (attempt n of a test fails
when n is in its set; every attempt is logged to a file) runs once per rerun
plugin, writing both ``--junitxml`` and ``--report-log``. The counts the readers
give are checked exactly, and against the attempts the suite logged itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import tracemalloc
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest

from detlint.evidence.reports import (
    Build,
    ReportProblem,
    TestAttempts,
    nodeid_candidates,
    read_junit,
    read_report_log,
    read_reports,
)

SUITE = """
import os
from pathlib import Path

import pytest
from flaky import flaky

LOG = Path(os.environ["ATTEMPT_LOG"])
FAILING = {{"test_once": {{1}}, "test_y[1]": {{1, 2}}, "setup_error": {{1}}}}


def attempt(name):
    with LOG.open("a") as log:
        log.write(name + "\\n")
    return LOG.read_text().split().count(name)


def fails(name):
    return attempt(name) in FAILING.get(name, ())


@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown")


@pytest.fixture
def setup_once():
    if fails("setup_error"):
        raise RuntimeError("setup")


{decorator}
def test_pass():
    attempt("test_pass")


{decorator}
def test_once():
    assert not fails("test_once")


{decorator}
def test_always():
    attempt("test_always")
    assert False


{decorator}
def test_skip():
    pytest.skip("not here")


{decorator}
def test_teardown_error(broken_teardown):
    attempt("test_teardown_error")


{decorator}
def test_fail_and_teardown_error(broken_teardown):
    attempt("test_fail_and_teardown_error")
    assert False


{decorator}
def test_setup_error(setup_once):
    pass


{decorator}
class TestC:
    @pytest.mark.parametrize("p", [1, 2])
    def test_y(self, p):
        assert not fails(f"test_y[{{p}}]")
"""

PLUGINS = ("rerunfailures", "flaky", "pytest-retry")
RUNS = {
    "plain": (None, "", ()),
    "rerunfailures": ("rerunfailures", "", ("--reruns", "3")),
    "flaky": ("flaky", "@flaky(max_runs=3)", ()),
    "pytest-retry": ("pytest-retry", "", ("--retries", "2")),
}
P, F, S = "passed", "failed", "skipped"
# attempts/failed attempts/outcome, the same in both reports but for pytest-retry:
# - rerunfailures --reruns 3 reruns any failure or error, setup and teardown
#   included: up to 4 attempts;
# - flaky max_runs=3 reruns failed setups and calls, not teardown errors;
# - pytest-retry retries inside the call and reports only the last one: nothing
#   shows in JUnit, and the report log has one "retried" report however many
#   retries there were.
TABLE = """
test                          plain  rerunfailures flaky  retry-junit  retry-report-log
test_pass                     1/0/P  1/0/P         1/0/P  1/0/P        1/0/P
test_once                     1/1/F  2/1/P         2/1/P  1/0/P        2/1/P
test_always                   1/1/F  4/4/F         3/3/F  1/1/F        2/2/F
test_skip                     1/0/S  1/0/S         1/0/S  1/0/S        1/0/S
test_teardown_error           1/1/F  4/4/F         1/1/F  1/1/F        1/1/F
test_fail_and_teardown_error  1/1/F  4/4/F         3/3/F  1/1/F        1/1/F
test_setup_error              1/1/F  2/1/P         2/1/P  1/1/F        1/1/F
TestC::test_y[1]              1/1/F  3/2/P         3/2/P  1/0/P        2/1/P
TestC::test_y[2]              1/0/P  1/0/P         1/0/P  1/0/P        1/0/P
"""
_HEADER, *_ROWS = (line.split() for line in TABLE.strip().splitlines())
TESTS = tuple(row[0] for row in _ROWS)
_OUTCOMES = {"P": P, "F": F, "S": S}


def expected_counts(plugin: str, report: str) -> list[tuple[int, int, str]]:
    column = f"retry-{report}" if plugin == "pytest-retry" else plugin
    cells = [row[_HEADER.index(column)].split("/") for row in _ROWS]
    return [(int(a), int(f), _OUTCOMES[o]) for a, f, o in cells]


def run_suite(directory: Path, plugin: str) -> None:
    """Run the suite under one plugin (the others disabled), writing both reports."""
    enabled, decorator, args = RUNS[plugin]
    (directory / "pytest.ini").write_text("[pytest]\n")
    (directory / "suite").mkdir()
    (directory / "suite" / "test_sched.py").write_text(SUITE.format(decorator=decorator))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["ATTEMPT_LOG"] = str(directory / "attempts.log")
    disabled = [arg for name in PLUGINS if name != enabled for arg in ("-p", f"no:{name}")]
    reports = ["--junitxml=junit.xml"]
    if has_reportlog():
        reports.append("--report-log=report.jsonl")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *disabled]
    result = subprocess.run(
        [*command, *args, *reports, "suite"],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]


def has_reportlog() -> bool:
    try:
        import pytest_reportlog  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directories = {}
    for plugin in RUNS:
        directory = tmp_path_factory.mktemp(plugin)
        run_suite(directory, plugin)
        directories[plugin] = directory
    return directories


def node_of(short: str, report: str) -> str:
    if report == "report-log":
        return f"suite/test_sched.py::{short}"
    *classes, name = short.split("::")
    return "::".join([".".join(["suite", "test_sched", *classes]), name])


def counts(build: Build | ReportProblem) -> dict[str, tuple[int, int, str]]:
    assert isinstance(build, Build), build
    return {t.test: (t.attempts, t.failed_attempts, t.outcome) for t in build.tests}


@pytest.mark.parametrize("report", ["junit", "report-log"])
@pytest.mark.parametrize("plugin", list(RUNS))
def test_counts_from_real_runs(runs, plugin, report):
    if report == "report-log" and not has_reportlog():
        pytest.skip("pytest-reportlog is not installed")
    directory = runs[plugin]
    if report == "junit":
        build = read_junit(directory / "junit.xml", "junit.xml")
    else:
        build = read_report_log(directory / "report.jsonl", "report.jsonl")
    ids = [node_of(test, report) for test in TESTS]
    assert counts(build) == dict(zip(ids, expected_counts(plugin, report), strict=True))
    assert isinstance(build, Build)
    assert build.format == report
    assert build.time is not None
    assert build.time.tzinfo is not None
    assert abs((datetime.now(timezone.utc) - build.time).total_seconds()) < 3600

    # The attempts the suite logged itself: exact, but for pytest-retry's hidden ones.
    logged = Counter((directory / "attempts.log").read_text().split())
    logged["test_setup_error"] = logged.pop("setup_error")
    for short, (attempts, _, _) in zip(TESTS, expected_counts(plugin, report), strict=True):
        truth = logged[short.split("::")[-1]] or 1  # a skipped test logs nothing
        if plugin == "pytest-retry":
            assert attempts <= truth
        else:
            assert attempts == truth, short


def test_junit_fields_and_candidates(runs):
    build = read_junit(runs["rerunfailures"] / "junit.xml", "junit.xml")
    assert isinstance(build, Build)
    case = next(t for t in build.tests if t.name == "test_y[1]")
    assert case == TestAttempts(
        test="suite.test_sched.TestC::test_y[1]",
        classname="suite.test_sched.TestC",
        name="test_y[1]",
        file=None,
        attempts=3,
        failed_attempts=2,
        outcome="passed",
    )
    ids = {node_of(t, "report-log") for t in TESTS}
    for test in build.tests:
        assert len(ids.intersection(nodeid_candidates(test.classname, test.name))) == 1


def test_nodeid_candidates():
    assert nodeid_candidates("tests.test_x.TestC", "test_y[1]") == [
        "tests/test_x/TestC.py::test_y[1]",
        "tests/test_x.py::TestC::test_y[1]",
        "tests.py::test_x::TestC::test_y[1]",
    ]
    assert nodeid_candidates("test_x", "test_y") == ["test_x.py::test_y"]
    assert nodeid_candidates("", "test_y") == []


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def problem(result: Build | ReportProblem) -> str:
    assert isinstance(result, ReportProblem), result
    assert "\n" not in result.message
    return result.message


def test_truncated_xml(runs, tmp_path):
    text = (runs["rerunfailures"] / "junit.xml").read_text()
    cut = write(tmp_path / "cut.xml", text[: len(text) // 2])
    message = problem(read_junit(cut, "cut.xml"))
    assert message.startswith("broken XML: ")
    assert "line" in message


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("", "not XML: no element found"),
        ("hello, world\n", "not XML: syntax error"),
        ("<html><body><p>Not found</p></body></html>", "XML but not JUnit (root element <html>)"),
        ("<testsuites/>", "a JUnit file from another runner (no <testcase> elements)"),
        ('<testsuite name="x" tests="0"></testsuite>', "a JUnit file from another runner"),
    ],
)
def test_junit_problems(tmp_path, text, start):
    assert problem(read_junit(write(tmp_path / "r.xml", text), "r.xml")).startswith(start)


def test_surefire_children(tmp_path):
    path = write(
        tmp_path / "surefire.xml",
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuite xmlns="urn:x" name="a.BTest" tests="4" timestamp="2024-05-01T10:00:00Z">
          <properties><property name="java.version" value="21"/></properties>
          <testcase classname="a.BTest" name="flakyOnce" file="a/BTest.java">
            <flakyFailure message="boom" type="java.lang.AssertionError">trace</flakyFailure>
          </testcase>
          <testcase classname="a.BTest" name="flakyTwice">
            <flakyFailure message="boom"/><flakyError message="npe"/>
            <system-out>out</system-out>
          </testcase>
          <testcase classname="a.BTest" name="failedAfterReruns">
            <failure message="boom"/><rerunFailure message="boom"/><rerunError message="x"/>
          </testcase>
          <testcase classname="a.BTest" name="skipped"><skipped/></testcase>
          <testcase name="noClass"/>
        </testsuite>
        """,
    )
    build = read_junit(path, "surefire.xml")
    assert counts(build) == {
        "a.BTest::flakyOnce": (2, 1, P),
        "a.BTest::flakyTwice": (3, 2, P),
        "a.BTest::failedAfterReruns": (3, 3, F),
        "a.BTest::skipped": (1, 0, S),
        "noClass": (1, 0, P),
    }
    assert isinstance(build, Build)
    assert build.tests[0].file == "a/BTest.java"
    assert build.time == datetime(2024, 5, 1, 10, tzinfo=timezone.utc)


def test_naive_timestamp_stays_naive(tmp_path):
    path = write(
        tmp_path / "r.xml",
        '<testsuite timestamp="2024-05-01T10:00:00"><testcase classname="m" name="t"/></testsuite>',
    )
    build = read_junit(path, "r.xml")
    assert isinstance(build, Build)
    assert build.time == datetime(2024, 5, 1, 10)


def report_line(nodeid: str, when: str, outcome: str, start: float = 1.7e9) -> str:
    return (
        f'{{"$report_type": "TestReport", "nodeid": "{nodeid}", "when": "{when}", '
        f'"outcome": "{outcome}", "start": {start}}}\n'
    )


def test_report_log_problems(tmp_path):
    lines = [report_line("t.py::a", "setup", "passed"), report_line("t.py::a", "call", "passed")]
    broken = write(tmp_path / "broken.jsonl", "".join(lines) + '{"$report_type": "TestRep')
    assert problem(read_report_log(broken, "b")) == ("not JSON lines: line 3 is not a JSON object")
    other = write(tmp_path / "other.json", '{"name": "a package.json"}\n')
    assert problem(read_report_log(other, "o")).startswith("JSON lines but not a pytest report")
    empty = write(tmp_path / "empty.jsonl", '{"$report_type": "SessionStart"}\n')
    assert problem(read_report_log(empty, "e")).endswith("no TestReport entries")
    assert problem(read_report_log(tmp_path / "missing.jsonl", "m")).startswith("cannot read")


def junit(classname: str, *cases: str, stamp: str = "2024-05-01T10:00:00+00:00") -> str:
    body = "".join(f'<testcase classname="{classname}" name="{case}"/>' for case in cases)
    return (
        f'<testsuites name="pytest tests"><testsuite name="pytest" timestamp="{stamp}">'
        f"{body}</testsuite></testsuites>\n"
    )


def test_read_reports_sniffs_walks_and_drops_copies(tmp_path):
    reports = tmp_path / "reports"
    first = write(reports / "b" / "junit.log", junit("m", "t1"))
    write(reports / "a.json", report_line("t.py::x", "call", "passed"))
    write(reports / "notes.txt", "ignored: not a report suffix")
    write(reports / "z.xml", "neither")
    shutil.copy(first, reports / "c.xml")
    builds, problems = read_reports([reports, tmp_path / "missing.xml"])
    assert [(b.source, b.format) for b in builds] == [
        (str(reports / "a.json"), "report-log"),
        (str(reports / "b" / "junit.log"), "junit"),
    ]
    assert [(p.source, p.message) for p in problems] == [
        (str(reports / "c.xml"), f"duplicates {first}"),
        (str(reports / "z.xml"), "neither JUnit XML nor a pytest report log (starts with 'n')"),
        (str(tmp_path / "missing.xml"), "cannot read: No such file or directory"),
    ]


def test_read_reports_empty_inputs(tmp_path):
    write(tmp_path / "none" / "readme.md", "no reports")
    blank = write(tmp_path / "blank.xml", "  \n")
    builds, problems = read_reports([tmp_path / "none", blank])
    assert builds == []
    assert [p.message for p in problems] == [
        "no report files (*.xml, *.json, *.jsonl, *.log) below it",
        "empty file",
    ]


def test_unreadable_file(tmp_path):
    """A report a directory lists that cannot be opened (a dangling link: unreadable
    whoever runs the test) is named, and the others are read."""
    good = write(tmp_path / "reports" / "a.xml", junit("m", "t"))
    (tmp_path / "reports" / "b.xml").symlink_to(tmp_path / "gone.xml")
    builds, problems = read_reports([tmp_path / "reports"])
    assert [build.source for build in builds] == [str(good)]
    assert [p.message for p in problems] == ["cannot read: No such file or directory"]


def test_build_per_dir(tmp_path):
    one = tmp_path / "build-1"
    # A job retried in CI: the second file has the test pass.
    write(one / "job-1.xml", junit("m", "t", "u", stamp="2024-05-01T10:05:00+00:00"))
    write(one / "job-1" / "shard.xml", junit("m", "t", "t", stamp="2024-05-01T10:00:00+00:00"))
    write(
        one / "job-2.xml",
        '<testsuite><testcase classname="m" name="t"><failure/></testcase>'
        '<testcase classname="m" name="v"><skipped/></testcase></testsuite>',
    )
    two = tmp_path / "build-2"
    shutil.copytree(one, two)
    mixed = tmp_path / "build-3"
    write(mixed / "junit.xml", junit("t", "x"))
    write(mixed / "report.jsonl", report_line("t.py::x", "call", "failed"))
    builds, problems = read_reports([one, two, mixed], build_per_dir=True)
    assert [b.source for b in builds] == [str(one), str(mixed)]
    assert counts(builds[0]) == {"m::t": (4, 2, P), "m::u": (1, 0, P), "m::v": (1, 0, S)}
    assert builds[0].time == datetime(2024, 5, 1, 10, tzinfo=timezone.utc)
    assert counts(builds[1]) == {"t.py::x": (1, 1, F)}
    assert [p.message.split(" ")[0] for p in problems] == ["duplicates"] * 3 + ["not"]
    assert problems[-1].source == str(mixed / "junit.xml")


def test_large_junit_file_is_streamed(tmp_path):
    path = tmp_path / "large.xml"
    trace = "x" * 5000
    with path.open("w") as out:
        out.write('<?xml version="1.0"?><testsuites><testsuite name="pytest">\n')
        for attempt in range(4):
            for case in range(1000):
                fail = f"<failure message='m'>{trace}</failure>" if attempt < 3 else ""
                out.write(
                    f'<testcase classname="t.m" name="t{case}">{fail}'
                    f"<system-out>{trace}</system-out></testcase>\n"
                )
        out.write("</testsuite></testsuites>\n")
    assert path.stat().st_size > 20_000_000
    tracemalloc.start()
    try:
        build = read_junit(path, "large.xml")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000
    assert isinstance(build, Build)
    assert len(build.tests) == 1000
    assert {(t.attempts, t.failed_attempts, t.outcome) for t in build.tests} == {(4, 3, P)}


def test_repeated_testcases_of_another_runner_are_not_reruns(tmp_path):
    """EnricoMi/publish-unit-test-result-action's mocha/latex-utensils.xml: mocha names
    two cases of a suite alike; only pytest's files repeat a testcase for a rerun."""
    path = write(
        tmp_path / "mocha.xml",
        '<testsuite name="Mocha Tests" tests="3">'
        '<testcase classname="latexParser parse" name="parse \\url" time="0"/>'
        '<testcase classname="latexParser parse" name="parse \\url" time="0"/>'
        '<testcase classname="latexParser parse" name="parse \\url" time="0">'
        "<failure>boom</failure></testcase></testsuite>",
    )
    build = read_junit(path, "mocha.xml")
    assert isinstance(build, Build)
    assert counts(build) == {"latexParser parse::parse \\url": (3, 1, F)}
    pytest_file = write(tmp_path / "pytest.xml", junit("m", "t", "t"))
    assert counts(read_junit(pytest_file, "pytest.xml")) == {"m::t": (2, 1, P)}
