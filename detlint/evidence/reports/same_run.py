"""One pytest session written in two formats is one build, not two.

CI often keeps both ``--junitxml`` and ``--report-log`` of the same run; counted
as two builds, every failure would be counted twice and every rate would rest on
twice the builds there were. The two formats share no identifier, so a session
is recognised by what both record:

- the tests it ran: the same set of test names (JUnit's ``name``, the report
  log's last part of the node id; reruns collapse into one test in both), and
- when it ran: pytest's JUnit ``testsuite`` is stamped with the session's start
  and lasts ``time`` seconds, and every phase in the report log has a ``start``
  and a ``stop`` inside the session; so the report log's first start and last
  stop fall within the JUnit suite's span (a few milliseconds of slack for the
  rounding of ``time`` to milliseconds).

Two different sessions of one suite (two CI builds, two matrix jobs) run the
same tests, but not one within the other's span: a session's report log lies
within its own JUnit span only. A report without times (another runner, a
hand-written file) is never taken for a copy: saying a run twice is better than
dropping one that was not a copy.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from detlint.evidence.reports.records import Build

_SLACK = timedelta(milliseconds=5)  # JUnit's time is rounded to the millisecond


class _Seen:
    __slots__ = ("end", "format", "source", "start")

    def __init__(self, build: Build) -> None:
        self.source, self.format = build.source, build.format
        self.start, self.end = build.time, build.end


def _tests_key(build: Build) -> str:
    """The set of test names, as a digest: a thousand builds of a thousand tests are
    kept as a digest each, never as their names."""
    names = sorted({test.name for test in build.tests})
    return hashlib.sha256("\0".join(names).encode("utf-8", "surrogatepass")).hexdigest()


def _within(inner: _Seen, outer: _Seen) -> bool:
    """Whether ``inner`` (a report log's span) lies within ``outer`` (a JUnit suite's)."""
    times = (inner.start, inner.end, outer.start, outer.end)
    if any(time is None for time in times) or len({t.tzinfo is None for t in times if t}) > 1:
        return False  # no time to compare, or a naive time beside a zoned one
    first, last, begun, ended = (time for time in times if time is not None)
    return begun - _SLACK <= first and last <= ended + _SLACK


class SameRuns:
    """The builds read so far, to tell whether a new one is a session already read in
    the other format."""

    def __init__(self) -> None:
        self._by_tests: dict[str, list[_Seen]] = {}

    def copy_of(self, build: Build) -> str | None:
        """The source of the build already read that ``build`` records in the other
        format (None: a build of its own, now remembered)."""
        key = _tests_key(build)
        seen = self._by_tests.setdefault(key, [])
        new = _Seen(build)
        for earlier in seen:
            if earlier.format == new.format:
                continue
            log, junit = (new, earlier) if new.format == "report-log" else (earlier, new)
            if _within(log, junit):
                return earlier.source
        seen.append(new)
        return None
