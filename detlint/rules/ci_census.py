"""The census of CI knobs: every knob of every pipeline, and what detlint made of it.

A knob detlint reports is plain to see; a knob it stays silent on is not, and a
silent knob on a step that runs tests is the worst outcome for a team relying on
the lint (the failures it hides go unnoticed twice). So the audit accounts for
every soft fail, allow-failure, continue-on-error, job retry, retry action,
hand-written retry, rerun option and masked status: either the findings at it, or
the reason it is not one, in words a maintainer can check against the pipeline
(what the step runs instead of tests, which exit statuses the knob acts on). A knob
no reason fits is listed as not judged, never dropped.

The census reads the findings the rules made (by where they point) and the facts
the rules read, so it adds no judgement of its own: a reason here is the condition
under which the rule stayed silent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from detlint.base.span import Span
from detlint.readers.ci.facts import GENERATED_CHILD

if TYPE_CHECKING:
    from detlint.compose.ci.analysis import CiAnalysis
    from detlint.compose.ci.test_run import OtherRun, TestRun
    from detlint.readers.ci.facts import CiKnob, CiStep
    from detlint.rules.finding import Finding

# The rules that speak about CI knobs, by the knob kinds they judge.
CI_CODES = ("DET401", "DET411", "DET421", "DET431", "DET501")
_CODE_OF_KIND = {
    "soft-fail": "DET401",
    "continue-on-error": "DET401",
    "allow-failure": "DET401",
    "job-retry": "DET411",
    "retry-action": "DET411",
    "shell-retry": "DET411",
    "rerun-option": "DET421",
    "masked-status": "DET431",
}

Verdict = Literal["finding", "no-finding", "not-judged"]


@dataclass(frozen=True)
class KnobVerdict:
    """One CI knob and what detlint made of it.

    ``verdict`` is ``finding`` (``codes`` name the rules at it), ``no-finding`` (it
    hides no test failure, and ``reason`` says why) or ``not-judged`` (detlint could
    not tell, and ``reason`` says what it would need). ``cause`` is the reason's
    kind, for machines: ``runs-no-tests``, ``infrastructure-statuses``, ``no-retry``,
    ``does-not-hide``, ``step-skipped``, ``manual-job``, ``infrastructure-reruns``,
    ``run-time-value``, ``unseen-callee``, ``named-like-tests``, ``visible-reruns``,
    ``deferred``, ``service-quarantine``, ``rule-not-selected``, ``unexplained``; empty for a
    finding.
    """

    kind: str
    system: str
    key: str
    value: str
    span: Span
    step: str | None
    verdict: Verdict
    codes: tuple[str, ...]
    cause: str
    reason: str


def census(
    ci: CiAnalysis, findings: Iterable[Finding], selected: frozenset[str] | None = None
) -> tuple[KnobVerdict, ...]:
    """Every knob of ``ci`` with its verdict. ``selected`` are the rules the run ran
    (None: all of them), so that a knob a deselected rule would judge says so."""
    at: dict[Span, list[str]] = {}
    for found in findings:
        if found.code in CI_CODES:
            codes = at.setdefault(found.span, [])
            if found.code not in codes:
                codes.append(found.code)
    verdicts = [_knob_verdict(knob, ci, at, selected) for knob in ci.knobs]
    verdicts += _run_verdicts(ci.runs, at, selected)
    verdicts += _other_verdicts(ci.others, at, selected)
    verdicts.sort(key=lambda verdict: (verdict.span, verdict.kind))
    return tuple(verdicts)


def _selected(code: str, selected: frozenset[str] | None) -> bool:
    return selected is None or code in selected


def _knob_verdict(
    knob: CiKnob, ci: CiAnalysis, at: dict[Span, list[str]], selected: frozenset[str] | None
) -> KnobVerdict:
    steps = ci.steps_of(knob)
    step = steps[0].name if steps else None

    def verdict(kind: Verdict, cause: str = "", reason: str = "") -> KnobVerdict:
        codes = tuple(sorted(at.get(knob.span, ())))
        return KnobVerdict(
            knob.kind,
            knob.system,
            knob.key,
            knob.value,
            knob.span,
            step,
            kind,
            codes,
            cause,
            reason,
        )

    if at.get(knob.span):
        return verdict("finding")
    cause, reason = _silent_reason(knob, ci, steps, selected)
    unknown = ("run-time-value", "unseen-callee", "named-like-tests", "unexplained")
    kind: Verdict = "not-judged" if cause in unknown else "no-finding"
    return verdict(kind, cause, reason)


def _silent_reason(
    knob: CiKnob, ci: CiAnalysis, steps: Sequence[CiStep], selected: frozenset[str] | None
) -> tuple[str, str]:
    """Why no rule reported ``knob``: the condition under which its rule stays silent."""
    if knob.kind == "fail-fast-off":
        return "does-not-hide", (
            "lets the other jobs of the matrix finish; a failing job still fails the run"
        )
    if knob.kind == "continue-on-failure":
        return "does-not-hide", (
            "lets the steps after the wait start; the failed step still fails the build"
        )
    if knob.kind == "service-quarantine":
        return "service-quarantine", knob.note
    if knob.acts_on:
        return "runs-no-tests", _quiet_reason(knob)
    if knob.kind == "skip":
        return "step-skipped", "the step does not run, so there is no failure of it to hide"
    code = _CODE_OF_KIND.get(knob.kind)
    if code is not None and not _selected(code, selected):
        return "rule-not-selected", f"{code} is not among the rules this run selected"
    if knob.optional:
        return "manual-job", knob.note or "the job runs only when someone starts it"
    from detlint.compose.ci.gates import RETRY_KINDS  # only when a knob is silent

    retry = knob.kind in RETRY_KINDS
    if retry and knob.attempts is not None and knob.attempts < 2:
        return "no-retry", f"gives a failing job no second attempt (`{knob.value}`)"
    if knob.covers_tests is None:
        note = f" ({knob.note})" if knob.note else ""
        return "run-time-value", (
            f"whether it acts on a test failure depends on `{knob.value}`, known only when "
            f"the pipeline runs{note}"
        )
    if not knob.covers_tests:
        note = f": {knob.note}" if knob.note else ""
        return "infrastructure-statuses", (
            f"acts only on exit statuses a failing test run does not give (`{knob.value}`){note}"
        )
    if retry and (knob.attempts or 0) < 2:
        return "no-retry", f"gives a failing job no second attempt (`{knob.value}`)"
    runs = [run for run in ci.runs if knob in run.knobs]
    remote = knob.note.partition("passed to ")[2]
    if not runs and remote and not any(knob in other.knobs for other in ci.others):
        return "unseen-callee", (
            f"the commands it acts on are in {remote.split(',')[0]}, which detlint does not "
            "read: whether they run tests is unknown"
        )
    generated = next((s.calls for s in steps if (s.calls or "").startswith(GENERATED_CHILD)), "")
    if not runs and generated:
        return "unseen-callee", (
            f"it triggers a child pipeline another job writes at run time "
            f"(`{generated.removeprefix(GENERATED_CHILD)}`): whether its jobs run tests is unknown"
        )
    if not runs and not any(knob in other.knobs for other in ci.others):
        return _runs_no_tests(knob, steps)
    return "unexplained", "no rule reported it and no reason is known: a gap in detlint"


def _quiet_reason(knob: CiKnob) -> str:
    """Why a script's own knob around a command hides no test failure."""
    if knob.value == "set +e":
        return "`set +e` lets the script go on after a failure, and no command of it runs tests"
    runs_none = f" ({knob.note})" if knob.note else ""
    if knob.kind == "shell-retry":
        return (
            f"`{knob.value}` runs `{knob.acts_on}` again when it fails; it runs no tests{runs_none}"
        )
    return (
        f"`{knob.value}` keeps the status of `{knob.acts_on}` from the step; it runs no tests"
        f"{runs_none}"
    )


# A name that says the step tests something: "Test imports", "integration-tests", "Launch
# Error Handling Test 1"; not one that handles test results ("Upload test results").
_TEST_NAME = re.compile(r"(?<![A-Za-z])(?:unit|py)?test(?:s|ing)?(?![A-Za-z])|testsuite", re.I)
_GENERIC_STAGES = frozenset({"test", "tests", "testing"})
_RESULTS_NAME = re.compile(r"result|report|upload|publish|summar|coverage|artifact|junit", re.I)


def _runs_no_tests(knob: CiKnob, steps: Sequence[CiStep]) -> tuple[str, str]:
    """Why a knob on steps without a test run detlint sees is silent: they run no tests,
    or, when a step is named like one, detlint cannot tell."""
    named = _named_like_tests(knob, steps)
    if named is not None:
        return "named-like-tests", (
            f"the step is named like a test ({named}), but detlint sees no test runner in "
            f"what it runs ({_what_it_runs(knob, steps)}): whether the failures it hides are "
            "test failures is unknown"
        )
    return "runs-no-tests", f"the step runs no tests: {_what_it_runs(knob, steps)}"


def _named_like_tests(knob: CiKnob, steps: Sequence[CiStep]) -> str | None:
    """The name of a step the knob acts on that says it tests, if one does."""
    carrying = [command for step in steps for command in step.commands if knob in command.knobs]
    # A step's own knob by the step's name; a job's by the job's.
    names = [c.name for c in carrying if c.name] if carrying else [s.name for s in steps]
    # A stage named just "test" groups every check (lint too); a specific one says more.
    names += [
        f"stage {step.stage}"
        for step in steps
        if step.stage and not carrying and step.stage.lower() not in _GENERIC_STAGES
    ]
    for name in names:
        if _TEST_NAME.search(name) and not _RESULTS_NAME.search(name):
            return repr(name) if not name.startswith("stage ") else name
    return None


def _what_it_runs(knob: CiKnob, steps: Sequence[CiStep]) -> str:
    """The first commands a knob acts on, as written (two at most, each shortened)."""
    from detlint.rules.ci_reach import scope

    lines: list[str] = []
    for command in scope(knob, steps):
        for line in command.text.splitlines():
            line = " ".join(line.split())
            if line and not line.startswith("#") and line not in lines:
                lines.append(line)
    if not lines:
        called = next((step.calls for step in steps if step.calls), None)
        if called is not None:
            return f"it calls the reusable workflow `{called}`, whose jobs run no tests"
        action = knob.note.partition("on a step that runs ")[2]
        if action:
            return f"it runs {action.split(',')[0].split(';')[0]}"
        return "it runs no command detlint can read"
    shown = [f"`{line[:60]}{'…' if len(line) > 60 else ''}`" for line in lines[:2]]
    more = f" and {len(lines) - 2} more lines" if len(lines) > 2 else ""
    return ", ".join(shown) + more


def _run_verdicts(
    runs: Sequence[TestRun], at: dict[Span, list[str]], selected: frozenset[str] | None
) -> list[KnobVerdict]:
    """Rerun options on CI pytest commands and masked exit statuses: one entry per place
    they are written, however many steps run that place."""
    from detlint.rules.ci_costs import reruns_no_violation, reruns_visible

    found: dict[tuple[str, Span], KnobVerdict] = {}
    for run in runs:
        options = run.options
        if options.span is not None and ("rerun-option", options.span) not in found:
            value = ", ".join(options.flags)
            cause, reason = "", ""
            if not at.get(options.span):
                if not _selected("DET421", selected):
                    cause, reason = "rule-not-selected", "DET421 is not among the rules selected"
                elif reruns_visible(options):
                    cause, reason = (
                        "visible-reruns",
                        (
                            "--fail-on-flaky makes a test that passes only on a rerun fail the "
                            "step (exit 7): the reruns hide no failure"
                        ),
                    )
                elif reruns_no_violation(options):
                    cause, reason = (
                        "infrastructure-reruns",
                        ("--only-rerun/--rerun-except keep an assertion failure from rerunning"),
                    )
                else:
                    cause, reason = "unexplained", "no rule reported it: a gap in detlint"
            found["rerun-option", options.span] = _run_entry(
                run, "rerun-option", options.span, value, at, cause, reason
            )
        if run.run.masked is not None and ("masked-status", run.span) not in found:
            cause, reason = _masked_silence(run.span, at, selected)
            found["masked-status", run.span] = _run_entry(
                run, "masked-status", run.span, run.run.masked, at, cause, reason
            )
        if run.run.deferred is not None and ("masked-status", run.span) not in found:
            reason = (
                f"{run.run.deferred} catches pytest's failure and the script still fails "
                "the step on every path: deferred, not hidden"
            )
            found["masked-status", run.span] = _run_entry(
                run, "masked-status", run.span, run.run.deferred, at, "deferred", reason
            )
    return list(found.values())


def _other_verdicts(
    others: Sequence[OtherRun], at: dict[Span, list[str]], selected: frozenset[str] | None
) -> list[KnobVerdict]:
    """Masked statuses of tests run otherwise (``python -m unittest || true``): one entry
    per place, as for pytest runs."""
    found: dict[Span, KnobVerdict] = {}
    for other in others:
        if other.masked is None or other.span in found:
            continue
        cause, reason = _masked_silence(other.span, at, selected)
        found[other.span] = _entry(
            other.step, other.name, "masked-status", other.span, other.masked, at, cause, reason
        )
    return list(found.values())


def _masked_silence(
    span: Span, at: dict[Span, list[str]], selected: frozenset[str] | None
) -> tuple[str, str]:
    """Why DET431 is silent on a masked status: not selected, or a gap (none: reported)."""
    if at.get(span):
        return "", ""
    if not _selected("DET431", selected):
        return "rule-not-selected", "DET431 is not among the rules selected"
    return "unexplained", "no rule reported it: a gap in detlint"


def _run_entry(
    run: TestRun,
    kind: str,
    span: Span,
    value: str,
    at: dict[Span, list[str]],
    cause: str,
    reason: str,
) -> KnobVerdict:
    return _entry(run.step, run.run.launcher, kind, span, value, at, cause, reason)


def _entry(
    step: CiStep,
    key: str,
    kind: str,
    span: Span,
    value: str,
    at: dict[Span, list[str]],
    cause: str,
    reason: str,
) -> KnobVerdict:
    """A census entry of a command's own knob: a finding where a rule spoke at ``span``."""
    codes = tuple(sorted(at.get(span, ())))
    verdict: Verdict = (
        "finding" if codes else ("not-judged" if cause == "unexplained" else "no-finding")
    )
    return KnobVerdict(
        kind, step.system, key, value, span, step.name, verdict, codes, cause, reason
    )
