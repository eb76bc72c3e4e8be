"""Rules on retries: DET101 retry-marker, DET102 marker-plugin-mismatch,
DET103 retry-decorator, DET104 global-reruns."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from detlint.base.percentages import percent, percent_label
from detlint.base.span import Span
from detlint.compose.plugins import FLAKY, KEYWORDS, RERUNFAILURES, RETRY, all_declared
from detlint.compose.retry_counts import looks_boolean
from detlint.readers.python.facts import Dynamic, Mark
from detlint.rules.finding import Finding, Loss
from detlint.rules.fix_plans import config_reruns_plan, rerun_mark_plan

if TYPE_CHECKING:
    from detlint.compose.test_policy import TestGate
    from detlint.model import Policy

from detlint.rules.context import (
    RuleContext,
    alternatives,
    covers,
    elsewhere,
    finding,
    group_by_mark,
    loss_phrase,
    runs_somewhere_else,
    trials_phrase,
    worst,
)


def _layer_text(policy: Policy) -> str:
    """The masking layers as their knobs are written: ``reruns=3``, ``max_runs=3, min_passes=1``."""
    from detlint.model import FlakyRuns, Reruns

    parts = []
    for layer in policy.layers:
        if isinstance(layer, Reruns) and layer.masks:
            word = "reruns" if layer.plugin == RERUNFAILURES else "retries"
            parts.append(f"{word}={layer.count}")
        elif isinstance(layer, FlakyRuns) and layer.masks:
            parts.append(f"max_runs={layer.max_runs}, min_passes={layer.min_passes}")
    return ", ".join(parts)


def retry_marker(context: RuleContext) -> Iterator[Finding]:
    """DET101: every rerun marker or flaky decorator that lowers detection.

    The numbers are those of the test's primary environment, where it runs; a
    test that never runs or never blocks there (an unconditional skip or xfail)
    loses nothing to its marker, and its gate has a rule of its own.
    """
    groups = group_by_mark(context.gates, ("rerun-marker", "flaky-decorator"))
    for span, (mark, gates) in sorted(groups.items()):
        masking = [
            gate
            for gate in gates
            if gate.policy.gate.blocks and any(layer.masks for layer in gate.policy.layers)
        ]
        if not masking:
            continue
        gate, numbers = worst(masking, context)
        what = "flaky decorator" if mark.kind == "flaky-decorator" else "rerun marker"
        details = [_layer_text(gate.policy)]
        condition = _retry_condition(gate)
        if condition:
            details[0] += f" where {condition}"
        if mark.via:
            details.append(f"through {' -> '.join(mark.via)}")
        if gate.plugin is not None:
            details.append(gate.plugin.evidence)
        details += _filter_notes(gate)
        details.append(trials_phrase(gate.test))
        where = " where the test runs" if runs_somewhere_else(gate) else ""
        message = (
            f"{what} hides intermittent failures: {_cost(numbers, gate)}{where} "
            f"({'; '.join(details)}{covers(masking)}){elsewhere(gate, context.reference_rate)}"
        )
        help_text = alternatives(gate.test, numbers, "drop the marker")
        related = [mark.definition] if mark.definition is not None else []
        plan = rerun_mark_plan(
            mark, span, gate.test, numbers, context.quarantine_reason, context.tracking_pattern
        )
        yield finding("DET101", span, message, help_text, numbers, related, fix=plan)


def _retry_condition(gate: TestGate) -> str:
    """Where a conditional retry applies ("`sys.platform == 'win32'`")."""
    for knob in gate.knobs:
        if knob.mark is gate.rerun_mark and knob.kind in ("rerun-marker", "flaky-decorator"):
            return knob.condition
    return ""


def _filter_notes(gate: TestGate) -> list[str]:
    return [note for note in gate.notes if "detlint does not evaluate" in note]


def _cost(numbers: Loss, gate: TestGate) -> str:
    """The loss at the reference rate; where it rounds away (a long trial loop
    catches the reference rate either way), the rate reported half the time."""
    phrase = loss_phrase(numbers)
    if not phrase.endswith("with or without it"):
        return phrase
    with_knob, without = gate.policy.q50(), gate.policy.baseline().q50()
    if with_knob is None or without is None:
        return phrase
    return (
        f"{phrase}, but a violation is reported half the time only from a rate of "
        f"{percent(with_knob)} with it, {percent(without)} without"
    )


# Keywords the rerun plugins let through without a word: `condition` (both read it),
# and `reason`, which projects write on markers to say why (dask: reason="<issue URL>").
# The flaky package takes neither: any keyword but its own three is a TypeError.
_ACCEPTED_EVERYWHERE = frozenset({"condition", "reason"})
_PLUGIN_NAMES = {RERUNFAILURES: "pytest-rerunfailures", RETRY: "pytest-retry", FLAKY: "flaky"}


def _suggestion(keyword: str, plugin: str) -> str:
    close = difflib.get_close_matches(keyword, sorted(KEYWORDS[plugin] | {"condition"}), n=1)
    return f" (did you mean `{close[0]}=`?)" if close else ""


def _mismatch(mark: Mark, plugin: str | None) -> str | None:
    """What the plugin that reads the marker does with arguments it does not take."""
    keywords = [argument.name for argument in mark.arguments if argument.name]
    if plugin is None:
        return None
    # The flaky package's marker takes its three arguments and nothing else.
    accepted = KEYWORDS[plugin] | (_ACCEPTED_EVERYWHERE if plugin != FLAKY else frozenset())
    unknown = sorted({k for k in keywords if k not in accepted})
    if plugin == FLAKY and unknown:
        names = ", ".join(f"`{name}=`" for name in unknown)
        return (
            f"{names} {'is not an argument' if len(unknown) == 1 else 'are not arguments'} of "
            "the flaky package's marker: the test errors with a TypeError at setup instead "
            "of running"
        )
    if plugin == RETRY and mark.positional():
        return "pytest-retry ignores positional arguments: this marker retries once"
    name = _PLUGIN_NAMES[plugin]
    if unknown:
        foreign = [k for k in unknown if any(k in names for names in KEYWORDS.values())]
        counted = (
            "reruns" in keywords or bool(mark.positional())
            if plugin == RERUNFAILURES
            else ("retries" in keywords)
        )
        parts = [f"`{k}=`{_suggestion(k, plugin)}" for k in unknown]
        consequence = ""
        if foreign and not counted:
            consequence = (
                ": the marker reruns once, like a bare one"
                if plugin == RERUNFAILURES
                else ": the marker retries once"
            )
        elif plugin == RERUNFAILURES:
            consequence = (
                ": it reruns every failure (only_rerun= and rerun_except= choose which)"
                if not {"only_rerun", "rerun_except"} & set(keywords)
                else ""
            )
        return f"{name} ignores {', '.join(parts)}{consequence}"
    positional = mark.positional()
    if plugin == RERUNFAILURES and positional and not mark.has_keyword("reruns"):
        first = positional[0]
        if isinstance(first, bool):
            return (
                f"a positional {first} is read as the rerun count ({int(first)}), "
                "not as a condition; write condition=... for that"
            )
        if isinstance(first, Dynamic) and looks_boolean(first.source):
            return (
                f"a positional `{first.source}` is read as the rerun count, not as a condition: "
                "one rerun where it is true, none where it is false; write condition=... for "
                "a condition and reruns=N for the count"
            )
    return None


def marker_plugin_mismatch(context: RuleContext) -> Iterator[Finding]:
    """DET102: arguments the plugin ignores or rejects, and plugins fighting over `flaky`."""
    groups: dict[Span, tuple[Mark, list[TestGate]]] = {}
    for use, (mark, gates) in group_by_mark(context.gates, ("rerun-marker",)).items():
        # A marker alias's arguments are one mistake, where the alias is written, however
        # many tests use it (celery's conftest `flaky` on 55 tests).
        groups.setdefault(_arguments_written_at(mark, use), (mark, []))[1].extend(gates)
    for span, (mark, gates) in sorted(groups.items()):
        choice = gates[0].plugin
        if choice is None:
            continue
        if choice.conflict:
            two = len(choice.declared) == 2
            claim, others = ("claim", "other's") if two else ("each claims", "others'")
            yield finding(
                "DET102",
                span,
                f"{all_declared(choice.declared)} and {claim} `flaky`: which one reads this "
                f"marker depends on install order, and the {others} arguments are ignored or "
                "rejected",
                "keep one rerun plugin in the dependencies (or disable the "
                f"{'other' if two else 'others'} with `-p no:NAME` in addopts)",
            )
            continue
        # Only a project that declares its dependencies (every file read) says a missing
        # plugin is missing: ``PluginEvidence.declares``, per project.
        if not choice.declared and choice.declares:
            yield finding(
                "DET102",
                span,
                "no rerun plugin is declared in this project's dependencies: unless one is "
                "installed some other way, this marker does nothing (pytest warns "
                "PytestUnknownMarkWarning; with --strict-markers it is a collection error)",
                "declare the plugin the marker is written for (pytest-rerunfailures, flaky or "
                "pytest-retry), or register `flaky` in the ini `markers` if it is only a tag",
                severity="warning",
            )
            continue
        problem = _mismatch(mark, choice.plugin)
        if problem is not None:
            uses = len({gate.test.nodeid for gate in gates})
            reach = f"; {uses} tests use it" if span != mark.span and uses > 1 else ""
            yield finding(
                "DET102",
                span,
                f"{problem} ({choice.evidence}{reach})",
                "write the arguments of the plugin that is installed, or drop the marker",
            )


def _arguments_written_at(mark: Mark, use: Span) -> Span:
    """Where a marker's arguments are written: the alias's definition when they all sit
    there, else the use site (``fl = pytest.mark.flaky`` then ``@fl(reruns=2)``)."""
    definition = mark.definition
    if definition is None or not mark.arguments:
        return use
    inside = all(
        argument.span.path == definition.path
        and definition.line <= argument.span.line <= definition.end_line
        for argument in mark.arguments
    )
    return definition if inside else use


def retry_decorator(context: RuleContext) -> Iterator[Finding]:
    """DET103: tenacity/backoff/configured retry decorators around tests."""
    groups = group_by_mark(context.gates, ("retry-decorator",))
    if not groups:
        return
    from detlint.model import Reruns

    for span, (mark, gates) in sorted(groups.items()):
        gate, numbers = worst(gates, context)
        reruns = next((layer for layer in gate.policy.layers if isinstance(layer, Reruns)), None)
        if reruns is None or not numbers.reported < numbers.reported_without:
            message = (
                f"retry decorator {mark.name} around a test with no literal attempt limit: a "
                "violation is reported only if every attempt shows it "
                f"({trials_phrase(gate.test)}{covers(gates)})"
            )
        else:
            message = (
                f"retry decorator {mark.name} hides intermittent failures: "
                f"{loss_phrase(numbers)} ({reruns.count + 1} attempts; "
                f"{trials_phrase(gate.test)}{covers(gates)})"
            )
        yield finding(
            "DET103",
            span,
            message,
            alternatives(gate.test, numbers, "retry the flaky operation, not the assertion,"),
            numbers,
        )


def global_reruns(context: RuleContext) -> Iterator[Finding]:
    """DET104: reruns for every unmarked test from pytest's configuration."""
    from detlint.model import FlakyRuns, Layer, Policy, Reruns  # only with config to judge

    q, target = context.reference_rate, context.target
    knobs: dict[Span, tuple[str, Layer]] = {}
    sources: dict[Span, str] = {}  # how each setting is written ("addopts --reruns")
    for config in context.configs:
        for setting, plugin, reach in (
            (config.force_reruns, RERUNFAILURES, "--force-reruns overrides every marker"),
            (config.reruns, RERUNFAILURES, "every test without its own marker"),
            (config.retries, RETRY, "every test, and bare markers too"),
        ):
            if setting is not None and setting.value > 0:
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
        policy = Policy(layers=(layer,))
        numbers = Loss(
            reference_rate=q,
            target=target,
            trials=1,
            trials_env=None,
            reported=policy.reported(q),
            reported_without=policy.baseline().reported(q),
            visible=policy.visible(q),
            trials_needed=policy.baseline().trials_needed(q, target),
            instances=None,
        )
        yield finding(
            "DET104",
            span,
            f"{what}: a test failing {percent_label(q)} of its attempts is reported "
            f"{percent(numbers.reported)} of the time instead of {percent_label(q)}",
            "remove the global setting; mark the few tests that need reruns, or quarantine them "
            "visibly with xfail(strict=False) and a tracking issue",
            numbers,
            fix=config_reruns_plan(sources[span], span),
        )
