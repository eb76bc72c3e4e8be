"""``--output-format gitlab``: a GitLab Code Quality report.

GitLab reads a ``codequality`` report artifact as one JSON array of issues
(https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format)
and shows them in the merge request widget, the changes view and the
pipeline's Code Quality tab. Each issue needs ``description``, ``check_name``,
``fingerprint``, ``severity``, ``location.path`` and ``location.lines.begin``,
and GitLab ignores every other field; the one more written is
``location.lines.end``, from the Code Climate format GitLab's is a subset of,
for the other tools that read these reports.

The fingerprint is SARIF's (code, path and the stripped text of the finding's
line, with an occurrence number): GitLab compares a merge request's issues
with the target branch's by fingerprint, so an identity that survives lines
moving above a knob keeps an untouched knob from showing as fixed and new
again, and the occurrence number keeps two identical knobs in one file from
collapsing into one entry. A finding has the same identity in both formats.

GitLab's severities, least to most severe, are info, minor, major, critical
and blocker. detlint's map onto them as:

- ``info`` -> ``info``: a note, such as a trial count that misses the target;
- ``warning`` -> ``major``: a knob that lowers the chance a real failure is
  reported, which is the point of the finding, not a matter of style (minor);
- ``error`` -> ``critical``: a marker the plugin rejects or a file detlint
  could not read, where the tests' real policy is unknown.

``blocker`` is left unused: whether a finding blocks a merge is the run's
``--fail-on``, not the report's to say.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from detlint.base.source_lines import SourceLines
from detlint.report.fingerprints import LineFingerprints

if TYPE_CHECKING:
    from detlint.report.formats import Report
    from detlint.rules.finding import Finding

SEVERITIES = {"info": "info", "warning": "major", "error": "critical"}
UNKNOWN_SEVERITY = "critical"  # as severity_rank does, an unknown severity counts as an error


def gitlab_severity(severity: str) -> str:
    """GitLab's name for a detlint severity."""
    return SEVERITIES.get(severity, UNKNOWN_SEVERITY)


def _issue(finding: Finding, fingerprint: str) -> dict[str, Any]:
    span = finding.span
    description = f"{finding.code} {finding.message}"
    if finding.help:
        description += f"; help: {finding.help}"
    return {
        "description": description,
        "check_name": finding.code,
        "fingerprint": fingerprint,
        "severity": gitlab_severity(finding.severity),
        "location": {
            "path": span.path,
            "lines": {"begin": span.line, "end": max(span.line, span.end_line)},
        },
    }


def gitlab_issues(report: Report) -> list[dict[str, Any]]:
    """The report's findings as GitLab Code Quality issues, in the report's order."""
    fingerprint = LineFingerprints(SourceLines(report.cwd))
    return [_issue(finding, fingerprint(finding)) for finding in report.findings]


def render_gitlab(report: Report) -> str:
    """The Code Quality report: a JSON array, ``[]`` for a clean run (never a BOM,
    which GitLab's parser rejects)."""
    return json.dumps(gitlab_issues(report), indent=2) + "\n"
