"""``--output-format sarif``: SARIF 2.1.0, as GitHub code scanning reads it.

One run whose driver lists every rule of the catalogue (so that GitHub shows a
rule's help even for results from an older upload), and one result per finding.
Paths are the spans' paths, relative to the working directory, under the
``%SRCROOT%`` base: run detlint from the repository root in CI for GitHub to
place the results on the right lines. Columns count Unicode code points, as
spans do, and say so (``columnKind``), since SARIF's default is UTF-16 units.

Each result carries a fingerprint of its own (the code, the path and the
stripped text of the finding's line, plus an occurrence number), so that a
result keeps its identity when lines above it move; and the model's numbers in
its property bag, for tools that want the loss rather than the sentence.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from detlint import __version__
from detlint.base.paths import printable
from detlint.base.source_lines import SourceLines
from detlint.report.fingerprints import LineFingerprints
from detlint.report.formats import INFORMATION_URL, rule_url

if TYPE_CHECKING:
    from detlint.base.span import Span
    from detlint.report.formats import Report
    from detlint.rules.catalogue import RuleInfo
    from detlint.rules.finding import Finding

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "detlintLineHash/v1"

LEVELS = {"error": "error", "warning": "warning", "info": "note"}

# What each family of codes is about, as tags GitHub shows and filters by.
_FAMILY_TAGS = {
    "DET1": "pytest-retries",
    "DET2": "quarantine",
    "DET3": "trial-count",
    "DET4": "ci",
    "DET5": "ci",
    "DET9": "input",
}

_ABSOLUTE = re.compile(r"^(/|[A-Za-z]:[/\\])")


def _level(severity: str) -> str:
    return LEVELS.get(severity, "warning")


def _rules() -> list[RuleInfo]:
    from detlint.rules.catalogue import RULES

    return [RULES[code] for code in sorted(RULES)]


def _rule(info: RuleInfo) -> dict[str, Any]:
    tags = ["reliability"]
    family = _FAMILY_TAGS.get(info.code[:4])
    if family is not None:
        tags.append(family)
    url = rule_url(info.code)
    return {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": f"{info.code} {info.name}: {info.summary}"},
        "helpUri": url,
        "help": {
            "text": f"{info.summary.rstrip('.')}. See {url}",
            "markdown": f"{info.summary.rstrip('.')}. [{info.code} {info.name}]({url})",
        },
        "defaultConfiguration": {"enabled": info.default, "level": _level(info.severity)},
        "properties": {"tags": tags},
    }


def _artifact(path: str) -> dict[str, Any]:
    """A path as SARIF wants it: a relative URI under ``%SRCROOT%``, or a file URI."""
    if _ABSOLUTE.match(path):
        from pathlib import PurePosixPath, PureWindowsPath

        pure = PurePosixPath(path) if path.startswith("/") else PureWindowsPath(path)
        return {"uri": pure.as_uri()}
    return {"uri": quote(path, safe="/"), "uriBaseId": SRCROOT}


def _location(span: Span) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": _artifact(span.path),
            "region": {
                "startLine": span.line,
                "startColumn": span.column,
                "endLine": max(span.end_line, span.line),
                "endColumn": max(span.end_column, 1),
            },
        }
    }


def sarif_fixes(fix: object) -> list[dict[str, Any]]:
    """SARIF ``fixes`` for a finding's built fix: one ``artifactChanges`` entry per
    file, each edit a replacement of its region (lines and columns as the results
    count them, with the byte range as stored) by the inserted text."""
    from detlint.fixes.edits import Fix

    if not isinstance(fix, Fix):
        return []
    changes = []
    for path in fix.paths:
        replacements = []
        for edit, where in zip(fix.edits, fix.where, strict=True):
            if edit.path != path:
                continue
            region = {
                "startLine": where.line,
                "startColumn": where.column,
                "endLine": where.end_line,
                "endColumn": where.end_column,
                "byteOffset": where.start_byte,
                "byteLength": where.end_byte - where.start_byte,
            }
            replacements.append(
                {"deletedRegion": region, "insertedContent": {"text": edit.content}}
            )
        changes.append({"artifactLocation": _artifact(path), "replacements": replacements})
    description = f"{fix.message} ({fix.applicability})"
    return [{"description": {"text": description}, "artifactChanges": changes}]


def _result(
    finding: Finding, index: int | None, fingerprint: str, fixes: list[dict[str, Any]]
) -> dict[str, Any]:
    text = finding.message + (f"\nhelp: {finding.help}" if finding.help else "")
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": _level(finding.severity),
        "message": {"text": text},
        "locations": [_location(finding.span)],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    }
    if index is not None:
        result["ruleIndex"] = index
    if finding.related:
        where = f"{printable(finding.span.path)}:{finding.span.line}:{finding.span.column}"
        result["relatedLocations"] = [
            {"id": number, **_location(span), "message": {"text": f"related to {where}"}}
            for number, span in enumerate(finding.related, start=1)
        ]
    if fixes:
        result["fixes"] = fixes
    properties: dict[str, Any] = {"name": finding.name, "severity": finding.severity}
    if finding.loss is not None:
        properties["numbers"] = dataclasses.asdict(finding.loss)
    result["properties"] = properties
    return result


def _directory_uri(report: Report) -> str:
    """The working directory as a file URI ending in ``/``, as a base URI must."""
    uri = report.cwd.resolve().as_uri()
    return uri if uri.endswith("/") else uri + "/"


def sarif_document(report: Report) -> dict[str, Any]:
    """The SARIF log as a JSON-ready dict."""
    rules = _rules()
    index = {info.code: number for number, info in enumerate(rules)}
    fingerprint = LineFingerprints(SourceLines(report.cwd))
    built = report.fixes or (None,) * len(report.findings)
    results = [
        _result(finding, index.get(finding.code), fingerprint(finding), sarif_fixes(fix))
        for finding, fix in zip(report.findings, built, strict=True)
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "detlint",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URL,
                        "rules": [_rule(info) for info in rules],
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": _directory_uri(report)}},
                "columnKind": "unicodeCodePoints",
                "results": results,
                "properties": {
                    "filesChecked": report.files_checked,
                    "suppressed": report.suppressed,
                    "baselined": report.baselined,
                    "baselineGone": report.baseline_gone,
                },
            }
        ],
    }


def render_sarif(report: Report) -> str:
    return json.dumps(sarif_document(report), indent=2) + "\n"
