"""DET421 for a rerun option on a pytest command written where no pipeline of the
repository runs it: a shell script, a Makefile recipe, a Python launcher, a noxfile.

Such a command is run by hand or by a CI system outside the repository, so detlint
cannot tell which tests it runs or under which configuration; the option reruns every
failing one of them all the same. The figures are those of a single-attempt test, as
DET104 quotes them for a setting whose tests are not linked one by one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from detlint.compose.plugins import RETRY
from detlint.compose.rerun_layers import suite_cap_note
from detlint.model import FlakyRuns, Layer, Policy, Reruns
from detlint.rules.ci_costs import reruns_no_violation, reruns_visible
from detlint.rules.context import (
    QUARANTINE,
    RuleContext,
    finding,
    loss_phrase,
    single_attempt_loss,
)
from detlint.rules.finding import Finding, Loss

if TYPE_CHECKING:
    from detlint.compose.ci.run_options import RunOptions
    from detlint.compose.ci.unreached_runs import UnreachedRun

_HELP = (
    "drop the flag and give the tests that need it more in-test trials, or quarantine the "
    f"known-flaky ones visibly: {QUARANTINE}; or keep the reruns visible with "
    "`--fail-on-flaky` (pytest-rerunfailures: a test that passes only on a rerun makes the "
    "run exit 7)"
)


def unreached_reruns(context: RuleContext) -> Iterator[Finding]:
    """DET421: a rerun option on a command no pipeline of the repository runs."""
    for unreached in context.unreached:
        options, written = unreached.options, unreached.written
        if options.span is None:
            if written.unread is not None:
                yield _unread_count(unreached)
            continue  # a count of 0: nothing is rerun
        if reruns_no_violation(options) or reruns_visible(options):
            continue  # --only-rerun OSError ... or --fail-on-flaky: no failure is hidden
        cap = options.max_suite_reruns
        if cap is not None and cap.value <= 0:
            continue
        numbers = _single_attempt(options, context)
        message = (
            f"`{', '.join(options.flags)}` {_place(unreached)} reruns {_reach(options)}: "
            f"{loss_phrase(numbers)} in a single-attempt test (the tests it runs are not "
            "known statically)"
        )
        if cap is not None:
            message += f"; {suite_cap_note(cap.value)}"
        yield finding("DET421", written.span, message, _HELP, numbers)


def _place(unreached: UnreachedRun) -> str:
    """Where the command is written, and that no pipeline here runs it."""
    written = unreached.written
    return (
        f"on the pytest command written in {written.where} `{written.span.path}`, which no "
        "pipeline of this repository that detlint reads runs (it is run by hand, by a CI "
        "system outside the repository, or by one detlint does not read, such as Jenkins),"
    )


def _reach(options: RunOptions) -> str:
    """Which failing tests of the command the winning option reruns."""
    if options.force_reruns is not None and options.force_reruns.value:
        words = "every failing test it runs, whatever its marker says (--force-reruns)"
    elif options.reruns is not None and options.reruns.value:
        words = "every failing test it runs without a `flaky` marker of its own"
        if options.reruns_mode == "append":
            words = (
                "every failing test it runs, and adds to each `flaky` marker's own count "
                "(--reruns-mode append)"
            )
    elif options.retries is not None and options.retries.value:
        words = "every failing test it runs, and those with a bare `flaky` marker too"
    else:
        runs = f"max_runs={options.max_runs or 2}, min_passes={options.min_passes or 1}"
        words = f"every failing test it runs ({runs}) without a flaky marker of its own"
    if options.rerun_exclude_paths:
        paths = ", ".join(f"`{path}`" for path in options.rerun_exclude_paths)
        words += f" outside {paths} (--rerun-exclude-path)"
    return words


def _single_attempt(options: RunOptions, context: RuleContext) -> Loss:
    """The numbers of a test of one attempt under the command's winning option."""
    setting = options.force_reruns or options.reruns
    layer: Layer = FlakyRuns(options.max_runs or 2, options.min_passes or 1)
    if setting is not None and setting.value:
        layer = Reruns(setting.value)
    elif options.retries is not None and options.retries.value:
        layer = Reruns(options.retries.value, RETRY)
    return single_attempt_loss(Policy(layers=(layer,)), context)


def _unread_count(unreached: UnreachedRun) -> Finding:
    """A rerun option whose count is not a literal: named, not guessed."""
    written = unreached.written
    option = written.unread or ""
    value = option.split("=", 1)[-1] if "=" in option else option.partition(" ")[2]
    message = (
        f"`{option}` {_place(unreached)} reruns every failing test it runs, with a count "
        f"detlint cannot read (`{value}`): a violation in a rerun test is reported only "
        "when every attempt fails"
    )
    return finding("DET421", written.span, message, _HELP)
