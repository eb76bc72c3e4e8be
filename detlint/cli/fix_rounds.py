"""``detlint check --fix`` and ``--diff``: rounds of check, fix, check again.

Each round lints, builds the fixes of the findings left after the filters
(a suppressed or baselined finding is not fixed), applies the ones that fit
together and writes their files; the next round lints the edited files, so
fixes that overlapped an applied one get their turn on fresh positions, as in
ruff. Rounds stop when nothing more applies, or after :data:`MAX_ROUNDS`.
``--diff`` runs one round in memory and writes nothing.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from detlint.fixes.apply import Change, choose, usable, write_changes
from detlint.fixes.build import Sources, build_fixes

if TYPE_CHECKING:
    from detlint.cli.check_run import CheckOutcome
    from detlint.fixes.edits import Fix
    from detlint.rules.finding import Finding
    from detlint.rules.plans import FixPlan

MAX_ROUNDS = 10

Writer = Callable[[dict[str, Change], Path], dict[str, str]]
"""Writes one round's changes (by path, relative to the directory given) and returns
the problems of the files it did not write."""


class FixOutcome(NamedTuple):
    outcome: CheckOutcome  # the check of the files as they are after the fixes
    fixed: tuple[tuple[Finding, Fix], ...]  # in the order applied
    declined: tuple[tuple[Finding, str], ...]  # fixes that could not be made, and why
    not_written: dict[str, str]  # files whose fixes were not written, and why
    changes: dict[str, Change]  # every file changed (or, for --diff, that would be)
    waiting: int = 0  # --diff: fixes that overlap the shown ones, for a later round
    hidden: int = 0  # --diff: unsafe fixes left out because --unsafe-fixes is off


def run_fixes(
    check: Callable[[], CheckOutcome],
    cwd: Path,
    unsafe: bool,
    write: bool,
    writer: Writer = write_changes,
) -> FixOutcome:
    """Fix until nothing more applies; ``write=False`` computes one round only.
    ``writer`` writes a round's changes and says which files it did not write."""
    sources = Sources(cwd)
    fixed: list[tuple[Finding, Fix]] = []
    declined: dict[tuple[str, str], tuple[Finding, str]] = {}
    not_written: dict[str, str] = {}
    changes: dict[str, Change] = {}
    applied_plans: set[FixPlan] = set()
    outcome = check()
    for _ in range(MAX_ROUNDS):
        findings = tuple(
            f
            for f in outcome.report.findings
            if f.fix not in applied_plans and f.span.path not in not_written
        )
        built = build_fixes(findings, sources)
        chosen = choose(findings, built, sources, unsafe)
        for finding, reason in chosen.declined:
            declined[(finding.code, str(finding.span))] = (finding, reason)
        if not write:
            hidden = 0 if unsafe else sum(usable(f, True) and not usable(f, False) for f in built)
            declines = tuple(declined.values())
            return FixOutcome(
                outcome, chosen.applied, declines, {}, chosen.changes, chosen.waiting, hidden
            )
        if not chosen.changes:
            break
        problems = writer(chosen.changes, cwd)
        not_written.update(_counted(problems, chosen.applied))
        for path, change in chosen.changes.items():
            sources.forget(path)
            if path not in problems:
                first = changes.get(path, change).before
                changes[path] = Change(first, change.after)
        for finding, fix in chosen.applied:
            if finding.fix is not None:
                applied_plans.add(finding.fix)
            if not set(fix.paths) & set(problems):
                fixed.append((finding, fix))
        outcome = check()
    still = {(f.code, str(f.span)) for f in outcome.report.findings}
    return FixOutcome(
        outcome,
        tuple(fixed),
        tuple(pair for key, pair in declined.items() if key in still),
        not_written,
        changes,
    )


def _counted(problems: dict[str, str], applied: tuple[tuple[Finding, Fix], ...]) -> dict[str, str]:
    """Each problem with the number of fixes it kept from being written."""
    counted: dict[str, str] = {}
    for path, problem in problems.items():
        count = sum(1 for _, fix in applied if path in fix.paths)
        counted[path] = f"{problem} ({count} fix{'es' if count != 1 else ''} not applied)"
    return counted


def unified_diff(changes: dict[str, Change]) -> str:
    """The changes as ``diff -u`` shows them, one file after another, by path."""
    parts: list[str] = []
    for path, change in sorted(changes.items()):
        before = change.before.text.splitlines(keepends=True)
        after = change.after.splitlines(keepends=True)
        lines = difflib.unified_diff(before, after, f"a/{path}", f"b/{path}")
        for line in lines:
            parts.append(
                line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
            )
    return "".join(parts)
