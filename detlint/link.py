"""Linking: every layer that applies to one test, composed into a ``Policy``.

A test's chance of turning a violation into a red build depends on its trial
loop, its retry decorator, the closest ``flaky`` marker read under whichever
plugin is installed (or the global reruns from pytest's config when it has no
marker), pytest-repeat, and the xfail/skip gate. This module decides each of
those from the facts, in the order they act, and records why.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from detlint.dependencies import PluginEvidence
from detlint.model import (
    BLOCKING,
    SKIP,
    XFAIL,
    FlakyRuns,
    Gate,
    Layer,
    Policy,
    Repeat,
    Reruns,
    StrictXfail,
)
from detlint.plugins import (
    FLAKY,
    RERUNFAILURES,
    RETRY,
    PluginChoice,
    choose_plugin,
    declared_plugins,
)
from detlint.pytest_config import PytestConfig
from detlint.python_pass.facts import Dynamic, Mark, TestFunction
from detlint.span import Span


@dataclass(frozen=True)
class Knob:
    """One thing that shapes a test's policy, where it is written, and what it does."""

    kind: str
    span: Span
    description: str
    mark: Mark | None = None


@dataclass(frozen=True)
class TestGate:
    """A test (or the instances a ``pytest.param`` mark covers) with its composed policy."""

    test: TestFunction
    label: str
    instances: int | None
    policy: Policy
    knobs: tuple[Knob, ...]
    plugin: PluginChoice | None
    rerun_mark: Mark | None
    notes: tuple[str, ...]


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return int(value)
    return value if isinstance(value, int) else None


def _is_false(value: object) -> bool:
    return value is False or (isinstance(value, int) and not isinstance(value, bool) and value == 0)


_ATTEMPT_LIMITS = (
    re.compile(r"stop_after_attempt\(\s*(\d+)\s*\)"),
    re.compile(r"^(\d+)$"),
)


def retry_decorator_attempts(mark: Mark) -> int | None:
    """Total attempts of a tenacity/backoff/retrying decorator, when written literally."""
    for name in ("stop", "max_tries", "stop_max_attempt_number", "tries", "attempts"):
        value = mark.keyword(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, Dynamic):
            for pattern in _ATTEMPT_LIMITS:
                found = pattern.search(value.source)
                if found:
                    return int(found.group(1))
    return None


@dataclass
class _Builder:
    config: PytestConfig
    evidence: PluginEvidence
    knobs: list[Knob]
    notes: list[str]

    def marker_layer(self, mark: Mark, choice: PluginChoice) -> Layer | None:
        """The rerun layer of a ``@pytest.mark.flaky`` under the plugin that reads it."""
        plugin = choice.plugin
        if plugin == RERUNFAILURES:
            if self.config.force_reruns is not None:
                self.notes.append("--force-reruns overrides the marker")
                return Reruns(self.config.force_reruns.value)
            if _is_false(mark.keyword("condition")):
                self.notes.append("condition=False: pytest-rerunfailures never reruns")
                return None
            value = mark.keyword("reruns") if mark.has_keyword("reruns") else None
            if value is None and mark.positional():
                value = mark.positional()[0]
            count = 1 if value is None and not mark.has_keyword("reruns") else _int(value)
            if count is None:
                self.notes.append(f"reruns is not a literal ({value}); its count is unknown")
                return None
            if self.config.reruns_mode == "append" and self.config.reruns is not None:
                count += self.config.reruns.value
            return Reruns(max(count, 0))
        if plugin == RETRY:
            if mark.keyword("condition") is False:
                return None
            value = mark.keyword("retries")
            retries = _int(value)
            if value is None:
                retries = self.config.retries.value if self.config.retries is not None else 1
            if retries is None:
                self.notes.append(f"retries is not a literal ({value}); its count is unknown")
                return None
            return Reruns(max(retries, 0), RETRY)
        if plugin == FLAKY:
            if mark.has_keyword("reruns"):
                self.notes.append(
                    "`reruns=` under the flaky package is a TypeError: the test errors"
                )
                return None
            return self.flaky_layer(mark)
        return None

    def flaky_layer(self, mark: Mark) -> Layer | None:
        positional = mark.positional()
        max_runs = _int(mark.keyword("max_runs") or (positional[0] if positional else 2))
        min_passes = _int(
            mark.keyword("min_passes") or (positional[1] if len(positional) > 1 else 1)
        )
        if max_runs is None or min_passes is None or not 1 <= min_passes <= max_runs:
            self.notes.append("max_runs/min_passes are not literals the flaky package accepts")
            return None
        return FlakyRuns(max_runs, min_passes)

    def config_layer(self) -> Layer | None:
        """Reruns pytest's configuration gives a test that has no marker."""
        config = self.config
        declared = self.evidence.plugins
        setting = config.force_reruns or config.reruns
        if setting is not None and (RERUNFAILURES in declared or not declared):
            self.knobs.append(
                Knob("config-reruns", setting.span, f"{setting.source} {setting.value}")
            )
            return Reruns(setting.value)
        if config.retries is not None:
            setting = config.retries
            self.knobs.append(
                Knob("config-retries", setting.span, f"{setting.source} {setting.value}")
            )
            return Reruns(setting.value, RETRY)
        if config.force_flaky is not None:
            self.knobs.append(Knob("config-force-flaky", config.force_flaky, "--force-flaky"))
            return FlakyRuns(config.max_runs, config.min_passes)
        return None


def _xfail_gate(mark: Mark, config: PytestConfig) -> tuple[Gate | None, Layer | None]:
    conditions = mark.positional()
    if conditions and all(_is_false(condition) for condition in conditions):
        return None, None  # xfail(False, ...) never applies
    if _is_false(mark.keyword("run")):
        return SKIP, None  # run=False: the test body never runs
    strict = mark.keyword("strict")
    effective = (
        config.strict_xfail if strict is None or isinstance(strict, Dynamic) else bool(strict)
    )
    if mark.kind == "xfail-call":
        return XFAIL, None  # imperative xfail always ends in XFAIL
    return (None, StrictXfail()) if effective else (XFAIL, None)


def is_registered_tag(mark: Mark, config: PytestConfig, choice: PluginChoice) -> bool:
    """A `flaky` marker registered in the ini with no rerun plugin: a tag, not a retry."""
    registered = any(marker.name == mark.name for marker in config.markers)
    return registered and not choice.declared


def link_test(
    test: TestFunction,
    config: PytestConfig,
    evidence: PluginEvidence,
    extra_marks: tuple[Mark, ...] = (),
    label_suffix: str = "",
    instances: int | None = None,
) -> TestGate:
    """Compose the policy of one test; ``extra_marks`` (pytest.param marks) are closest."""
    marks = (*extra_marks, *test.marks)
    builder = _Builder(config, evidence, [], [])
    layers: list[Layer] = []
    gate: Gate = BLOCKING
    choice: PluginChoice | None = None
    rerun_mark: Mark | None = None

    xfail = next((m for m in marks if m.kind in ("xfail", "xfail-call")), None)
    if xfail is not None:
        xfail_gate, strict_layer = _xfail_gate(xfail, config)
        if strict_layer is not None:
            layers.append(strict_layer)
            builder.knobs.append(Knob("strict-xfail", xfail.span, "xfail(strict=True)", xfail))
        if xfail_gate is not None:
            gate = xfail_gate
            builder.knobs.append(Knob("xfail", xfail.span, "xfail(strict=False)", xfail))

    for mark in marks:
        if mark.kind == "retry-decorator":
            attempts = retry_decorator_attempts(mark)
            description = f"{mark.name} ({attempts} attempts)" if attempts else mark.name
            builder.knobs.append(Knob("retry-decorator", mark.span, description, mark))
            if attempts is not None and attempts >= 1:
                layers.append(Reruns(attempts - 1, mark.name.split(".")[0]))
            else:
                builder.notes.append(f"{mark.name}: no literal attempt limit")
            break

    decorator = next((m for m in marks if m.kind == "flaky-decorator"), None)
    marker = next((m for m in marks if m.kind == "flaky"), None)
    if decorator is not None:
        rerun_mark = decorator
        layer = builder.flaky_layer(decorator)
        builder.knobs.append(Knob("flaky-decorator", decorator.span, "@flaky", decorator))
        if layer is not None:
            layers.append(layer)
    elif marker is not None:
        rerun_mark = marker
        choice = choose_plugin(marker, evidence, config)
        if is_registered_tag(marker, config, choice):
            builder.notes.append("`flaky` is a registered marker and no rerun plugin is declared")
            builder.knobs.append(Knob("tag", marker.span, "registered marker, no plugin", marker))
        else:
            layer = builder.marker_layer(marker, choice)
            builder.knobs.append(Knob("rerun-marker", marker.span, "@pytest.mark.flaky", marker))
            if layer is not None:
                layers.append(layer)
    else:
        layer = builder.config_layer()
        if layer is not None:
            layers.append(layer)

    repeat = next((m for m in marks if m.kind == "repeat"), None)
    if repeat is not None and repeat.positional():
        count = _int(repeat.positional()[0])
        if count is not None and count >= 1:
            layers.append(Repeat(count))
            builder.knobs.append(Knob("repeat", repeat.span, f"repeat({count})", repeat))

    skip = next((m for m in marks if m.kind in ("skip", "skipif", "skip-call")), None)
    if skip is not None and not (skip.kind == "skipif" and all(map(_is_false, skip.positional()))):
        gate = SKIP
        builder.knobs.append(Knob("skip", skip.span, skip.name, skip))

    policy = Policy(trials=test.trials.count, layers=tuple(layers), gate=gate)
    return TestGate(
        test=test,
        label=test.nodeid + label_suffix,
        instances=test.instances if instances is None else instances,
        policy=policy,
        knobs=tuple(builder.knobs),
        plugin=choice,
        rerun_mark=rerun_mark,
        notes=tuple(builder.notes),
    )


def with_trials(gate: TestGate, test: TestFunction) -> TestGate:
    """``link_test(test, ...)`` from the gate of a test that differs from ``test`` in its
    trial count alone (a CI step overriding it): the count reaches no layer, no knob and
    no gate, only the policy's trials. A large setup has hundreds of such copies, and
    linking each anew costs more than the rest of its gate."""
    policy = Policy(trials=test.trials.count, layers=gate.policy.layers, gate=gate.policy.gate)
    return dataclasses.replace(gate, test=test, policy=policy)


def same_link(config: PytestConfig, other: PytestConfig, evidence: PluginEvidence) -> bool:
    """Whether ``link_test`` composes every test alike under both configs: they differ
    at most in the plugins they disable, and not in which declared plugin reads
    ``flaky`` (the one thing ``link_test`` asks of disabled plugins). A CI run's
    ``-p no:cacheprovider`` then costs no second linking of each test it runs."""
    return dataclasses.replace(
        other, disabled_plugins=config.disabled_plugins
    ) == config and declared_plugins(evidence, config) == declared_plugins(evidence, other)


def link_tests(
    test: TestFunction, config: PytestConfig, evidence: PluginEvidence
) -> list[TestGate]:
    """The test's own gate, plus one per ``pytest.param`` mark with the instances it covers."""
    gates = [link_test(test, config, evidence)]
    for covered, mark in test.param_marks:
        gates.append(
            link_test(test, config, evidence, (mark,), f"[pytest.param marks={mark.name}]", covered)
        )
    return gates
