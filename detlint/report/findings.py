"""Rendering findings: the concise lines people read and the JSON CI reads.

The JSON document is versioned (``detlint.check/1``) and described by
``docs/json-schema/check-1.json``; within version 1 keys are only ever added.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from detlint import __version__
from detlint.base.paths import printable
from detlint.report import colour

if TYPE_CHECKING:
    from detlint.report.formats import Report
    from detlint.rules.finding import Finding

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
    """``Found 3 findings in 4 files.`` or ``All checks passed (4 files).``, and what was hidden.

    A run that checked no file (a path that does not exist, a directory with
    nothing detlint reads) says so rather than counting "0 files", and never
    claims that all checks passed: nothing was checked.
    """
    checked = report.files_checked
    where = f" in {_plural(checked, 'file')}" if checked else ""
    nothing = "; no file was checked" if not checked else ""
    note = hidden_note(report.suppressed, report.baselined, report.baseline_gone)
    if report.fixed:
        fixed = f"{report.fixed} fixed, {len(report.findings)} remaining"
        note = f"{fixed}; {note}" if note else fixed
        total = len(report.findings) + report.fixed
        return f"Found {_plural(total, 'finding')}{where} ({note}){nothing}."
    if report.findings:
        extra = f" ({note})" if note else ""
        return f"Found {_plural(len(report.findings), 'finding')}{where}{extra}{nothing}."
    if not checked:
        return f"No file was checked{f' ({note})' if note else ''}."
    return f"All checks passed ({_plural(checked, 'file')}{'; ' + note if note else ''})."


def fixable(finding: Finding, unsafe: bool, built: object = None) -> bool:
    """Whether ``--fix`` (with ``--unsafe-fixes`` when ``unsafe``) would fix it.

    ``built`` is the finding's fix as the report built it: a plan whose edits
    could not be made (the reason, a string) is not fixable, since ``--fix``
    would decline it; None when the report built no fixes.
    """
    plan = finding.fix
    if plan is None or isinstance(built, str):
        return False
    return unsafe or plan.applicability == "safe"


def built_fixes(report: Report) -> tuple[object, ...]:
    """Each finding's built fix (a Fix, the reason there is none, or None), in order."""
    return report.fixes if report.fixes is not None else (None,) * len(report.findings)


def fix_marker(finding: Finding, report: Report, built: object = None) -> str:
    """ruff's ``[*]`` after the code: this run's ``--fix`` would fix the finding."""
    return " [*]" if fixable(finding, report.unsafe_fixes, built) else ""


def fix_hint(report: Report) -> str:
    """The line after the summary that says what ``--fix`` would do, as ruff words it:
    ``[*] 1 fixable with the `--fix` option (2 hidden fixes can be enabled with the
    `--unsafe-fixes` option).``; empty when no finding has a fix."""
    pairs = tuple(zip(report.findings, built_fixes(report), strict=True))
    applicable = sum(fixable(f, report.unsafe_fixes, built) for f, built in pairs)
    hidden = sum(fixable(f, True, built) for f, built in pairs) - applicable
    if not applicable and not hidden:
        return ""
    extra = ""
    if hidden:
        word = "fix" if hidden == 1 else "fixes"
        extra = f"{hidden} hidden {word} can be enabled with the `--unsafe-fixes` option"
    if not applicable:
        return f"No fixes available ({extra})."
    return f"[*] {applicable} fixable with the `--fix` option" + (f" ({extra})." if extra else ".")


def finding_head(
    finding: Finding, report: Report, built: object = None, short: bool = False
) -> str:
    """``path:line:col: CODE [*] message``, the first line of a finding in the text
    formats, coloured when the report is; ``built`` is its fix as built; ``short``: the
    message's concise form."""
    span = finding.span
    on = report.color
    where = colour.location(f"{printable(span.path)}:{span.line}:{span.column}", on)
    text = finding.message
    if short:
        from detlint.report.concise import concise_message

        text = concise_message(text, finding.name)
    message = colour.percentages(text, on)
    marker = fix_marker(finding, report, built)
    return f"{where}: {colour.code(finding.code, on)}{marker} {message}"


def closing_lines(report: Report) -> list[str]:
    """The summary and the fix hint that close the text formats; none with ``-q``."""
    if report.quiet:
        return []
    hint = fix_hint(report)
    return [summary_line(report), *([hint] if hint else [])]


def render_concise(report: Report) -> str:
    """``path:line:col: CODE message`` (the message's short form: ``--output-format
    full`` has it whole) and an indented help line per finding."""
    lines = []
    for finding, built in zip(report.findings, built_fixes(report), strict=True):
        lines.append(finding_head(finding, report, built, short=True))
        if finding.help:
            lines.append(f"  help: {colour.percentages(finding.help, report.color)}")
    lines += closing_lines(report)
    return "".join(line + "\n" for line in lines)


def finding_json(finding: Finding, fix: object = None) -> dict[str, Any]:
    """One finding as the JSON document carries it (``findings[]`` in ``check-1.json``),
    with its fix when one was built (``fix`` is a Fix, or the reason there is none)."""
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
        **_fix_json(finding, fix),
    }


def _fix_json(finding: Finding, fix: object) -> dict[str, Any]:
    """``fix`` (null without one) and, when a plan could not be carried out, why."""
    from detlint.fixes.edits import Fix

    if isinstance(fix, Fix):
        from detlint.fixes.serial import fix_document

        return {"fix": fix_document(fix)}
    if isinstance(fix, str) and finding.fix is not None:
        return {"fix": None, "fix_unavailable": fix}
    return {"fix": None}


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
        "findings": [
            finding_json(finding, report.fixes[index] if report.fixes else None)
            for index, finding in enumerate(report.findings)
        ],
    }
    return json.dumps(document, indent=2) + "\n"
