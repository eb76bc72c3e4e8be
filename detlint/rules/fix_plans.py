"""The fix each rule proposes, as a plan: which construct to change and to what.

Plans are decided here, beside the rules, because the choice between fixes is
the rules' advice made concrete (drop the marker and raise the trial knob when
there is one, else quarantine visibly); the builders in :mod:`detlint.fixes`
only carry it out, or decline. Every plan here changes what CI does, so every
plan is unsafe in ruff's sense and is applied only with ``--unsafe-fixes``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detlint.base.span import Span
from detlint.readers.ci import YAML_SUFFIXES
from detlint.readers.python.trials import LITERAL_BOUND
from detlint.readers.reasons import tracking_reference
from detlint.rules.plans import (
    AddReason,
    DropMark,
    FixPlan,
    QuarantineMark,
    RemoveKey,
    RemoveOptions,
    ReplaceValue,
    UnmaskExit,
)

if TYPE_CHECKING:
    from detlint.compose.ci.run_options import RunOptions
    from detlint.compose.ci.test_run import TestRun
    from detlint.readers.ci.facts import CiKnob
    from detlint.readers.python.facts import Mark, TestFunction
    from detlint.rules.finding import Loss

# What a quarantine fix writes for the tracking issue nobody has named yet. It says
# "flaky", so DET201 keeps asking for the issue until one is written there.
DEFAULT_QUARANTINE_REASON = "flaky: <tracking issue>"

# Marks a decorator, a pytestmark entry or a pytest.param(marks=...) entry applies:
# places a fix can edit. Marks added by hooks or in a test's body are left alone.
_EDITABLE_SCOPES = frozenset({"function", "class", "module", "param"})

# Each rerun option and the options that only make sense with it.
_COMPANIONS = {
    "--reruns": ("--reruns", "--reruns-delay", "--only-rerun", "--rerun-except"),
    "--force-reruns": ("--force-reruns", "--reruns-delay", "--only-rerun", "--rerun-except"),
    "--retries": ("--retries", "--retry-delay", "--cumulative-timing"),
    "--force-flaky": ("--force-flaky", "--max-runs", "--min-passes"),
}

# GitLab's failure reasons that are the infrastructure's, not the tests'.
GITLAB_INFRASTRUCTURE = "[runner_system_failure, stuck_or_timeout_failure, api_failure]"


def rerun_mark_plan(
    mark: Mark,
    span: Span,
    test: TestFunction,
    numbers: Loss,
    reason: str | None,
    tracking_pattern: str,
) -> FixPlan | None:
    """DET101: drop the marker and raise the trial knob's default, or quarantine."""
    if mark.scope not in _EDITABLE_SCOPES:
        return None
    if any(isinstance(value, bool) or not isinstance(value, int) for value in mark.positional()):
        # `flaky(LINUX and PY39)`: the plugin reads it as a count (DET102), and which
        # tests the marker meant to rerun is the author's to say.
        return None
    trials, needed = test.trials, numbers.trials_needed
    # A literal bound (`for _ in range(5)`) is raised as the help says, like a default.
    literal = trials.origin == LITERAL_BOUND and trials.threshold is None
    if (trials.env is not None or literal) and trials.span is not None and needed is not None:
        if needed <= trials.count:  # the trials reach the target once the marker is gone
            return DropMark(
                message="Drop the rerun marker",
                applicability="unsafe",
                placeholder=None,
                mark=span,
            )
        raised = f"the default of {trials.env} to {needed}"
        if trials.env is None:
            raised = f"the trial loop from {trials.count} to {needed} iterations"
        return DropMark(
            message=f"Drop the rerun marker and raise {raised}",
            applicability="unsafe",
            placeholder=None,
            mark=span,
            trials=trials.span,
            env=trials.env,
            count=needed,
        )
    text = reason or DEFAULT_QUARANTINE_REASON
    issue = tracking_reference(mark.comment, tracking_pattern)
    if issue is not None:  # `# See https://github.com/dask/dask/issues/9793` on the marker
        text, reason = f"flaky, see {issue}", f"flaky, see {issue}"
    if mark.has_keyword("reason"):  # the marker's own reason is kept, with its condition
        return QuarantineMark(
            message="Replace the rerun marker by xfail(strict=False) with its reason",
            applicability="unsafe",
            placeholder=None,
            mark=span,
            reason=text,
        )
    return QuarantineMark(
        message=f'Replace the rerun marker by xfail(strict=False, reason="{text}")',
        applicability="unsafe",
        placeholder=text if reason is None else None,
        mark=span,
        reason=text,
    )


def tracking_reason_plan(
    mark: Mark, span: Span, reason: str | None, written: str
) -> FixPlan | None:
    """DET201: only with a configured ``quarantine-reason``; nobody else knows the issue.
    A reason that already holds it is left alone, so that a second ``--fix`` changes
    nothing."""
    if reason is None or mark.kind != "xfail" or mark.scope not in _EDITABLE_SCOPES:
        return None
    if reason in written:
        return None
    return AddReason(
        message=f'Name the tracking issue in the reason: "{reason}"',
        applicability="unsafe",
        placeholder=reason,
        mark=span,
        reason=reason,
    )


def soft_fail_plan(knob: CiKnob) -> FixPlan | None:
    """DET401: remove the key. A list of exit statuses (Buildkite's list, GitLab's
    ``exit_codes``) is left to the user, who knows which infrastructure statuses to keep."""
    statuses = knob.value.lstrip().startswith(("[", "-")) or "exit_codes" in knob.value
    if statuses or not knob.span.path.endswith(YAML_SUFFIXES):
        return None
    key = knob.key.rsplit(".", 1)[-1]
    return RemoveKey(
        message=f"Remove `{key}` so that test failures fail the build",
        applicability="unsafe",
        placeholder=None,
        span=knob.span,
        key=key,
    )


def infrastructure_retry(knob: CiKnob) -> str | None:
    """The value a DET411 fix gives a job retry's key (Buildkite's ``automatic``,
    GitLab's ``retry``) so that it retries infrastructure failures only, as often as
    it retried every failure; None when there is no such fix. The help line quotes
    it, so that the help and the fix say the same."""
    if knob.kind != "job-retry" or knob.attempts is None or knob.attempts < 2:
        return None
    limit = knob.attempts - 1
    key = knob.key.rsplit(".", 1)[-1]
    if knob.system == "buildkite" and key == "automatic":
        limit = max(limit, 2)  # Buildkite's own default for `automatic: true`
        return f"[{{exit_status: -1, limit: {limit}}}, {{exit_status: 255, limit: {limit}}}]"
    if knob.system == "gitlab" and key == "retry":
        return f"{{max: {limit}, when: {GITLAB_INFRASTRUCTURE}}}"
    return None


def job_retry_plan(knob: CiKnob) -> FixPlan | None:
    """DET411: a job retry of every failure becomes one of infrastructure failures."""
    value = infrastructure_retry(knob)
    if value is None:
        return None
    key = knob.key.rsplit(".", 1)[-1]
    return ReplaceValue(
        message=f"Retry infrastructure failures only: `{key}: {value}`",
        applicability="unsafe",
        placeholder=None,
        span=knob.span,
        key=key,
        value=value,
    )


def rerun_options_plan(options: RunOptions, span: Span, run: TestRun) -> FixPlan | None:
    """DET421: remove the rerun options (and their companions) from a pipeline's command
    or ``PYTEST_ADDOPTS``. A command continued over lines of a block script
    (``pytest \\`` then ``--reruns 3 \\``) is searched to its last line."""
    if not span.path.endswith((*YAML_SUFFIXES, "tox.ini")):
        return None
    lines = run.run.end_line - run.run.line
    if span == run.span and lines > 0 and span.column == 1 and span.end_line == span.line:
        span = Span(span.path, span.line, 1, span.line + lines, 1)
    return _remove_options(options.flags, span, command=True)


def config_reruns_plan(source: str, span: Span) -> FixPlan | None:
    """DET104: remove the option from ``addopts``; an ini key of its own is left alone."""
    if not source.startswith("addopts"):
        return None
    return _remove_options(tuple(source.split()[1:]), span)


def _remove_options(flags: tuple[str, ...], span: Span, command: bool = False) -> FixPlan | None:
    names: list[str] = []
    for flag in flags:
        name = flag.split("=", 1)[0].split()[0] if flag.strip() else ""
        for option in _COMPANIONS.get(name, (name,) if name.startswith("--") else ()):
            if option not in names:
                names.append(option)
    if not names:
        return None
    shown = ", ".join(f"`{name}`" for name in names if name in _COMPANIONS)
    return RemoveOptions(
        message=f"Remove {shown or 'the rerun options'} from the command line",
        applicability="unsafe",
        placeholder=None,
        span=span,
        options=tuple(names),
        command=command,
    )


_TEE_FIX = "Set `pipefail` before the pipe into tee"
_FIXABLE_MASKS = ("`|| true`", "`|| :`", "`|| exit 0`", "`| tee`")


def unmask_plan(run: TestRun) -> FixPlan | None:
    """DET431: drop ``|| true`` after pytest; give ``| tee`` pipefail."""
    masked = run.run.masked or ""
    if not masked.startswith(_FIXABLE_MASKS) or not run.span.path.endswith(YAML_SUFFIXES):
        return None
    tee = masked.startswith("`| tee`")
    return UnmaskExit(
        message="Set `pipefail` before the pipe into tee"
        if tee
        else f"Remove {masked} after pytest",
        applicability="unsafe",
        placeholder=None,
        span=run.span,
        masked=masked,
        system=run.step.system,
        step=run.step.span,
    )
