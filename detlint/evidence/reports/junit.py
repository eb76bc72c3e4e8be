"""JUnit XML reports, read as a stream.

A CI keeps one JUnit file per build, often tens of megabytes: it is fed to
expat a chunk at a time and each ``<testcase>`` is counted as it streams past,
with no element tree built, so memory follows the number of distinct tests,
never the size of the file. A file with a ``<!DOCTYPE>`` is refused unread.

What the pytest plugins write (pytest's ``--junitxml``, junit_family xunit2):

- pytest writes one ``<testcase classname="tests.test_x.TestC" name="test_y[1]">``
  per attempt that ends with a teardown report, with a ``<failure>``,
  ``<error>`` (a setup or teardown error) or ``<skipped>`` child. A failed call
  followed by a teardown error is written as two testcases, the second holding
  only ``<error message="failed on teardown with ...">``: that is one attempt.
- pytest-rerunfailures (16.6.1 and later) writes one more ``<testcase>`` per
  rerun with the same classname and name; the reruns carry no ``<failure>``
  (an empty element, or a ``<skipped>`` one when a skipped test erred in
  teardown), only the final attempt carries its outcome.
- flaky writes one ``<testcase>`` per attempt too: it withholds the setup and
  call reports of the attempts it reruns, but every teardown report reaches
  pytest, and each one closes a testcase. A run that passed but still owed
  passes (``min_passes`` > 1) looks the same as a failed one and is counted as
  failed.
- pytest-retry reruns inside one call and reports only the final call, so its
  retries do not show in JUnit at all: such a test counts one attempt (the view
  reads its rate from the builds that failed instead).
- An XFAIL is ``<skipped type="pytest.xfail">``: a failed attempt the marker kept
  green (outcome "xfailed"). A strict XPASS is a ``<failure>`` whose message starts
  "[XPASS(strict)]": the build fails but the checks passed, no failed attempt.

Every earlier testcase of a test counts as a failed attempt in pytest's files
(its suites are named "pytest"): the plugins rerun a test only after it failed.
Another runner's file (mocha names two cases alike) counts them as two runs,
failed only where they say so. Surefire-style children (``<rerunFailure>``,
``<rerunError>``, ``<flakyFailure>``, ``<flakyError>``) each count one failed
earlier attempt; a testcase with flaky* children and no failure passed after
its reruns.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from detlint.evidence.reports.records import (
    XFAIL_TYPE,
    XPASS_STRICT,
    Build,
    ReportProblem,
    TestAttempts,
    earliest,
    final_outcome,
    latest,
)

EARLIER_FAILURES = frozenset({"rerunFailure", "rerunError", "flakyFailure", "flakyError"})
TEARDOWN_ERROR = "failed on teardown"
# How pytest names the suites of its JUnit file (``junit_suite_name`` defaults to
# "pytest"; newer pytest wraps them in ``<testsuites name="pytest tests">``). A file
# renamed otherwise reads as another runner's: its repeated testcases are not reruns.
PYTEST_SUITE_NAMES = frozenset({"pytest", "pytest tests"})
_CHUNK = 1 << 16  # bytes fed to the parser at a time


@dataclass
class _Case:
    """One ``<testcase>`` element, as far as the counts need it."""

    earlier_failures: int = 0
    failure: bool = False
    error: bool = False
    skipped: bool = False
    xfailed: bool = False
    xpass_strict: bool = False
    only_teardown_error: bool = True

    @property
    def failed(self) -> bool:
        return self.failure or self.error


@dataclass
class _Test:
    """The testcases of one test seen so far: the counts of all but the last, and the last."""

    classname: str
    name: str
    file: str | None
    last: _Case
    attempts: int = 0
    failed: int = 0

    def add(self, case: _Case, reruns: bool) -> None:
        """Another testcase of this test: with ``reruns`` (a pytest file) the one before
        was a failed attempt that a plugin reran; in another runner's file two cases
        of one name are two runs, failed only if they say so."""
        if case.error and not case.failure and case.only_teardown_error and self.last.failure:
            return  # pytest's second testcase for a teardown error after a failed call
        self.attempts += 1 + self.last.earlier_failures
        self.failed += (1 if reruns else int(self.last.failed)) + self.last.earlier_failures
        self.last = case

    def record(self) -> TestAttempts:
        last = self.last
        outcome = final_outcome(last.failed, last.skipped, last.xfailed)
        last_failed = (outcome == "failed" and not last.xpass_strict) or outcome == "xfailed"
        return TestAttempts(
            test=f"{self.classname}::{self.name}" if self.classname else self.name,
            classname=self.classname,
            name=self.name,
            file=self.file,
            attempts=self.attempts + 1 + last.earlier_failures,
            failed_attempts=self.failed + last.earlier_failures + last_failed,
            outcome=outcome,
        )


def nodeid_candidates(classname: str, name: str) -> list[str]:
    """The pytest node ids a JUnit classname and name can stand for.

    pytest writes the module's dotted path followed by the classes, so where the
    module ends is not written: ``tests.test_x.TestC`` is ``tests/test_x.py``
    with class ``TestC`` or module ``tests/test_x/TestC.py``. Every split is
    listed, the longest module path first, for a matcher to keep those whose
    module is a file of the repository.
    """
    parts = classname.split(".") if classname else []
    candidates = []
    for cut in range(len(parts), 0, -1):
        module = "/".join(parts[:cut]) + ".py"
        candidates.append("::".join([module, *parts[cut:], name]))
    return candidates


class _Refused(Exception):
    """Raised from the parser's callbacks to stop a file that is not to be read."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _Reader:
    """The parser's target: counts each ``<testcase>`` as its elements stream past, so
    that no tree is ever built. A document type declaration is refused at its start,
    before expat reads any entity it declares: a JUnit writer never writes one, and
    entity expansion (a "billion laughs" file) is then never left to expat's limits."""

    def __init__(self) -> None:
        self.tests: dict[str, _Test] = {}
        self.times: list[datetime] = []
        self.ends: list[datetime] = []  # when each timed suite ended
        self.root_tag: str | None = None
        self.from_pytest = False  # pytest names its suites: a repeated testcase there is a rerun
        self.case: _Case | None = None
        self.attributes: dict[str, str] = {}

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        tag = _local(tag)
        if self.root_tag is None:
            self.root_tag = tag
            if tag not in ("testsuites", "testsuite"):
                raise _Refused(f"XML but not JUnit (root element <{tag}>)")
        if tag in ("testsuites", "testsuite"):
            self.from_pytest |= attributes.get("name") in PYTEST_SUITE_NAMES
        if tag == "testsuite":
            stamp = _timestamp(attributes.get("timestamp"))
            if stamp is not None:
                self.times.append(stamp)
                self.ends.extend(_end(stamp, attributes.get("time")))
        elif tag == "testcase":
            self.case = _Case()
            self.attributes = attributes
        elif self.case is not None:
            _note_child(self.case, tag, attributes.get("message", ""), attributes.get("type", ""))

    def end(self, tag: str) -> None:
        if self.case is not None and _local(tag) == "testcase":
            _add(self.tests, self.attributes, self.case, self.from_pytest)
            self.case = None

    def doctype(self, name: str, pubid: str | None, system: str | None) -> None:
        raise _Refused("has a document type declaration (<!DOCTYPE>), which JUnit files never need")

    def close(self) -> None:
        """Nothing to build: the counts are the result."""


def read_junit(path: Path, source: str) -> Build | ReportProblem:
    """One build from a JUnit XML file, or the problem that keeps it from being one."""
    reader = _Reader()
    parser = ET.XMLParser(target=reader)
    try:
        with path.open("rb") as stream:
            while chunk := stream.read(_CHUNK):
                parser.feed(chunk)
        parser.close()
    except _Refused as refused:
        return ReportProblem(source, refused.message)
    except ET.ParseError as error:
        what = "not XML" if reader.root_tag is None else "broken XML"
        return ReportProblem(source, f"{what}: {_one_line(str(error))}")
    except (LookupError, ValueError) as error:  # expat met an encoding it cannot decode
        return ReportProblem(source, f"cannot decode: {_one_line(str(error))}")
    except OSError as error:
        return ReportProblem(source, f"cannot read: {error.strerror or error}")
    if not reader.tests:
        return ReportProblem(source, "a JUnit file from another runner (no <testcase> elements)")
    return Build(
        source=source,
        time=earliest(reader.times),
        tests=tuple(test.record() for test in reader.tests.values()),
        format="junit",
        end=latest(reader.ends),
    )


def _note_child(case: _Case, tag: str, message: str, kind: str) -> None:
    if tag in EARLIER_FAILURES:
        case.earlier_failures += 1
    elif tag == "failure":
        case.failure = True
        case.xpass_strict |= message.startswith(XPASS_STRICT)
    elif tag == "error":
        case.error = True
        case.only_teardown_error &= message.startswith(TEARDOWN_ERROR)
    elif tag == "skipped":
        case.xfailed |= kind == XFAIL_TYPE
        case.skipped |= kind != XFAIL_TYPE


def _add(tests: dict[str, _Test], attributes: dict[str, str], case: _Case, reruns: bool) -> None:
    classname = attributes.get("classname", "")
    name = attributes.get("name", "")
    key = f"{classname}::{name}"
    test = tests.get(key)
    if test is None:
        tests[key] = _Test(classname, name, attributes.get("file"), case)
    else:
        test.add(case, reruns)


def _local(tag: str) -> str:
    """The tag without a namespace: some tools write the JUnit schema's."""
    return tag.rsplit("}", 1)[-1]


def _end(start: datetime, seconds: str | None) -> list[datetime]:
    """When a testsuite that began at ``start`` and lasted ``seconds`` ended (none when
    its time is missing or not a number)."""
    try:
        duration = float(seconds) if seconds is not None else None
    except ValueError:
        return []
    if duration is None or not 0 <= duration < 1e9:
        return []
    return [start + timedelta(seconds=duration)]


def _timestamp(text: str | None) -> datetime | None:
    if not text:
        return None
    text = text.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        stamp = datetime.fromisoformat(text)
    except ValueError:
        return None
    return stamp if stamp.tzinfo is None else stamp.astimezone(timezone.utc)


def _one_line(text: str) -> str:
    return " ".join(text.split())
