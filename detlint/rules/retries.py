"""Rules on retries: DET101 retry-marker, DET102 marker-plugin-mismatch,
DET103 retry-decorator, DET104 global-reruns."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from detlint.finding import Finding, Loss
from detlint.plugins import FLAKY, KEYWORDS, RERUNFAILURES, RETRY
from detlint.python_pass.facts import Mark
from detlint.report.numbers import percent, percent_label
from detlint.span import Span

if TYPE_CHECKING:
    from detlint.model import Policy

from detlint.rules.context import (
    RuleContext,
    alternatives,
    covers,
    finding,
    group_by_mark,
    loss_phrase,
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
    """DET101: every rerun marker or flaky decorator that lowers detection."""
    groups = group_by_mark(context.gates, ("rerun-marker", "flaky-decorator"))
    for span, (mark, gates) in sorted(groups.items()):
        masking = [gate for gate in gates if any(layer.masks for layer in gate.policy.layers)]
        if not masking:
            continue
        gate, numbers = worst(masking, context)
        what = "flaky decorator" if mark.kind == "flaky-decorator" else "rerun marker"
        details = [_layer_text(gate.policy)]
        if mark.via:
            details.append(f"through {' -> '.join(mark.via)}")
        if gate.plugin is not None:
            details.append(gate.plugin.evidence)
        details.append(trials_phrase(gate.test))
        message = (
            f"{what} hides intermittent failures: {loss_phrase(numbers)} "
            f"({'; '.join(details)}{covers(masking)})"
        )
        help_text = alternatives(gate.test, numbers, "drop the marker")
        related = [mark.definition] if mark.definition is not None else []
        yield finding("DET101", span, message, help_text, numbers, related)


def _mismatch(mark: Mark, plugin: str | None) -> str | None:
    keywords = {argument.name for argument in mark.arguments if argument.name}
    if plugin == FLAKY and "reruns" in keywords:
        return (
            "`reruns=` is not an argument of the flaky package's marker: the test errors with "
            "a TypeError at setup instead of running"
        )
    if plugin is None:
        return None
    foreign = sorted(
        keyword
        for keyword in keywords
        if keyword not in KEYWORDS[plugin]
        and keyword != "condition"
        and any(keyword in names for names in KEYWORDS.values())
    )
    if plugin == RETRY and mark.positional():
        return "pytest-retry ignores positional arguments: this marker retries once"
    if foreign:
        names = ", ".join(f"{name}=" for name in foreign)
        if plugin == RERUNFAILURES:
            return f"pytest-rerunfailures ignores {names}: the marker reruns once, like a bare one"
        if plugin == RETRY:
            return f"pytest-retry ignores {names}: the marker retries once"
        return f"the flaky package does not accept {names}"
    positional = mark.positional()
    if plugin == RERUNFAILURES and positional and isinstance(positional[0], bool):
        count = int(positional[0])
        return (
            f"a positional {positional[0]} is read as the rerun count ({count}), "
            "not as a condition; write condition=... for that"
        )
    return None


def marker_plugin_mismatch(context: RuleContext) -> Iterator[Finding]:
    """DET102: arguments the plugin ignores or rejects, and plugins fighting over `flaky`."""
    groups = group_by_mark(context.gates, ("rerun-marker",))
    for span, (mark, gates) in sorted(groups.items()):
        choice = gates[0].plugin
        if choice is None:
            continue
        if choice.conflict:
            names = " and ".join(sorted(choice.declared))
            yield finding(
                "DET102",
                span,
                f"{names} are all declared and both claim `flaky`: which one reads this marker "
                "depends on install order, and the other's arguments are ignored or rejected",
                "keep one rerun plugin in the dependencies (or disable the others with "
                "`-p no:NAME` in addopts)",
            )
            continue
        if not choice.declared and context.dependencies_declared:
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
            yield finding(
                "DET102",
                span,
                f"{problem} ({choice.evidence})",
                "write the arguments of the plugin that is installed, or drop the marker",
            )


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
    for config in context.configs:
        for setting, plugin, reach in (
            (config.force_reruns, RERUNFAILURES, "--force-reruns overrides every marker"),
            (config.reruns, RERUNFAILURES, "every test without its own marker"),
            (config.retries, RETRY, "every test, and bare markers too"),
        ):
            if setting is not None and setting.value > 0:
                what = f"{setting.source} {setting.value} reruns {reach}"
                knobs.setdefault(setting.span, (what, Reruns(setting.value, plugin)))
        if config.force_flaky is not None:
            what = (
                f"--force-flaky reruns every test (max_runs={config.max_runs}, "
                f"min_passes={config.min_passes})"
            )
            flaky: Layer = FlakyRuns(config.max_runs, config.min_passes)
            knobs.setdefault(config.force_flaky, (what, flaky))
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
        )
