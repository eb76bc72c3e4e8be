"""DET411 job-retry: a job retry, a retry action or a retry written in the script that
reruns test failures: a failure is reported only if every run of the job fails.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from detlint.model import JobRetries, Policy
from detlint.rules.context import RuleContext, finding, loss_phrase, replay_clause
from detlint.rules.finding import Finding
from detlint.rules.fix_plans import (
    GITLAB_INFRASTRUCTURE,
    infrastructure_retry,
    job_retry_plan,
)

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
    from detlint.readers.ci.facts import CiKnob
from detlint.readers.ci.shell.state import RETRIED
from detlint.rules.ci_costs import (
    Pair,
    blocking_elsewhere,
    described,
    quoted_cost,
    runs_of,
    unseen_calls,
)
from detlint.rules.context import QUARANTINE

_BUILDKITE_HELP = (
    "keep retrying infrastructure failures and stop retrying the status failing tests "
    "give (pytest's 1, make's 2): `retry: {{automatic: {value}}}`"
)
_GITLAB_HELP = "retry infrastructure failures only: `retry: {value}`"
_RETRY_HELP = {
    "buildkite": _BUILDKITE_HELP.format(
        value="[{exit_status: -1, limit: 2}, {exit_status: 255, limit: 2}]"
    ),
    "gitlab": _GITLAB_HELP.format(value=f"{{max: 2, when: {GITLAB_INFRASTRUCTURE}}}"),
    "github": "retry timeouts only (`retry_on: timeout`), or drop the retry",
    "circleci": "drop `max_auto_reruns`, or keep it only on steps that run no tests",
}


def _retry_help(knob: CiKnob) -> str:
    """What to do instead, quoting the value the fix writes when there is a fix."""
    value = infrastructure_retry(knob)
    if value is None:
        return _RETRY_HELP[knob.system]
    return (_BUILDKITE_HELP if knob.system == "buildkite" else _GITLAB_HELP).format(value=value)


def _retry_pair(knob: CiKnob) -> Callable[[CiGate], Pair]:
    def pair(gate: CiGate) -> Pair:
        inside = gate.inside
        layers = [layer for k, layer in gate.retries if k == knob]
        return dataclasses.replace(inside, layers=(*inside.layers, *layers)), inside

    return pair


def job_retry(context: RuleContext) -> Iterator[Finding]:
    """DET411: a job retry (or a retry action) that reruns test failures."""
    if not context.ci_knobs:
        return  # nothing to import the CI linking for
    from detlint.compose.ci.gates import RETRY_KINDS

    for knob in context.ci_knobs:
        if knob.kind not in RETRY_KINDS or not knob.covers_tests or (knob.attempts or 0) < 2:
            continue
        runs = runs_of(knob, context)
        calls = unseen_calls(knob, runs, context)
        if calls is None:
            continue
        gates = context.ci_index.gates_by_retry.get(knob, [])
        plain = (Policy(layers=(JobRetries((knob.attempts or 1) - 1, knob.system),)), Policy())
        numbers, which, costliest = quoted_cost(gates, _retry_pair(knob), plain, context)
        which, details = described(knob, runs, calls, which, context)
        help_text = _retry_help(knob)
        what = f"`{knob.key}`"
        if knob.kind == "shell-retry":
            again = knob.key.removeprefix("|| ").removesuffix(" --lf")
            does = f"runs {again} again when it fails ({knob.attempts} attempts in all)"
            if knob.key.endswith(" --lf"):
                does = f"reruns the tests that failed ({knob.attempts} attempts in all)"
            elif knob.key.endswith(" reruns the failed tests"):  # a Python wrapper's own retry
                what = f"`{knob.key.removesuffix(' reruns the failed tests')}`"
                does = f"reruns the tests that failed ({knob.attempts} attempts in all)"
            elif knob.key == RETRIED:  # seen by the simulation, not by the syntax
                what = "the script"
                does = f"runs the tests again when they fail ({knob.attempts} attempts at least)"
            elif not knob.key.startswith("||"):
                kind = knob.key.split()[0]
                article = "an" if kind == "until" else "a"
                what = f"{article} `{kind}` loop of {knob.attempts} rounds"
                does = "runs the tests again until they pass"
            dropped = "the option" if what.startswith("`-") else "the retry from the script"
            help_text = (
                f"drop {dropped}, and give the flaky tests more in-test "
                f"trials or quarantine them visibly: {QUARANTINE}"
            )
        elif knob.key.endswith("continue-on-error"):  # a chain of attempt steps
            does = f"starts {knob.attempts} attempts (later steps rerun the tests when it fails)"
            help_text = (
                "let the first attempt block and drop the ones after it, and quarantine "
                f"the known-flaky tests visibly: {QUARANTINE}"
            )
        else:
            does = f"runs a failing job up to {knob.attempts} times"
        elsewhere = blocking_elsewhere(costliest, context)
        replay = ""
        if costliest is not None and which == f"in {costliest.label}":  # its numbers
            replay = replay_clause(
                costliest.base.test, "run of the job", "the retry hides", elsewhere=True
            )
        message = f"{what} {does}: {loss_phrase(numbers)} {which} ({details}){replay}{elsewhere}"
        yield finding("DET411", knob.span, message, help_text, numbers, fix=job_retry_plan(knob))
