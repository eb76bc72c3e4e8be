"""Rendering findings: the concise lines people read and the JSON CI reads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from detlint import __version__

if TYPE_CHECKING:
    from detlint.finding import Finding

CHECK_SCHEMA = "detlint.check/1"


def render_concise(findings: Sequence[Finding], files_checked: int) -> str:
    """``path:line:col: CODE message`` and an indented help line per finding."""
    lines = []
    for finding in findings:
        span = finding.span
        lines.append(f"{span.path}:{span.line}:{span.column}: {finding.code} {finding.message}")
        if finding.help:
            lines.append(f"  help: {finding.help}")
    count = len(findings)
    files = f"{files_checked} file{'s' if files_checked != 1 else ''}"
    if count:
        lines.append(f"Found {count} finding{'s' if count != 1 else ''} in {files}.")
    else:
        lines.append(f"All checks passed ({files}).")
    return "\n".join(lines) + "\n"


def finding_json(finding: Finding) -> dict[str, Any]:
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


def render_json(findings: Sequence[Finding], files_checked: int) -> str:
    import json  # not needed for the concise output of a pre-commit run

    document = {
        "schema": CHECK_SCHEMA,
        "version": __version__,
        "files_checked": files_checked,
        "findings": [finding_json(finding) for finding in findings],
    }
    return json.dumps(document, indent=2) + "\n"
