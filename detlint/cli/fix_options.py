"""The fix flags of ``detlint check``: ``--fix``, ``--unsafe-fixes``, ``--diff``,
``--show-fixes``, ``--fix-only``, ``--exit-non-zero-on-fix``, as ruff spells them.

``--diff`` writes nothing and exits 1 when there is a diff; ``--fix`` writes,
then reports what is left in the chosen format (with ``--fix-only``, nothing
but a count on standard error), and exits as a check of the fixed files would,
or 1 with ``--exit-non-zero-on-fix`` when anything was fixed. What was fixed
(``--show-fixes``) and what could not be (always) go to standard error when
the report is for a machine, so that its output stays one document.
"""

from __future__ import annotations

import functools
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import click

from detlint.base.paths import printable
from detlint.cli.shared import emit, print_report
from detlint.report.formats import TEXT_FORMATS

if TYPE_CHECKING:
    from detlint.cli.check_arguments import CheckArguments
    from detlint.cli.check_run import CheckedFindings, CheckOutcome
    from detlint.cli.fix_rounds import FixOutcome
    from detlint.fixes.apply import Change
    from detlint.report.formats import Report


class FixFlags(NamedTuple):
    fix: bool
    unsafe: bool
    diff: bool
    show_fixes: bool
    fix_only: bool
    stdin: Path | None = None  # the file standard input's text stands in for

    @property
    def active(self) -> bool:
        return self.fix or self.diff


def with_fixes(report: Report, unsafe: bool, fixed: int = 0) -> Report:
    """The report with its findings' fixes built: the edits JSON and SARIF carry, and
    for every format, which plans can be carried out, so that a fix ``--fix`` would
    decline is never shown or counted as fixable."""
    report = report._replace(unsafe_fixes=unsafe, fixed=fixed)
    if report.fixes is not None or not any(f.fix for f in report.findings):
        return report  # built with the findings (a run cache entry), or nothing to build
    from detlint.fixes.build import Sources, build_fixes

    return report._replace(fixes=build_fixes(report.findings, Sources(report.cwd)))


def built_with(checked: CheckedFindings, cwd: Path) -> CheckedFindings:
    """``checked`` with its findings' fixes built (paths shown from ``cwd``), for the
    run cache to keep."""
    if not any(f.fix for f in checked.findings):
        return checked
    from detlint.fixes.build import Sources, build_fixes

    return checked._replace(fixes=build_fixes(checked.findings, Sources(cwd)))


def check_with_fixes(
    run_check: Callable[[], CheckOutcome], flags: FixFlags, arguments: CheckArguments
) -> int:
    """``--fix`` and ``--diff``: the check run in rounds, then what was fixed, what is
    left, and the exit status.

    On standard input (``flags.stdin``, the path it stands in for) nothing is
    written: ``--fix`` prints the fixed text on standard output, as ruff does, and
    the report of what is left goes to standard error (or ``--output-file``).
    """
    from detlint.cli.fix_rounds import Writer, run_fixes
    from detlint.fixes.apply import write_changes
    from detlint.report.formats import render
    from detlint.report.statistics import render_statistics

    output_format, output_file = arguments.output_format, arguments.output_file

    from detlint.readers.project.discovery import find_root

    # No file whose real path is outside the project is written.
    files = functools.partial(write_changes, root=find_root(arguments.paths))
    writer: Writer = _stdin_writer if flags.stdin is not None else files
    result = run_fixes(run_check, Path.cwd(), flags.unsafe, not flags.diff, writer)
    _declined(result)
    if flags.diff:
        return _show_diff(result, output_file)
    stdin = flags.stdin is not None
    if stdin:
        sys.stdout.flush()
        sys.stdout.buffer.write(_final_text(flags.stdin))
        sys.stdout.buffer.flush()
    machine = output_format not in TEXT_FORMATS or output_file is not None or stdin
    if flags.show_fixes and result.fixed:
        click.echo(fixed_listing(result), nl=False, err=machine)
    report = result.outcome.report
    remaining = len(report.findings)
    if flags.fix_only:
        fixed = len(result.fixed)
        word = "finding" if fixed == 1 else "findings"
        click.echo(f"Fixed {fixed} {word} ({remaining} remaining).", err=True)
    else:
        report = with_fixes(report, flags.unsafe, fixed=len(result.fixed))
        if arguments.statistics:
            text = render_statistics(report, output_format)
        else:
            text = render(output_format, report)
        if stdin and output_file is None:
            click.echo(text, nl=False, err=True, color=report.color or None)
        else:
            print_report(text, report.color, output_file)
    if arguments.exit_non_zero_on_fix and result.fixed:
        return 1
    return 0 if flags.fix_only else result.outcome.exit_status


def _show_diff(result: FixOutcome, output_file: Path | None) -> int:
    """``--diff``: the diff, and on standard error how many findings it fixes, what
    waits for a later round and what only ``--unsafe-fixes`` would show."""
    from detlint.cli.fix_rounds import unified_diff

    text = unified_diff(result.changes)
    emit(text, output_file)
    count = len(result.fixed)
    later = ""
    if result.waiting:
        later = (
            f" ({result.waiting} more overlap these edits: --fix makes them in a later"
            " round, on the edited files)"
        )
    if result.hidden:
        hidden = result.hidden
        fixes = f"{hidden} unsafe fix{'es' if hidden != 1 else ''} hidden"
        later += f" ({fixes}; add --unsafe-fixes to see {'it' if hidden == 1 else 'them'})"
    click.echo(f"Would fix {count} finding{'s' if count != 1 else ''}{later}.", err=True)
    return 1 if text else 0


def _stdin_writer(changes: dict[str, Change], cwd: Path) -> dict[str, str]:
    """A round's changes made to the text read from standard input, which then stands
    in for its file; a fix that edits any other file is not written."""
    from detlint.base.source import replace_unsaved

    problems = {}
    for path, change in changes.items():
        if not replace_unsaved(cwd / path, change.before.encode(change.after)):
            problems[path] = "the check reads standard input; other files are not written"
    return problems


def _final_text(path: Path | None) -> bytes:
    """The text read from standard input as the fixes left it."""
    from detlint.base.source import read_bytes

    assert path is not None
    data = read_bytes(path, str(path), max_bytes=sys.maxsize)
    return data if isinstance(data, bytes) else b""


def fixed_listing(result: FixOutcome) -> str:
    """ruff's ``--show-fixes`` block: ``Fixed 2 findings:``, then per file and code."""
    by_file: dict[str, Counter[tuple[str, str]]] = {}
    for finding, fix in result.fixed:
        for path in fix.paths[:1] or (finding.span.path,):
            by_file.setdefault(path, Counter())[(finding.code, finding.name)] += 1
    count = len(result.fixed)
    lines = [f"Fixed {count} finding{'s' if count != 1 else ''}:"]
    for path, codes in sorted(by_file.items()):
        lines.append(f"- {printable(path)}:")
        for (code, name), number in sorted(codes.items()):
            lines.append(f"    {number} \N{MULTIPLICATION SIGN} {code} ({name})")
    return "\n".join(lines) + "\n"


def _declined(result: FixOutcome) -> None:
    """Every fix the run meant to apply and could not, and every file not written."""
    for finding, reason in result.declined:
        span = finding.span
        click.echo(
            f"{printable(span.path)}:{span.line}:{span.column}: {finding.code} not fixed: {reason}",
            err=True,
        )
    for path, reason in sorted(result.not_written.items()):
        click.echo(f"{printable(path)}: not written: {reason}", err=True)
