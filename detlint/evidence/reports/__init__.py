"""Readers for the test reports CI keeps: JUnit XML and pytest's report log.

They give ``detlint evidence`` what the builds actually did (how many attempts
each test needed, how many of them failed) to set against the knobs the static
scan finds. They only parse report files: nothing is imported or run.
"""

from __future__ import annotations

from detlint.evidence.reports.junit import nodeid_candidates, read_junit
from detlint.evidence.reports.reading import read_reports
from detlint.evidence.reports.records import Build, ReportProblem, TestAttempts
from detlint.evidence.reports.report_log import read_report_log

__all__ = [
    "Build",
    "ReportProblem",
    "TestAttempts",
    "nodeid_candidates",
    "read_junit",
    "read_report_log",
    "read_reports",
]
