"""``--output-format junit``: one test case per rule per file, for CI test reports.

CI systems that read JUnit XML (Buildkite Test Engine, GitLab, Jenkins, most
others) show a failed test case per (file, rule) pair with findings, its
``<failure>`` listing each finding's position, message and help. A clean run
still holds one passing test case, so that the report shows detlint ran.

The document is built with ``xml.etree.ElementTree``, which escapes markup;
characters XML 1.0 cannot hold at all (control characters, lone surrogates
from undecodable file names) are replaced with U+FFFD first, so the output
always parses.

Every ``<testcase>`` has a ``time``, as pytest's JUnit XML does, for the readers
that expect one. detlint does not time a (file, rule) pair on its own (the
rules run together over each file), so a case says ``0``, as eslint's JUnit
formatter does; the ``<testsuite>`` and ``<testsuites>`` carry the run's
measured analysis time in seconds, with pytest's three decimals.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import groupby
from typing import TYPE_CHECKING

from detlint.base.paths import printable

if TYPE_CHECKING:
    from detlint.report.formats import Report
    from detlint.rules.finding import Finding

SUITE_NAME = "detlint"
CLEAN_CASE = "all checks passed"

UNTIMED = "0"  # a case's time, and the suite's when the run was not timed

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 cannot represent replaced by U+FFFD."""
    return _NOT_XML.sub("\N{REPLACEMENT CHARACTER}", text)


def _finding_text(finding: Finding) -> str:
    span = finding.span
    lines = [f"{printable(span.path)}:{span.line}:{span.column}: {finding.message}"]
    if finding.help:
        lines.append(f"  help: {finding.help}")
    lines += [f"  related: {printable(r.path)}:{r.line}:{r.column}" for r in finding.related]
    return "\n".join(lines)


def _failure(case: ET.Element, group: list[Finding]) -> None:
    first = group[0]
    if len(group) == 1:
        message = f"{first.span.line}:{first.span.column}: {first.message}"
    else:
        message = f"{len(group)} findings of {first.code} {first.name}"
    failure = ET.SubElement(case, "failure", {"type": first.code, "message": xml_text(message)})
    failure.text = xml_text("\n".join(_finding_text(finding) for finding in group)) + "\n"


def suite_time(elapsed: float | None) -> str:
    """The run's time as pytest writes a suite's: seconds with three decimals."""
    return UNTIMED if elapsed is None else f"{elapsed:.3f}"


def render_junit(report: Report) -> str:
    """The JUnit XML document, with its XML declaration."""

    def key(finding: Finding) -> tuple[str, str]:
        return (finding.span.path, finding.code)

    groups = [list(group) for _, group in groupby(sorted(report.findings, key=key), key=key)]
    tests = max(len(groups), 1)
    counts = {"tests": str(tests), "failures": str(len(groups)), "errors": "0"}
    timed = {"time": suite_time(report.elapsed)}
    suites = ET.Element("testsuites", {"name": SUITE_NAME, **counts, **timed})
    suite = ET.SubElement(
        suites, "testsuite", {"name": SUITE_NAME, **counts, "skipped": "0", **timed}
    )
    properties = ET.SubElement(suite, "properties")
    hidden = {
        "files_checked": report.files_checked,
        "findings": len(report.findings),
        "suppressed": report.suppressed,
        "baselined": report.baselined,
    }
    if report.baseline_gone is not None:
        hidden["baseline_gone"] = report.baseline_gone
    for name, value in hidden.items():
        ET.SubElement(properties, "property", {"name": name, "value": str(value)})
    for group in groups:
        first = group[0]
        path = xml_text(first.span.path)
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": xml_text(printable(first.span.path)),
                "name": f"{first.code} {first.name}",
                "file": path,  # the name itself: XML escapes what does not print
                "time": UNTIMED,
            },
        )
        _failure(case, group)
    if not groups:
        ET.SubElement(
            suite, "testcase", {"classname": SUITE_NAME, "name": CLEAN_CASE, "time": UNTIMED}
        )
    ET.indent(suites)
    body = ET.tostring(suites, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'
