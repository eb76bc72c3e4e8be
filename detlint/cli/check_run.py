"""One ``detlint check`` run after the analysis: the filters, the baseline and the exit status.

The analysis says what is true of the repository; this module decides what a
team has chosen to see of it, in a fixed order so that each filter's counts
mean the same in every format: per-file ignores from the config, then inline
``# detlint: ignore`` comments (and DET902 for the ones that hide nothing),
then the baseline. The exit status is computed here, never by a formatter, so
it cannot depend on ``--output-format``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from detlint.engine import Analysis
    from detlint.readers.project.settings import Settings
    from detlint.report.formats import Report
    from detlint.rules.finding import Finding

UNUSED_SUPPRESSION = "DET902"


# NamedTuples, not dataclasses: these are records of one run, not facts, and each
# frozen dataclass costs half a millisecond to define on every pre-commit run.
class CheckOptions(NamedTuple):
    """What the command line asked for beyond the analysis itself."""

    baseline: Path | None = None
    write_baseline: Path | None = None
    project_root: Path | None = None  # where a --write-baseline symlink may lead
    fail_on: str | None = None  # the lowest severity that fails the run; None: any finding
    exit_zero: bool = False
    # The paths the run was given: only baseline entries under them can be gone (a
    # dependency file given stands for its project, but the run reports only what its
    # change alters, so the project's other entries are not the run's to call gone).
    paths: tuple[Path, ...] = ()


class CheckedFindings(NamedTuple):
    """A check's result before the baseline: the findings left after per-file ignores
    and inline suppressions, how many a suppression hid, the files checked, and what
    ``-v`` says about the analysis. The run cache keeps this (``cli/run_cache.py``)."""

    findings: tuple[Finding, ...]
    suppressed: int
    files: int
    described: tuple[str, ...]
    warnings: tuple[str, ...] = ()  # lines for standard error, such as unknown ignore codes
    # Each finding's fix as built from the tree analysed (``fixes.build.build_fixes``),
    # kept with the findings so that a repeat run on the same tree builds none.
    fixes: tuple[object, ...] | None = None


class CheckOutcome(NamedTuple):
    report: Report
    exit_status: int
    baseline_written: int | None = None  # findings recorded by --write-baseline


def filter_findings(
    analysis: Analysis, settings: Settings, selected: frozenset[str], cwd: Path
) -> tuple[tuple[Finding, ...], int]:
    """The findings left after per-file ignores and inline suppressions, and how many
    suppressions hid one."""
    report_unused = UNUSED_SUPPRESSION in selected
    if not analysis.findings and not report_unused:
        return (), 0  # the common pre-commit case: nothing to filter, nothing to import
    from detlint.rules.per_file_ignores import apply_per_file_ignores
    from detlint.rules.suppression import apply_suppressions

    findings = apply_per_file_ignores(analysis.findings, settings, cwd)
    if not findings and not report_unused:
        return (), 0
    suppressed = apply_suppressions(
        findings, analysis.checked, cwd, report_unused, selected=selected
    )
    kept = suppressed.kept
    if suppressed.unused:
        unused = apply_per_file_ignores(suppressed.unused, settings, cwd)
        kept = tuple(sorted((*kept, *unused), key=lambda finding: finding.sort_key))
    return kept, len(suppressed.suppressed)


def finish_check(checked: CheckedFindings, options: CheckOptions, cwd: Path) -> CheckOutcome:
    """Compare the filtered findings with the baseline, or write it, and decide the exit
    status."""
    from detlint.report.formats import Report

    findings, suppressed, files_checked = checked.findings, checked.suppressed, checked.files
    baselined, gone = 0, None
    if options.write_baseline is not None:
        from detlint.rules.baseline import write_baseline

        written = write_baseline(options.write_baseline, findings, cwd, options.project_root)
        report = Report(findings, files_checked, cwd, suppressed=suppressed)
        return CheckOutcome(report, 0, baseline_written=written)
    if options.baseline is not None:
        from detlint.rules.baseline import compare_baseline, covered_by

        covered = covered_by(options.paths, cwd)
        result = compare_baseline(options.baseline, findings, cwd, covered)
        findings, baselined, gone = result.new, result.matched, result.gone
    report = Report(
        findings,
        files_checked,
        cwd,
        suppressed=suppressed,
        baselined=baselined,
        baseline_gone=gone,
        fixes=_kept_fixes(checked, findings),
    )
    return CheckOutcome(report, exit_status(findings, options))


def _kept_fixes(checked: CheckedFindings, kept: tuple[Finding, ...]) -> tuple[object, ...] | None:
    """The built fixes of the findings the baseline left, in their order; None when
    none were built with the findings (the report builds them)."""
    if checked.fixes is None:
        return None
    built = {id(finding): fix for finding, fix in zip(checked.findings, checked.fixes, strict=True)}
    if any(id(finding) not in built for finding in kept):
        return None
    return tuple(built[id(finding)] for finding in kept)


def exit_status(findings: tuple[Finding, ...], options: CheckOptions) -> int:
    """0 clean, 1 when a finding is at or above ``fail_on``; ``exit_zero`` always 0."""
    if options.exit_zero:
        return 0
    from detlint.base.severity import severity_rank

    floor = severity_rank(options.fail_on) if options.fail_on is not None else 0
    return int(any(severity_rank(finding.severity) >= floor for finding in findings))
