"""``--output-format github``: workflow commands that annotate a pull request.

Each finding is one ``::error``, ``::warning`` or ``::notice`` line that the
GitHub Actions runner turns into an annotation on the file and lines of the
span. The runner reads the path relative to the repository root, and spans are
relative to the working directory, so detlint must run from the repository
root for the annotations to land on the diff.

Values are escaped as the runner unescapes them (``@actions/core``): ``%``,
CR and LF in the message, and also ``:`` and ``,`` in the properties, where
they would end a value. A message therefore keeps its line breaks and can never
start a second command. GitHub only accepts columns for a one-line region, so a
span over several lines is annotated by lines alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from detlint.report.formats import Report
    from detlint.rules.finding import Finding

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """Escape a command's message (after ``::``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value (``file=...``), where ``:`` and ``,`` are separators."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    """The workflow command for one finding."""
    span = finding.span
    properties = [("file", span.path), ("line", str(span.line))]
    if span.end_line <= span.line:
        properties += [
            ("col", str(span.column)),
            ("endLine", str(span.line)),
            ("endColumn", str(max(span.end_column, span.column))),
        ]
    else:
        properties.append(("endLine", str(span.end_line)))
    properties.append(("title", f"{finding.code} {finding.name}"))
    lines = [finding.message]
    if finding.help:
        lines.append(f"help: {finding.help}")
    lines += [f"related: {r.path}:{r.line}:{r.column}" for r in finding.related]
    command = COMMANDS.get(finding.severity, "warning")
    joined = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{command} {joined}::{escape_data(chr(10).join(lines))}"


def render_github(report: Report) -> str:
    """One workflow command per finding; nothing at all when there are none."""
    return "".join(annotation(finding) + "\n" for finding in report.findings)
