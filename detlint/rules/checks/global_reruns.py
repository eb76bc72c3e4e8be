"""DET104 global-reruns: reruns for every test from pytest's configuration."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from detlint.base.percentages import percent, percent_label
from detlint.base.span import Span
from detlint.compose.filters import rerunfailures_filter
from detlint.compose.plugins import RERUNFAILURES, RETRY
from detlint.compose.rerun_layers import suite_cap_note
from detlint.model import FlakyRuns, Layer, Policy, Reruns
from detlint.readers.project.pytest_config import IntSetting, PytestConfig
from detlint.rules.checks.skipped_flaky import deselects
from detlint.rules.ci_costs import reruns_no_violation, reruns_visible
from detlint.rules.context import (
    SCRIPT_CONDITION,
    RuleContext,
    covers,
    finding,
    loss_phrase,
    replay_clause,
    single_attempt_loss,
    trials_phrase,
    worst,
)
from detlint.rules.finding import Finding, Loss
from detlint.rules.fix_plans import config_reruns_plan

if TYPE_CHECKING:
    from detlint.compose.ci.run_options import RunOptions
    from detlint.compose.ci.script_runs import ScriptGate, ScriptLink
    from detlint.compose.test_gate import TestGate


def global_reruns(context: RuleContext) -> Iterator[Finding]:
    """DET104: reruns for every unmarked test from pytest's configuration."""
    q = context.reference_rate
    knobs: dict[Span, tuple[str, Layer]] = {}
    sources: dict[Span, str] = {}  # how each setting is written ("addopts --reruns")
    caps: dict[Span, str] = {}  # the --max-suite-reruns that makes a loss the most it can be
    for config in context.configs:
        for setting, plugin, reach in _settings(config):
            if plugin == RERUNFAILURES and config.fail_on_flaky is not None:
                continue  # a pass on a rerun fails the run (exit 7): nothing is hidden
            if plugin == RERUNFAILURES and _filtered_out(config):
                continue  # ``--only-rerun NoBrokersAvailable``: an assertion is never rerun
            if setting is not None and setting.value > 0:
                if plugin == RERUNFAILURES:
                    session = _session(config)
                    if session is None:
                        continue
                    reach += session
                    if config.max_suite_reruns is not None:
                        caps[setting.span] = f" ({suite_cap_note(config.max_suite_reruns.value)})"
                what = f"{setting.source} {setting.value} reruns {reach}"
                knobs.setdefault(setting.span, (what, Reruns(setting.value, plugin)))
                sources.setdefault(setting.span, setting.source)
        if config.force_flaky is not None:
            what = (
                f"--force-flaky reruns every test (max_runs={config.max_runs}, "
                f"min_passes={config.min_passes})"
            )
            flaky: Layer = FlakyRuns(config.max_runs, config.min_passes)
            knobs.setdefault(config.force_flaky, (what, flaky))
            sources.setdefault(config.force_flaky, "addopts --force-flaky")
    for span, (what, layer) in sorted(knobs.items()):
        covered = covered_tests(context, span)
        if covered:
            gate, numbers = worst(covered, context)
            message = (
                f"{what}: {loss_phrase(numbers)} in {gate.label} ({trials_phrase(gate.test)})"
                f"{covers(covered)}{caps.get(span, '')}"
            )
        else:
            numbers = single_attempt_loss(Policy(layers=(layer,)), context)
            message = (
                f"{what}: a test failing {percent_label(q)} of its attempts is reported "
                f"{percent(numbers.reported)} of the time instead of {percent_label(q)}"
                f"{caps.get(span, '')}"
            )
        yield finding(
            "DET104",
            span,
            message,
            "remove the global setting; mark the few tests that need reruns, or quarantine them "
            "visibly with xfail(strict=False) and a tracking issue",
            numbers,
            fix=config_reruns_plan(sources[span], span),
        )


_CONFIG_KINDS = ("config-reruns", "config-retries", "config-force-flaky")


def covered_tests(context: RuleContext, span: Span) -> list[TestGate]:
    """The tests the setting at ``span`` reruns, where that hides failures: each one
    without a marker of its own that wins over it (a test whose marker replaces the
    global count has no knob of the config's), and whose gate blocks."""
    return [
        gate
        for gate in context.gates
        if any(knob.kind in _CONFIG_KINDS and knob.span == span for knob in gate.knobs)
        and gate.policy.gate.blocks
        and not gate.policy.inverted
        and any(layer.masks for layer in gate.policy.layers)
    ]


def _settings(config: PytestConfig) -> list[tuple[IntSetting | None, str, str]]:
    """The config's rerun counts: (setting, the plugin that reads it, the tests it reaches)."""
    append = config.reruns_mode == "append"
    return [
        (config.force_reruns, RERUNFAILURES, "--force-reruns overrides every marker"),
        (
            config.reruns,
            RERUNFAILURES,
            "every test, and adds to each marker's own count (--reruns-mode append)"
            if append
            else "every test without its own marker",
        ),
        (config.retries, RETRY, "every test, and bare markers too"),
    ]


def _filtered_out(config: PytestConfig) -> bool:
    """Whether the configuration's own ``--only-rerun``/``--rerun-except`` keep an
    assertion failure from being rerun: its reruns then hide no violation. A marker's
    filters replace these for its test, so DET101 judges marked tests on their own."""
    if not config.only_rerun and not config.rerun_except:
        return False
    return rerunfailures_filter(None, config.only_rerun, config.rerun_except).masks is False


def _session(config: PytestConfig) -> str | None:
    """What pytest-rerunfailures' session options add to the reach of the config's reruns
    (``""`` for nothing), or None when they leave it nothing to rerun (a cap of 0)."""
    cap = config.max_suite_reruns
    if cap is not None and cap.value <= 0:
        return None
    if not config.rerun_exclude_paths:
        return ""
    paths = ", ".join(f"`{path}`" for path in config.rerun_exclude_paths)
    return f" outside {paths} (--rerun-exclude-path)"


def _unread_option(link: ScriptLink) -> str | None:
    """The rerun option whose count detlint cannot read, when no count it can read
    reruns the file's tests: ``--reruns`` with a computed value, or ``--force-flaky``
    with a computed ``--max-runs``."""
    dynamic, options = link.args.dynamic_options, link.options
    if options.span is None:
        return next((name for name in _COUNTS if name in dynamic), None)
    if _option(options) == "--force-flaky":
        return next((name for name in _FLAKY_COUNTS if name in dynamic), None)
    return None


_COUNTS = ("--force-reruns", "--reruns", "--retries")
_FLAKY_COUNTS = ("--max-runs", "--min-passes")


def script_reruns(context: RuleContext) -> Iterator[Finding]:
    """DET104 for a test module's own ``pytest.main(["--reruns", "3", __file__])``: every
    test of the file is rerun when the file is run as a script, as a command line's
    ``--reruns`` would; a marker of a test's own wins as it does over the command line."""
    for link in context.scripts:
        if link.stopped is not None:
            continue  # pytest refuses the arguments: no test runs, none is rerun
        options = link.options
        unread = _unread_option(link)
        if unread is not None:
            yield _unread_count(link, unread)
            continue
        if options.span is None or reruns_no_violation(options) or reruns_visible(options):
            continue  # no count, or one that hides no assertion failure (--only-rerun OSError)
        if options.max_suite_reruns is not None and options.max_suite_reruns.value <= 0:
            continue
        found = _quoted(link, context)
        if found is None:
            continue  # every test of the file keeps a knob of its own: the option reaches none
        numbers, which, affected = found
        message = (
            f"`{', '.join(options.flags)}` in the file's own pytest.main reruns "
            f"{_reach(_option(options), options)}, {SCRIPT_CONDITION}: {loss_phrase(numbers)} "
            f"{which}"
            f"{covers([gate.base for gate in affected])}{_unread_parts(link)}"
        )
        if affected:
            message += replay_clause(affected[0].base.test, "rerun", "the option hides")
        if options.max_suite_reruns is not None:
            message += f"; {suite_cap_note(options.max_suite_reruns.value)}"
        yield finding("DET104", link.run.span, message, _SCRIPT_HELP, numbers)


_SCRIPT_HELP = (
    "drop the rerun option from pytest.main; mark the few tests that need reruns, or "
    "quarantine them visibly with xfail(strict=False) and a tracking issue"
)


def _quoted(link: ScriptLink, context: RuleContext) -> tuple[Loss, str, list[ScriptGate]] | None:
    """The numbers of the test the option costs most (first in the list returned, with
    every test it changes), or of a single-attempt test when the file has none linked;
    None when it has tests and the option changes none of them."""
    q = context.reference_rate
    affected = [
        gate
        for gate in link.gates
        if gate.inside.reported(q) < gate.own.reported(q)
        and not deselects(link.args.markexpr, gate.base)
    ]
    if affected:
        affected.sort(key=lambda g: (g.inside.reported(q) - g.own.reported(q), g.base.label))
        gate = affected[0]
        return _loss(gate.inside, gate.own, context, gate), f"in {gate.base.label}", affected
    if link.gates:
        return None
    options = link.options
    setting = options.force_reruns or options.reruns or options.retries
    layer: Layer = FlakyRuns(options.max_runs or 2, options.min_passes or 1)
    if setting is not None:
        layer = Reruns(setting.value)
    numbers = _loss(Policy(layers=(layer,)), Policy(), context)
    return numbers, "in a single-attempt test", []


def _loss(
    inside: Policy, own: Policy, context: RuleContext, gate: ScriptGate | None = None
) -> Loss:
    q, target = context.reference_rate, context.target
    return Loss(
        reference_rate=q,
        target=target,
        trials=inside.trials,
        trials_env=gate.base.test.trials.env if gate is not None else None,
        reported=inside.reported(q),
        reported_without=own.reported(q),
        visible=inside.visible(q),
        trials_needed=Policy(trials=own.trials, threshold=own.threshold).trials_needed(q, target),
        instances=gate.base.instances if gate is not None else None,
    )


def _reach(option: str, options: RunOptions) -> str:
    """Which failing tests of the file ``option`` reruns."""
    if option == "--force-reruns":
        return "every failing test of the file, whatever its marker says (--force-reruns)"
    if option == "--reruns":
        if options.reruns_mode == "append":
            return (
                "every failing test of the file, and adds to each `flaky` marker's own count "
                "(--reruns-mode append)"
            )
        return "every failing test of the file without a `flaky` marker of its own"
    if option == "--retries":
        return "every failing test of the file, and those with a bare `flaky` marker too"
    runs = f" (max_runs={options.max_runs or 2}, min_passes={options.min_passes or 1})"
    if option != "--force-flaky":
        runs = ""  # a --max-runs or --min-passes detlint cannot read
    return f"every failing test of the file{runs} without a flaky marker or decorator of its own"


def _option(options: RunOptions) -> str:
    """The option of ``_reach`` that sets the count: the one that wins."""
    if options.force_reruns is not None:
        return "--force-reruns"
    if options.reruns is not None:
        return "--reruns"
    return "--retries" if options.retries is not None else "--force-flaky"


def _unread_parts(link: ScriptLink) -> str:
    """What is joined to the argument list that detlint cannot read, named."""
    if not link.unread:
        return ""
    parts = ", ".join(f"`{part}`" for part in link.unread)
    return f"; detlint cannot read {parts}, which may add to these options or override them"


def _unread_count(link: ScriptLink, name: str) -> Finding:
    """DET104 for a rerun option whose count the file computes: named, not guessed."""
    value = next(
        (option.value for option in reversed(link.args.options) if option.name == name), ""
    )
    message = (
        f"`{name} {value}` in the file's own pytest.main reruns "
        f"{_reach(name, link.options)}, {SCRIPT_CONDITION}, with a count detlint cannot read "
        f"(`{value}`): a violation in a rerun test is reported only when every attempt fails"
        f"{_unread_parts(link)}"
    )
    return finding("DET104", link.run.span, message, _SCRIPT_HELP)
