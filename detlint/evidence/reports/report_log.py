"""pytest's ``--report-log`` files (the pytest-reportlog plugin), read line by line.

Each line is one JSON object; the ``"$report_type": "TestReport"`` ones carry a
``nodeid``, a ``when`` (setup, call, teardown) and an ``outcome``. An attempt
ends with its teardown report, as in pytest's own JUnit writer. What the
plugins write:

- pytest-rerunfailures gives every failed attempt it reruns the outcome
  ``"rerun"`` (on the call, or on the setup or teardown that erred) and logs
  each attempt's setup, call and teardown.
- flaky withholds the setup and call reports of the attempts it reruns but
  logs every teardown, so an attempt is a teardown with, at most, its setup
  before it. A run that passed but still owed passes (``min_passes`` > 1)
  looks the same as a failed one and is counted as failed.
- An XFAIL is a skipped report with a ``wasxfail`` key: a failed attempt the
  marker kept green. A strict XPASS is a failed call whose ``longrepr`` starts
  "[XPASS(strict)]": the build fails, but the test's checks passed.
- pytest-retry reruns inside one call: it logs the first failed call once with
  the outcome ``"retried"`` (its ``retry_outcome`` setting), then only the
  final call. The retries in between are not in the file, so such a test
  counts two attempts however many it took.

Every attempt before a test's last counts as failed (the plugins rerun a test
only after it failed), and so does any attempt with a report whose outcome is
neither passed nor skipped.

A line that is not a JSON object makes the whole file a ``ReportProblem``
naming the line: counts from a file cut short or garbled would be read as
fact, so the file is set aside and the run goes on with the others.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from detlint.evidence.reports.records import (
    XPASS_STRICT,
    Build,
    ReportProblem,
    TestAttempts,
    final_outcome,
)


@dataclass
class _Attempt:
    reports: int = 0
    saw_call: bool = False
    failed: bool = False
    skipped: bool = False
    xfailed: bool = False  # a skipped report with ``wasxfail``: the checks failed, as expected
    xpass_strict: bool = False  # failed only because a strict xfail test passed


@dataclass
class _Test:
    """The reports of one node id so far: how many attempts came before the latest one."""

    earlier: int = 0
    latest: _Attempt = field(default_factory=_Attempt)
    open: bool = True

    def add(self, when: str, outcome: str, entry: dict[str, Any]) -> None:
        latest = self.latest
        if (
            not self.open
            or (when == "call" and latest.saw_call)
            or (when == "setup" and latest.reports)
        ):
            self.earlier += 1
            latest = self.latest = _Attempt()
            self.open = True
        latest.reports += 1
        latest.saw_call |= when == "call"
        if outcome == "skipped":
            latest.xfailed |= "wasxfail" in entry
            latest.skipped |= "wasxfail" not in entry
        elif outcome != "passed":
            latest.failed = True
            repr_ = entry.get("longrepr")
            latest.xpass_strict |= isinstance(repr_, str) and repr_.startswith(XPASS_STRICT)
        if when == "teardown":
            self.open = False

    def record(self, nodeid: str) -> TestAttempts:
        latest = self.latest
        return TestAttempts(
            test=nodeid,
            classname="",
            name=_name(nodeid),
            file=None,
            attempts=self.earlier + 1,
            failed_attempts=self.earlier
            + ((latest.failed and not latest.xpass_strict) or latest.xfailed),
            outcome=final_outcome(latest.failed, latest.skipped, latest.xfailed),
        )


def read_report_log(path: Path, source: str) -> Build | ReportProblem:
    """One build from a report-log file, or the problem that keeps it from being one."""
    tests: dict[str, _Test] = {}
    starts: list[float] = []
    stops: list[float] = []
    typed = False
    try:
        with path.open("rb") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    entry = _entry(line)
                except RecursionError:
                    return ReportProblem(source, f"line {number} is JSON nested too deeply to read")
                if entry is None:
                    return ReportProblem(
                        source, f"not JSON lines: line {number} is not a JSON object"
                    )
                kind = entry.get("$report_type")
                typed |= kind is not None
                if kind != "TestReport":
                    continue
                fields = _fields(entry)
                if fields is None:
                    return ReportProblem(
                        source, f"line {number}: a TestReport without nodeid, when or outcome"
                    )
                nodeid, when, outcome = fields
                tests.setdefault(nodeid, _Test()).add(when, outcome, entry)
                start, stop = entry.get("start"), entry.get("stop")
                if isinstance(start, (int, float)) and not isinstance(start, bool):
                    starts.append(float(start))
                if isinstance(stop, (int, float)) and not isinstance(stop, bool):
                    stops.append(float(stop))
    except OSError as error:
        return ReportProblem(source, f"cannot read: {error.strerror or error}")
    if not typed:
        return ReportProblem(source, 'JSON lines but not a pytest report log (no "$report_type")')
    if not tests:
        return ReportProblem(source, "a pytest report log with no TestReport entries")
    return Build(
        source=source,
        time=_time(min(starts)) if starts else None,
        tests=tuple(test.record(nodeid) for nodeid, test in tests.items()),
        format="report-log",
        end=_time(max(stops)) if stops else None,
    )


def _entry(line: bytes) -> dict[str, Any] | None:
    """The line's JSON object; None when it is not one. ``json`` recurses once per level
    of nesting, so a line nested past the interpreter's stack raises RecursionError."""
    try:
        entry = json.loads(line)
    except ValueError:  # not JSON, or not UTF-8
        return None
    return entry if isinstance(entry, dict) else None


def _fields(entry: dict[str, Any]) -> tuple[str, str, str] | None:
    nodeid, when, outcome = entry.get("nodeid"), entry.get("when"), entry.get("outcome")
    if isinstance(nodeid, str) and isinstance(when, str) and isinstance(outcome, str):
        return nodeid, when, outcome
    return None


def _name(nodeid: str) -> str:
    """The last part of a node id; a parameter id may hold "::" itself."""
    head, bracket, params = nodeid.partition("[")
    return head.rsplit("::", 1)[-1] + bracket + params


def _time(start: float) -> datetime | None:
    try:
        return datetime.fromtimestamp(start, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
