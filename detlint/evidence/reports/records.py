"""What a report says about one build, and what went wrong reading one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

OUTCOMES = ("passed", "failed", "skipped")


@dataclass(frozen=True)
class TestAttempts:
    """One test in one build: how many attempts the report records and how they ended.

    A rerun plugin turns failed attempts into a pass; these counts are what it
    hid. They are what the report records, which is a lower bound when a plugin
    leaves reruns out of it (see ``junit`` and ``report_log`` for each plugin).
    """

    __test__ = False  # a record, not a pytest test class

    # The pytest node id when the report gives it (report-log: ``nodeid``); for
    # JUnit ``"<classname>::<name>"`` with the dotted classname as written, which
    # ``nodeid_candidates`` turns into the node ids it can stand for.
    test: str
    # The JUnit classname as written ("" for report-log).
    classname: str
    # The JUnit name, or the last part of the node id.
    name: str
    # The JUnit ``file`` attribute when present (xunit1), else None.
    file: str | None
    # At least 1: the final attempt plus every earlier attempt recorded.
    attempts: int
    # Attempts that failed or errored, the final one included when it failed.
    failed_attempts: int
    # The final outcome: "passed", "failed" (errors count as failed) or "skipped".
    outcome: str


@dataclass(frozen=True)
class Build:
    """One CI build as its report files tell it: when it ran and what each test did."""

    # The file, or the directory for a build per directory, as given.
    source: str
    # From the report when it says (JUnit: the earliest testsuite ``timestamp``;
    # report-log: the earliest ``start`` of a TestReport); timezone-aware, in UTC,
    # when the report gives a zone, naive when it does not.
    time: datetime | None
    # One entry per test, in the order the report first names them.
    tests: tuple[TestAttempts, ...]
    # "junit" or "report-log".
    format: str


@dataclass(frozen=True)
class ReportProblem:
    """A report that could not be used, so that the run can say so and go on."""

    source: str
    # One line, e.g. "not XML: no element found: line 12, column 0".
    message: str


def final_outcome(failed: bool, skipped: bool) -> str:
    """The outcome of one attempt: a failure or error outweighs a skip."""
    if failed:
        return "failed"
    return "skipped" if skipped else "passed"


def earliest(times: list[datetime]) -> datetime | None:
    """The earliest time; zoned times win over naive ones, which cannot be compared with them."""
    zoned = [stamp for stamp in times if stamp.tzinfo is not None]
    pool = zoned or times
    return min(pool) if pool else None
