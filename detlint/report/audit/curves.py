"""Detection curves as data: the chance a violation is reported against its rate q.

The points come from the model (``Policy.reported``) on a fixed grid of rates, for
the policies the audit picks (the tests that lose most, the costliest knobs);
:mod:`detlint.report.audit.plots` only draws them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from detlint.model import Policy

if TYPE_CHECKING:
    from detlint.report.audit.facts import AuditView, KnobView

# Rates from one in ten thousand to certainty, 25 points a decade.
GRID: tuple[float, ...] = tuple(10.0 ** (-4 + i / 25) for i in range(101))
WORST_POLICIES = 5
KNOB_PANELS = 6


@dataclass(frozen=True)
class Curve:
    """One policy drawn with and without its knobs.

    ``title`` names what a per-knob panel stands for, a line each: the knobs (kind
    and place) and the knob's text as written.
    """

    label: str
    rates: tuple[float, ...]
    reported: tuple[float, ...]
    reported_without: tuple[float, ...]
    q50: float | None
    q50_without: float | None
    blocks: bool
    at_reference: float  # reported at the reference rate
    title: tuple[str, ...] = ()

    @property
    def drawn(self) -> tuple[tuple[float, ...], tuple[float, ...], bool]:
        """What the plot shows of it: two curves that draw the same are one panel."""
        return (self.reported, self.reported_without, self.blocks)


def curve(
    label: str, policy: Policy, reference_rate: float, without: Policy | None = None
) -> Curve:
    """``policy`` on the grid, and ``without`` (every knob removed, unless given)."""
    baseline = policy.baseline() if without is None else without
    return Curve(
        label=label,
        rates=GRID,
        reported=tuple(policy.reported(q) for q in GRID),
        reported_without=tuple(baseline.reported(q) for q in GRID),
        q50=policy.q50(),
        q50_without=baseline.q50(),
        blocks=policy.gate.blocks,
        at_reference=policy.reported(reference_rate),
    )


def worst_curves(view: AuditView) -> list[Curve]:
    """The curves of the tests that lose most, worst first: the tests in the order of
    their loss at the reference rate (a test that never blocks loses all a violation
    would have reported), as many as make ``WORST_POLICIES`` distinct curves.

    Tests whose policies draw the same curves (a skip and an xfail that never run
    the test) share one, with every test counted.
    """
    made: dict[Policy, Curve] = {}
    groups: dict[object, tuple[list[Policy], list[str]]] = {}
    for test in sorted(view.tests, key=lambda test: -test.loss):
        if test.loss <= 0:
            continue
        item = made.get(test.policy)
        if item is None:
            item = made[test.policy] = curve("", test.policy, view.reference_rate)
        if item.drawn not in groups and len(groups) == WORST_POLICIES:
            continue
        policies, labels = groups.setdefault(item.drawn, ([], []))
        if test.policy not in policies:
            policies.append(test.policy)
        labels.append(test.label)
    curves = []
    for policies, labels in groups.values():
        count = f"{len(labels)} tests" if len(labels) > 1 else labels[0].rpartition("::")[2]
        if len(policies) > 1:
            count += f" under {len(policies)} policies drawn the same"
        label = f"{policies[0].describe()} ({count})"
        curves.append(replace(made[policies[0]], label=label))
    return curves


def knob_curves(view: AuditView) -> list[Curve]:
    """Each costly knob: its tests' commonest policy, with and without that knob alone.

    Knobs whose panels would draw the same curves (a rerun marker of the same count
    on tests of the same shape) share one panel that names each of them.
    """
    costly = [knob for knob in view.knobs if knob.policies is not None and knob.gain > 0]
    # Knobs that retry come first: a gate that never blocks is a flat line at zero,
    # and two of those say all such panels can.
    blocking = [knob for knob in costly if knob.policies and knob.policies[0].gate.blocks]
    never = [knob for knob in costly if knob.policies and not knob.policies[0].gate.blocks]
    panels: dict[object, tuple[Curve, list[KnobView]]] = {}
    for group, most in ((blocking, KNOB_PANELS), (never, 2)):
        distinct = 0
        for knob in group:
            assert knob.policies is not None
            policy, without = knob.policies
            item = curve(knob.description, policy, view.reference_rate, without)
            if item.drawn not in panels:
                if distinct == most or len(panels) == KNOB_PANELS:
                    continue
                distinct += 1
                panels[item.drawn] = (item, [])
            panels[item.drawn][1].append(knob)
    return [replace(item, title=_knob_title(knobs)) for item, knobs in panels.values()]


def _knob_title(knobs: list[KnobView]) -> tuple[str, ...]:
    """A panel's title: the knobs it stands for (two named, the rest counted), and
    last the one knob's text as written (empty for several)."""
    lines = [f"{knob.kind} at {knob.path.rpartition('/')[2]}:{knob.line}" for knob in knobs[:2]]
    if len(knobs) > 2:
        more = len(knobs) - 2
        lines.append(f"and {more} more knob{'s' if more != 1 else ''} drawn the same")
    lines.append(knobs[0].description if len(knobs) == 1 else "")
    return tuple(lines)
