"""One environment of one test: the marks that apply there, composed into a ``Policy``.

A test's chance of turning a violation into a red build depends on its trial
loop, its retry decorator, the closest ``flaky`` marker read under whichever
plugin is installed (or the global reruns from pytest's config when it has no
marker), pytest-repeat, and the xfail/skip gate. A ``Composition`` decides each of
those from the facts, in the order they act, and records why; a conditional knob
it meets is noted as an ``Alternative``, the environment where it applies (a gate)
or does not (a retry), which ``test_policy.py`` composes next.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

from detlint.compose.conditions import Applies, mark_applies
from detlint.compose.decorator_layers import decorator_knob, decorator_layer
from detlint.compose.filters import (
    Filtered,
    decorator_filter,
    flaky_filter,
    rerunfailures_filter,
    retry_filter,
    skip_filter,
    xfail_filter,
)
from detlint.compose.plugins import (
    RERUNFAILURES,
    RETRY,
    PluginChoice,
    choose_plugin,
    ignore_flaky_switch,
    is_registered_tag,
)
from detlint.compose.rerun_layers import flaky_layer, marker_layer, session_reruns_note
from detlint.compose.retried_phases import call_phase_only
from detlint.compose.retry_counts import retry_decorator_attempts
from detlint.compose.strict_xfail import strict_xfail_stack
from detlint.compose.test_gate import SKIP_KINDS, XFAIL_KINDS, Knob
from detlint.model import (
    BLOCKING,
    SKIP,
    STRICT_XFAIL,
    SWALLOWED,
    XFAIL,
    XFAIL_UNCHECKED,
    FlakyRuns,
    Gate,
    Layer,
    Policy,
    Repeat,
    Reruns,
)
from detlint.readers.dependencies.declarations import PluginEvidence
from detlint.readers.project.pytest_config import PytestConfig
from detlint.readers.python.facts import Mark, TestFunction

_GateOf = Callable[[Mark], Gate | None]


@dataclass(frozen=True)
class Alternative:
    """A conditional knob, to compose its environment: ``force`` applies a gate,
    ``drop`` leaves out a retry."""

    condition: str
    effect: str
    force: Mark | None = None
    drop: Mark | None = None


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return int(value)
    return value if isinstance(value, int) else None


def _gate_effect(gate: Gate) -> str:
    if gate is SKIP:
        return "skipped"
    if gate is XFAIL_UNCHECKED:
        return "XFAIL before every check: the checks never run"
    if gate is STRICT_XFAIL:
        return "XFAIL(strict): a violation is the expected failure, a pass fails"
    return "XFAIL: never fails the build"


@dataclass
class Composition:
    """One environment of one test: the marks that apply there, composed."""

    test: TestFunction
    marks: tuple[Mark, ...]
    config: PytestConfig
    evidence: PluginEvidence
    force: Mark | None = None
    drop: Mark | None = None
    knobs: list[Knob] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    alternatives: list[Alternative] = field(default_factory=list)
    choice: PluginChoice | None = None
    rerun_mark: Mark | None = None
    swallowed: bool = False  # a retry decorator returns after its last failed attempt
    ignored: str | None = None  # where --ignore-flaky comes from, when it reads the marker
    undecided: list[str] = field(default_factory=list)  # filters that may let a violation by
    inner: int = 0  # how many of the retry layers a decorator makes, inside the test's body

    def applies(self, mark: Mark, plugin: str | None = None) -> Applies:
        if mark is self.force:
            return Applies()
        return mark_applies(mark, plugin)

    # -- gates -------------------------------------------------------------

    def gate(self) -> Gate:
        """The xfail/skip gate: the closest applying mark of each decides (pytest
        evaluates every skip and xfail mark, and the first that holds applies); a
        skip, decided at setup, comes before any xfail."""
        xfail = self._first(XFAIL_KINDS, self._xfail_gate)
        skip = self._first(SKIP_KINDS, self._skip_gate)
        return skip or xfail or BLOCKING

    def _first(self, kinds: tuple[str, ...], gate_of: _GateOf) -> Gate | None:
        decided: Gate | None = None
        for mark in self.marks:
            if mark.kind not in kinds or mark is self.drop:
                continue
            applies = self.applies(mark)
            if applies.never:
                continue
            gate = gate_of(mark)
            if gate is None:
                continue
            kind = (
                "skip"
                if kinds is SKIP_KINDS
                else "strict-xfail"
                if gate is STRICT_XFAIL
                else "xfail"
            )
            if applies.always:
                if decided is None:
                    decided = gate
                    self.knobs.append(Knob(kind, mark.span, mark.name, mark))
                continue
            condition = applies.describe()
            self.knobs.append(Knob(kind, mark.span, mark.name, mark, condition))
            self.alternatives.append(Alternative(condition, _gate_effect(gate), force=mark))
        return decided

    def _skip_gate(self, mark: Mark) -> Gate | None:
        filtered = skip_filter(mark)
        if filtered.masks is False:
            self.notes.append(filtered.what)
            return None
        if mark.kind == "skip-call" and mark.among_checks == "last":
            # After every check: a failing one has failed the test before it is reached.
            self.notes.append(f"{mark.name}() comes after every check: it hides no failure")
            return None
        return SKIP

    def _xfail_gate(self, mark: Mark) -> Gate | None:
        if mark.kind == "xfail-call":
            # An imperative xfail ends the test as XFAIL at once: before every check,
            # where it applies the checks never run (as run=False); after every check, a
            # failing one has failed the test already, so it hides nothing.
            if mark.among_checks == "first":
                return XFAIL_UNCHECKED
            if mark.among_checks == "last":
                self.notes.append("pytest.xfail() comes after every check: it hides no failure")
                return None
            return XFAIL
        if mark.kind == "unittest-xfail":
            return STRICT_XFAIL  # an unexpected success fails, as a strict xfail's
        run = mark.keyword("run")
        if run is False or (isinstance(run, int) and not isinstance(run, bool) and run == 0):
            return SKIP  # run=False: the test body never runs
        filtered = xfail_filter(mark)
        if filtered.masks is False:
            self.notes.append(filtered.what)
            return None
        if filtered.masks is None and mark is not self.force:
            self.alternatives.append(
                Alternative(f"{filtered.label} covers the failure", "XFAIL", force=mark)
            )
            return None
        strict = mark.keyword("strict")
        effective = self.config.strict_xfail if not isinstance(strict, bool) else strict
        return STRICT_XFAIL if effective else XFAIL

    # -- retries -----------------------------------------------------------

    def retry_layers(self) -> list[Layer]:
        layers: list[Layer] = []
        decorator = next(
            (m for m in self.marks if m.kind == "retry-decorator" and m is not self.drop), None
        )
        if decorator is not None:
            layers += self._retry_decorator(decorator)
        self.inner = len(layers)
        flaky_decorator = next((m for m in self.marks if m.kind == "flaky-decorator"), None)
        marker = next((m for m in self.marks if m.kind == "flaky"), None)
        if flaky_decorator is not None:
            self.rerun_mark = flaky_decorator
            self.knobs.append(
                Knob("flaky-decorator", flaky_decorator.span, "@flaky", flaky_decorator)
            )
            layer = self.flaky_layer(flaky_decorator)
            if layer is not None and self._keeps(flaky_decorator, flaky_filter(flaky_decorator)):
                layers.append(layer)
        elif marker is not None:
            layers += self._marker(marker)
        else:
            layer = self.config_layer()
            if layer is not None:
                layers.append(layer)
        repeat = next((m for m in self.marks if m.kind == "repeat"), None)
        if repeat is not None and repeat.positional():
            count = _int(repeat.positional()[0])
            if count is not None and count >= 1 and not mark_applies(repeat).never:
                layers.append(Repeat(count))
                self.knobs.append(Knob("repeat", repeat.span, f"repeat({count})", repeat))
        return layers

    def _keeps(self, mark: Mark, filtered: Filtered, plugin: str | None = None) -> bool:
        """Whether a retry mark's layer is in this environment: dropped here, never
        applying, or filtered so that a violation passes by it, it is not."""
        if mark is self.drop:
            return False
        applies = mark_applies(mark, plugin)
        if applies.never:
            return False
        if filtered.masks is False:
            self.notes.append(filtered.what)
            return False
        if not applies.always:
            self.alternatives.append(Alternative(applies.negation(), "not rerun", drop=mark))
            self.knobs = [
                dataclasses.replace(knob, condition=applies.describe())
                if knob.mark is mark
                else knob
                for knob in self.knobs
            ]
        if filtered.masks is None:
            self.notes.append(f"{filtered.what} (detlint does not evaluate it)")
            self.undecided.append(filtered.label)
            self.alternatives.append(
                Alternative(f"{filtered.label} rejects the failure", "not rerun", drop=mark)
            )
        return True

    def _retry_decorator(self, mark: Mark) -> list[Layer]:
        """A retry decorator's layer (``decorator_layers``); one that returns after its
        last failed attempt too swallows the failure: the test's gate then never blocks.
        One that wants every run to pass is a repeat, which applies where its guards
        hold: a conditional one gives no layer (its count elsewhere is another)."""
        attempts, origin = retry_decorator_attempts(mark)
        layer = decorator_layer(mark, attempts) if attempts is not None and attempts > 0 else None
        kind = "repeat" if isinstance(layer, Repeat) else "retry-decorator"
        self.knobs.append(Knob(kind, mark.span, decorator_knob(mark, attempts), mark))
        filtered = decorator_filter(mark)
        if layer is None:
            if filtered.masks is False:
                self.notes.append(filtered.what)
            else:
                self.notes.append(f"{mark.name}: {origin or 'no literal attempt limit'}")
            return []
        if isinstance(layer, Repeat):
            return [layer] if mark_applies(mark).always else []
        if not self._keeps(mark, filtered):
            return []
        if mark.retry is not None and mark.retry.swallows:
            self.swallowed = True
        return [layer]

    def _marker(self, marker: Mark) -> list[Layer]:
        self.rerun_mark = marker
        choice = self.choice = choose_plugin(marker, self.evidence, self.config)
        switch = ignore_flaky_switch(self.evidence, self.config)
        if switch is not None:
            # pytest-ignore-flaky turns the failed report into XFAIL before any rerun
            # plugin sees it, and they rerun no xfailed failure: the gate (``policy``).
            self.ignored = switch
            self.knobs.append(Knob("ignore-flaky", marker.span, switch, marker))
            return []
        reader = None if choice.declared else self.evidence.own_markers.reader(marker.name)
        if reader is not None:
            where = f"{reader.span.path}:{reader.span.line}"
            self.notes.append(
                f"no rerun plugin is declared and the project's own code at {where} reads "
                f"`{marker.name}`: the marker means what that code does, not judged"
            )
            self.knobs.append(Knob("project-marker", marker.span, f"read at {where}", marker))
            self.choice = None  # no plugin reads it: none is guessed
            return []
        if is_registered_tag(marker, self.config, choice, self.evidence):
            self.notes.append("`flaky` is a registered marker and no rerun plugin is declared")
            self.knobs.append(Knob("tag", marker.span, "registered marker, no plugin", marker))
            return []
        self.knobs.append(Knob("rerun-marker", marker.span, "@pytest.mark.flaky", marker))
        layer = self.marker_layer(marker, choice)
        if layer is None:
            return []
        plugin = choice.plugin
        if plugin == RERUNFAILURES and (self._reruns_visible() or not self._session_reruns()):
            return []
        filtered = (
            rerunfailures_filter(marker, self.config.only_rerun, self.config.rerun_except)
            if plugin == RERUNFAILURES
            else retry_filter(marker)
            if plugin == RETRY
            else flaky_filter(marker)
        )
        if self.config.force_reruns is not None and plugin == RERUNFAILURES:
            filtered = rerunfailures_filter(None, self.config.only_rerun, self.config.rerun_except)
            keeps = self._keeps_forced(filtered)
        else:
            keeps = self._keeps(marker, filtered, plugin)
        return [layer] if keeps else []

    def _reruns_visible(self) -> bool:
        """pytest-rerunfailures' ``--fail-on-flaky``: a test that passes only on a rerun
        fails the run (exit 7), so its reruns hide no failure and are no layer."""
        if self.config.fail_on_flaky is None:
            return False
        self.notes.append(
            "--fail-on-flaky: a test that passes only on a rerun fails the run (exit 7)"
        )
        return True

    def _session_reruns(self) -> bool:
        """Whether pytest-rerunfailures' session options (``--rerun-exclude-path``,
        ``--max-suite-reruns``) leave this test its reruns; a cap that may cut them is
        noted, and the count stays as the most it can be."""
        reruns, note = session_reruns_note(self.config, self.test.path)
        if note is not None:
            self.notes.append(note)
        return reruns

    def _keeps_forced(self, filtered: Filtered) -> bool:
        if filtered.masks is False:
            self.notes.append(filtered.what)
            return False
        return True

    def marker_layer(self, mark: Mark, choice: PluginChoice) -> Layer | None:
        return marker_layer(mark, choice, self.config, self.notes)

    def flaky_layer(self, mark: Mark) -> Layer | None:
        return flaky_layer(mark, self.notes)

    def config_layer(self) -> Layer | None:
        """Reruns pytest's configuration gives a test that has no marker."""
        config = self.config
        declared = self.evidence.plugins
        setting = config.force_reruns or config.reruns
        if setting is not None and (RERUNFAILURES in declared or not declared):
            self.knobs.append(
                Knob("config-reruns", setting.span, f"{setting.source} {setting.value}")
            )
            if (
                not self._keeps_forced(
                    rerunfailures_filter(None, config.only_rerun, config.rerun_except)
                )
                or self._reruns_visible()
                or not self._session_reruns()
            ):
                return None
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

    def policy(self) -> Policy:
        gate = self.gate()
        layers = call_phase_only(self.retry_layers(), self.test, self.notes)
        if self.ignored is not None and gate is not SKIP:
            gate = XFAIL  # a failure in any phase, a strict XPASS too, reports as XFAIL
        if self.swallowed and gate.blocks:
            gate = SWALLOWED
        if gate is STRICT_XFAIL and not self.swallowed:
            gate, layers = strict_xfail_stack(layers, self.inner, self.notes)
        if gate in (XFAIL, STRICT_XFAIL) and any(
            isinstance(layer, Reruns | FlakyRuns) for layer in layers
        ):
            # The rerun plugins do not rerun an xfailed failure (the flaky package reruns
            # it, and shows every failing run as XFAIL): the first failure is what shows.
            layers = [layer for layer in layers if not isinstance(layer, Reruns | FlakyRuns)]
            self.notes.append("an xfailed failure is not rerun: the first one shows as XFAIL")
        trials = self.test.trials
        return Policy(trials.count, tuple(layers), gate, trials.threshold)
