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

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import click

from detlint.base.paths import printable
from detlint.cli.shared import emit, print_report
from detlint.report.formats import EDIT_FORMATS, TEXT_FORMATS

if TYPE_CHECKING:
    from detlint.cli.check_arguments import CheckArguments
    from detlint.cli.check_run import CheckOutcome
    from detlint.cli.fix_rounds import FixOutcome
    from detlint.report.formats import Report


class FixFlags(NamedTuple):
    fix: bool
    unsafe: bool
    diff: bool
    show_fixes: bool
    fix_only: bool

    @property
    def active(self) -> bool:
        return self.fix or self.diff


def with_fixes(report: Report, output_format: str, unsafe: bool, fixed: int = 0) -> Report:
    """The report with what its format shows of fixes: the edits for JSON and SARIF."""
    report = report._replace(unsafe_fixes=unsafe, fixed=fixed)
    if output_format not in EDIT_FORMATS or not any(f.fix for f in report.findings):
        return report
    from detlint.fixes.build import Sources, build_fixes

    return report._replace(fixes=build_fixes(report.findings, Sources(report.cwd)))


def check_with_fixes(
    run_check: Callable[[], CheckOutcome], flags: FixFlags, arguments: CheckArguments
) -> int:
    """``--fix`` and ``--diff``: the check run in rounds, then what was fixed, what is
    left, and the exit status."""
    from detlint.cli.fix_rounds import run_fixes, unified_diff
    from detlint.report.formats import render
    from detlint.report.statistics import render_statistics

    output_format, output_file = arguments.output_format, arguments.output_file

    from detlint.readers.project.discovery import find_root

    root = find_root(arguments.paths)
    result = run_fixes(run_check, Path.cwd(), flags.unsafe, write=not flags.diff, root=root)
    _declined(result)
    if flags.diff:
        text = unified_diff(result.changes)
        emit(text, output_file)
        count = len(result.fixed)
        later = ""
        if result.waiting:
            later = (
                f" ({result.waiting} more overlap these edits: --fix makes them in a later"
                " round, on the edited files)"
            )
        click.echo(f"Would fix {count} finding{'s' if count != 1 else ''}{later}.", err=True)
        return 1 if text else 0
    machine = output_format not in TEXT_FORMATS or output_file is not None
    if flags.show_fixes and result.fixed:
        click.echo(fixed_listing(result), nl=False, err=machine)
    report = result.outcome.report
    remaining = len(report.findings)
    if flags.fix_only:
        fixed = len(result.fixed)
        word = "finding" if fixed == 1 else "findings"
        click.echo(f"Fixed {fixed} {word} ({remaining} remaining).", err=True)
    else:
        report = with_fixes(report, output_format, flags.unsafe, fixed=len(result.fixed))
        if arguments.statistics:
            text = render_statistics(report, output_format)
        else:
            text = render(output_format, report)
        print_report(text, report.color, output_file)
    if arguments.exit_non_zero_on_fix and result.fixed:
        return 1
    return 0 if flags.fix_only else result.outcome.exit_status


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
