"""``check --evidence`` / ``audit --evidence``: findings quote what CI measured.

A finding on a knob names the tests it reaches; where the reports CI kept hold
one of those tests, the message gains the measured per-attempt failure rate and
its interval next to the reference rate the numbers assume, so that a reader sees
both the model's "what could this hide" and the history's "what did it hide".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.percentages import percent_label

if TYPE_CHECKING:
    from detlint.engine import Analysis
    from detlint.evidence.reports.records import Build, ReportProblem
    from detlint.evidence.view import EvidenceView, TestEvidence
    from detlint.rules.finding import Finding


def builds_of(
    reports: Sequence[Path],
    build_per_dir: bool,
    problems: list[ReportProblem],
    who: str | None,
) -> Iterator[Build]:
    """The builds of ``reports`` one by one; each problem is kept in ``problems`` and,
    with ``who``, said on standard error (``who: source: message``) as it is met."""
    import click

    from detlint.evidence.reports.reading import iter_reports
    from detlint.evidence.reports.records import ReportProblem

    for item in iter_reports(list(reports), build_per_dir=build_per_dir):
        if isinstance(item, ReportProblem):
            problems.append(item)
            if who is not None:
                click.echo(f"{who}: {item.source}: {item.message}", err=True)
        else:
            yield item


def read_evidence(
    analysis: Analysis, reports: Sequence[Path], build_per_dir: bool = False
) -> EvidenceView:
    """The reports' evidence, matched to the analysis's tests (what could not be read
    is said on standard error)."""
    from detlint.evidence.match import PolicyMatcher
    from detlint.evidence.view import evidence_view

    problems: list[ReportProblem] = []
    builds = builds_of(reports, build_per_dir, problems, "detlint: evidence not read")
    return evidence_view(builds, PolicyMatcher(analysis.gates))


def quote(test: TestEvidence, reference_rate: float) -> str:
    from detlint.evidence.sentences import measured

    per = " per trial" if test.per_trial is not None else ""
    return (
        f"measured in CI: {measured(test)}, against the reference rate "
        f"{percent_label(reference_rate)}{per}"
    )


def with_evidence(analysis: Analysis, view: EvidenceView, reference_rate: float) -> Analysis:
    """The analysis with each finding on a test that has evidence quoting it."""
    by_label = {test.matched: test for test in view.tests if test.matched}
    if not by_label:
        return analysis
    tests_of: dict[tuple[str, int, int], list[str]] = {}
    for gate in analysis.gates:
        for knob in gate.knobs:
            span = knob.span
            tests_of.setdefault((span.path, span.line, span.column), []).append(gate.test.nodeid)
    for ci_gate in analysis.ci.gates if analysis.ci is not None else ():
        if ci_gate.has_facts:
            for ci_knob in ci_gate.ci_knobs:
                span = ci_knob.span
                tests_of.setdefault((span.path, span.line, span.column), []).append(
                    ci_gate.base.test.nodeid
                )

    def quoted(finding: Finding) -> Finding:
        span = finding.span
        found = [
            by_label[label]
            for label in tests_of.get((span.path, span.line, span.column), ())
            if label in by_label
        ]
        if not found:
            return finding
        best = max(found, key=lambda test: (test.first_failures, test.builds, test.test))
        return dataclasses.replace(
            finding, message=f"{finding.message}; {quote(best, reference_rate)}"
        )

    return dataclasses.replace(analysis, findings=tuple(quoted(f) for f in analysis.findings))
