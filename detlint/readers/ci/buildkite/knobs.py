"""Where a Buildkite step's knobs are written, and how an override block replaces them.

``retry.py`` judges one ``soft_fail``, ``skip`` or ``retry.automatic``
value; this module finds those keys on a step, on a group (its ``skip`` reaches
every child), in matrix ``adjustments`` (each acts on one matrix entry) and on
a wait step (``continue_on_failure``), and names each knob by its key path. A
step's knobs are kept by the key that sets them, because a per-platform
override block replaces the knob of each key it sets and keeps the others.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from detlint.readers.ci.buildkite.retry import KnobSite, flag, retry_knob, skip_knob, soft_fail_knob
from detlint.readers.ci.facts import PYTEST_FAILED, CiKnob
from detlint.readers.ci.yaml_spans import key_name, yaml_knob
from detlint.readers.yaml.tree import YMap, YNode, YScalar, YSeq, text_of

KnobMaker = Callable[[YScalar, YNode, KnobSite, str], CiKnob | None]


@dataclass
class StepKnobs:
    """A command step's knobs by the key that sets them, so an override can replace one."""

    by_key: dict[str, list[CiKnob]] = field(default_factory=dict)

    def add(self, key: str, knob: CiKnob | None) -> None:
        self.by_key.setdefault(key, [])
        if knob is not None:
            self.by_key[key].append(knob)

    def merged(self, base: StepKnobs) -> StepKnobs:
        """These knobs over ``base``: a key set here replaces the base's knobs for it."""
        return StepKnobs({**base.by_key, **self.by_key})

    def all(self) -> list[CiKnob]:
        return [knob for knobs in self.by_key.values() for knob in knobs]


def ordered(knobs: tuple[CiKnob, ...]) -> tuple[CiKnob, ...]:
    """Knobs in source order, each once (a group's skip reaches a child only once)."""
    unique = tuple(dict.fromkeys(knobs))
    return tuple(sorted(unique, key=lambda knob: (knob.span.line, knob.span.column, knob.key)))


def knob_at(
    node: YMap, key: str, site: KnobSite, make: KnobMaker, extra: str = ""
) -> tuple[CiKnob, ...]:
    """The knob ``make`` reads from ``node``'s ``key``; nothing when the key is absent or off."""
    key_node, value = node.key(key), node.get(key)
    if key_node is None or value is None:
        return ()
    knob = make(key_node, value, site, extra)
    return (knob,) if knob is not None else ()


def step_knobs(
    node: YMap,
    path: str,
    prefix: str,
    platform: str | None,
    status: Callable[[], int] = lambda: PYTEST_FAILED,
) -> StepKnobs:
    """soft_fail, retry.automatic and skip of a step (or of one override); ``status``
    gives the exit status its tests fail with, asked only by a knob that names some."""
    knobs = StepKnobs()
    for key in ("soft_fail", "skip"):
        if key in node:
            make = soft_fail_knob if key == "soft_fail" else skip_knob
            named = key == "soft_fail" and isinstance(node.get(key), YSeq)
            site = KnobSite(
                path, prefix + key, platform, status=status() if named else PYTEST_FAILED
            )
            knobs.by_key[key] = list(knob_at(node, key, site, make))
    retry = node.get("retry")
    if isinstance(retry, YMap) and "automatic" in retry:
        key_node, value = retry.key("automatic"), retry.get("automatic")
        site = KnobSite(path, prefix + "retry.automatic", platform, status=status())
        if key_node is not None and value is not None:
            knobs.add("retry.automatic", retry_knob(key_node, value, site))
    return knobs


def continue_on_failure_knobs(node: YMap, path: str) -> tuple[CiKnob, ...]:
    """A wait step's ``continue_on_failure``: later steps run, the build still fails."""
    key, value = node.key("continue_on_failure"), node.get("continue_on_failure")
    switch = flag(value)
    if key is None or value is None or switch is False:
        return ()
    note = "the build still fails; later steps just run"
    if switch is None:
        note = "continue_on_failure value not understood; " + note
    knob = yaml_knob(
        "continue-on-failure", "buildkite", "continue_on_failure", key, value, path, False,
        note=note,
    )  # fmt: skip
    return (knob,)


def matrix_knobs(matrix: YNode | None, path: str) -> Iterator[CiKnob]:
    """``soft_fail`` and ``skip`` of matrix ``adjustments``: they act on one matrix entry."""
    adjustments = matrix.get("adjustments") if isinstance(matrix, YMap) else None
    if not isinstance(adjustments, YSeq):
        return
    for number, adjustment in enumerate(adjustments.items):
        if not isinstance(adjustment, YMap):
            continue
        condition = "matrix entry " + _entry_text(adjustment.get("with"))
        for key, make in (("soft_fail", soft_fail_knob), ("skip", skip_knob)):
            site = KnobSite(path, f"matrix.adjustments[{number}].{key}", None, condition)
            yield from knob_at(adjustment, key, site, make)


def _entry_text(entry: YNode | None) -> str:
    """An adjustment's ``with:`` as ``python=3.12, gpu=a100`` (or the value, for one dimension)."""
    if isinstance(entry, YMap):
        return ", ".join(f"{key_name(k)}={text_of(v) or '?'}" for k, v in entry.items)
    if isinstance(entry, YSeq):
        return ", ".join(text_of(item) or "?" for item in entry.items)
    return text_of(entry) or "?"
