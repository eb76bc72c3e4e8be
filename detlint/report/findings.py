"""Rendering findings: the concise lines people read and the JSON CI reads.

The JSON document is versioned (``detlint.check/1``) and described by
``docs/json-schema/check-1.json``; within version 1 keys are only ever added.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from detlint import __version__

if TYPE_CHECKING:
    from detlint.finding import Finding
    from detlint.report.formats import Report

CHECK_SCHEMA = "detlint.check/1"


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def hidden_note(suppressed: int = 0, baselined: int = 0, baseline_gone: int | None = None) -> str:
    """What the run hid and why: ``2 suppressed, 5 in baseline; 1 baseline entry gone``.

    Empty for a plain run, so that its summary reads as before. A baseline's
    count is shown whenever a baseline was used, even at 0, so that a user can
    see it was read; entries it holds that no longer match are shown when there
    are any, because they are a baseline to refresh.
    """
    hidden = []
    if suppressed:
        hidden.append(f"{suppressed} suppressed")
    if baselined or baseline_gone is not None:
        hidden.append(f"{baselined} in baseline")
    note = ", ".join(hidden)
    if baseline_gone:
        gone = _plural(baseline_gone, "baseline entry", "baseline entries") + " gone"
        note = f"{note}; {gone}" if note else gone
    return note


def summary_line(report: Report) -> str:
    """``Found 3 findings in 4 files.`` or ``All checks passed (4 files).``, and what was hidden."""
    files = _plural(report.files_checked, "file")
    note = hidden_note(report.suppressed, report.baselined, report.baseline_gone)
    if report.findings:
        extra = f" ({note})" if note else ""
        return f"Found {_plural(len(report.findings), 'finding')} in {files}{extra}."
    return f"All checks passed ({files}{'; ' + note if note else ''})."


def render_concise(report: Report) -> str:
    """``path:line:col: CODE message`` and an indented help line per finding."""
    lines = []
    for finding in report.findings:
        span = finding.span
        lines.append(f"{span.path}:{span.line}:{span.column}: {finding.code} {finding.message}")
        if finding.help:
            lines.append(f"  help: {finding.help}")
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


def finding_json(finding: Finding) -> dict[str, Any]:
    """One finding as the JSON document carries it (``findings[]`` in ``check-1.json``)."""
    import dataclasses

    span = finding.span
    return {
        "code": finding.code,
        "name": finding.name,
        "severity": finding.severity,
        "path": span.path,
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
        "message": finding.message,
        "help": finding.help,
        "numbers": dataclasses.asdict(finding.loss) if finding.loss is not None else None,
        "related": [dataclasses.asdict(related) for related in finding.related],
    }


def render_json(report: Report) -> str:
    """The ``detlint.check/1`` document: every finding with its numbers as floats."""
    import json  # not needed for the concise output of a pre-commit run

    document = {
        "schema": CHECK_SCHEMA,
        "version": __version__,
        "files_checked": report.files_checked,
        "suppressed": report.suppressed,
        "baselined": report.baselined,
        "baseline_gone": report.baseline_gone,
        "findings": [finding_json(finding) for finding in report.findings],
    }
    return json.dumps(document, indent=2) + "\n"
