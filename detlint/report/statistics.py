"""``--statistics``: how many findings each code has, as ruff prints them."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from detlint.report.findings import summary_line

if TYPE_CHECKING:
    from detlint.report.formats import Report


def render_statistics(report: Report, output_format: str = "concise") -> str:
    """``--statistics``: how many findings each code has, the most frequent first
    (ties by code), so that the knob a project leans on most is read first.

    With ``--output-format json`` it is the JSON array ``ruff check --statistics
    --output-format json`` prints: one object per code with ruff's keys ``code``,
    ``name``, ``count`` and ``fixable`` (every finding of the code would be fixed
    by this run's ``--fix``), ``[]`` for a clean run. Every other format gets the
    text lines, one per code: count, code and name, separated by tabs, the name
    after ruff's marker when any finding is fixable (``[*]`` every finding of the
    code, ``[~]`` some, ``[ ]`` none); the summary line when there is nothing to
    count, nothing at all with ``-q``.
    """
    counts = Counter(finding.code for finding in report.findings)
    names = {finding.code: finding.name for finding in report.findings}
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    fixed = _fixable_counts(report)
    if output_format == "json":
        import json

        rows = [
            {"code": code, "name": names[code], "count": count, "fixable": fixed[code] == count}
            for code, count in ordered
        ]
        return json.dumps(rows, indent=2) + "\n"
    if not report.findings:
        return "" if report.quiet else summary_line(report) + "\n"
    from detlint.report import colour

    width = len(str(max(counts.values())))
    on = report.color
    markers = any(fixed.values())
    lines = []
    for code, count in ordered:
        marker = ""
        if markers:
            marker = "[*] " if fixed[code] == count else "[~] " if fixed[code] else "[ ] "
        number = colour.number(f"{count:>{width}}", on)
        lines.append(f"{number}\t{colour.code(code, on)}\t{marker}{names[code]}\n")
    return "".join(lines)


def _fixable_counts(report: Report) -> Counter[str]:
    """How many findings of each code this run's ``--fix`` would fix (a fix that
    could not be built is not counted)."""
    from detlint.report.findings import built_fixes, fixable

    unsafe = report.unsafe_fixes
    pairs = zip(report.findings, built_fixes(report), strict=True)
    counts: Counter[str] = Counter({finding.code: 0 for finding in report.findings})
    counts.update(finding.code for finding, built in pairs if fixable(finding, unsafe, built))
    return counts
