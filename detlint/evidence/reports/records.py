"""What a report says about one build, and what went wrong reading one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

OUTCOMES = ("passed", "failed", "skipped", "xfailed")
# pytest's mark for an XFAIL in JUnit (``<skipped type="pytest.xfail">``) and the start of
# the failure it writes for a strict XPASS, in JUnit and in the report log alike.
XFAIL_TYPE = "pytest.xfail"
XPASS_STRICT = "[XPASS(strict)]"


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
    # The final outcome: "passed", "failed" (errors count as failed), "skipped", or
    # "xfailed": the last attempt failed and an xfail marker kept the build green (an
    # XFAIL is a failed attempt, counted in ``failed_attempts``). A strict XPASS is
    # "failed" without counting as a failed attempt: the test's checks passed.
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
    # When the run ended, from the report when it says (JUnit: a testsuite's timestamp
    # plus its time; report-log: the latest ``stop``): with ``time`` it tells the same
    # session written in both formats (``same_run``).
    end: datetime | None = None


@dataclass(frozen=True)
class ReportProblem:
    """A report that could not be used, so that the run can say so and go on."""

    source: str
    # One line, e.g. "not XML: no element found: line 12, column 0".
    message: str


def final_outcome(failed: bool, skipped: bool, xfailed: bool = False) -> str:
    """The outcome of one attempt: a failure or error outweighs a skip; an XFAIL is a
    failure the marker expected, not a skip."""
    if failed:
        return "failed"
    if xfailed:
        return "xfailed"
    return "skipped" if skipped else "passed"


def earliest(times: list[datetime]) -> datetime | None:
    """The earliest time; zoned times win over naive ones, which cannot be compared with them."""
    zoned = [stamp for stamp in times if stamp.tzinfo is not None]
    pool = zoned or times
    return min(pool) if pool else None


def latest(times: list[datetime]) -> datetime | None:
    """The latest time; zoned times win over naive ones, as in :func:`earliest`."""
    zoned = [stamp for stamp in times if stamp.tzinfo is not None]
    pool = zoned or times
    return max(pool) if pool else None
