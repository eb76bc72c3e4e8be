"""The audit's census of CI knobs, as the HTML and Markdown reports show it: every
knob with the findings at it, or the reason it is not one (``rules/ci_census.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from detlint.report.audit.facts import CensusView

if TYPE_CHECKING:
    from detlint.engine import Analysis


def census_views(analysis: Analysis) -> tuple[CensusView, ...]:
    """Every CI knob with the findings at it, or the reason it is not one."""
    if analysis.ci is None:
        return ()
    from detlint.rules.ci_census import census

    return tuple(
        CensusView(
            kind=verdict.kind,
            path=verdict.span.path,
            line=verdict.span.line,
            step=verdict.step or "",
            written=verdict.value
            if verdict.kind in ("rerun-option", "masked-status")
            else f"{verdict.key}: {verdict.value}",
            verdict=verdict.verdict,
            codes=verdict.codes,
            reason=verdict.reason,
        )
        for verdict in census(analysis.ci, analysis.findings, analysis.selected)
    )
