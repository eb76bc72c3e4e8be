"""Detection curves as data: the chance a violation is reported against its rate q.

The points come from the model (``Policy.reported``) on a fixed grid of rates, for
the policies the audit picks (the tests that lose most, the costliest knobs);
:mod:`detlint.report.audit.plots` only draws them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from detlint.model import Policy

if TYPE_CHECKING:
    from detlint.report.audit.facts import AuditView

# Rates from one in ten thousand to certainty, 25 points a decade.
GRID: tuple[float, ...] = tuple(10.0 ** (-4 + i / 25) for i in range(101))
WORST_POLICIES = 5
KNOB_PANELS = 6


@dataclass(frozen=True)
class Curve:
    """One policy drawn with and without its knobs."""

    label: str
    rates: tuple[float, ...]
    reported: tuple[float, ...]
    reported_without: tuple[float, ...]
    q50: float | None
    q50_without: float | None
    blocks: bool
    at_reference: float  # reported at the reference rate


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
    """The distinct policies of the tests that lose most, worst first.

    Policies that never block are left out: each is a flat line at zero, said in
    words by the headline and the table.
    """
    seen: dict[Policy, list[str]] = {}
    for test in view.tests:
        if test.loss <= 0 or not test.policy.gate.blocks:
            continue
        if test.policy not in seen and len(seen) == WORST_POLICIES:
            continue
        seen.setdefault(test.policy, []).append(test.label)
    curves = []
    for policy, labels in seen.items():
        count = f"{len(labels)} tests" if len(labels) > 1 else labels[0].rpartition("::")[2]
        curves.append(curve(f"{policy.describe()} ({count})", policy, view.reference_rate))
    return curves


def knob_curves(view: AuditView) -> list[Curve]:
    """Each costly knob: its tests' commonest policy, with and without that knob alone."""
    costly = [knob for knob in view.knobs if knob.policies is not None and knob.gain > 0]
    # Knobs that retry come first: a gate that never blocks is a flat line at zero,
    # and two of those say all such panels can.
    blocking = [knob for knob in costly if knob.policies and knob.policies[0].gate.blocks]
    never = [knob for knob in costly if knob.policies and not knob.policies[0].gate.blocks][:2]
    curves = []
    for knob in (blocking + never)[:KNOB_PANELS]:
        assert knob.policies is not None
        policy, without = knob.policies
        label = f"{knob.description} at {knob.path.rpartition('/')[2]}:{knob.line}"
        curves.append(curve(label, policy, view.reference_rate, without))
    return curves
