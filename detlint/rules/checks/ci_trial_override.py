"""DET302 ci-trial-override: a step sets a test's trial variable below the test's own
default, so each attempt catches less.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING

from detlint.base.span import Span
from detlint.rules.ci_wording import (
    reach,
)
from detlint.rules.context import RuleContext, finding, loss_phrase
from detlint.rules.finding import Finding

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
from detlint.rules.ci_costs import Pair, costliest, without_gate


def ci_trial_override(context: RuleContext) -> Iterator[Finding]:
    """DET302: a step sets a test's trial variable below the test's own default."""
    groups: dict[Span, list[CiGate]] = {}
    q = context.reference_rate
    for gate in context.ci_gates:
        override = gate.override
        if override is None or not gate.inside.trials < gate.own.trials:
            continue
        # Under a fixed number of passes (`passes >= 3`) fewer trials let fewer fail:
        # such an override raises detection, and costs nothing.
        if gate.inside.threshold is None or gate.inside.attempt(q) < gate.own.attempt(q):
            groups.setdefault(override.span, []).append(gate)

    def pair(gate: CiGate) -> Pair:
        policy = without_gate(gate.policy)
        return policy, dataclasses.replace(policy, trials=gate.own.trials)

    for span, gates in sorted(groups.items()):
        found = costliest(gates, pair, context)
        assert found is not None
        gate, numbers = found
        assert gate.override is not None
        name, own = gate.override.name, gate.own.trials
        message = (
            f"step {gate.run.step.name!r} sets {name}={gate.inside.trials}, below the test's "
            f"own {own}: {loss_phrase(numbers)} in {gate.label} "
            f"({reach(path for g in gates for path in g.files)})"
        )
        help_text = f"drop the override, or set {name} to at least {own}"
        yield finding("DET302", span, message, help_text, numbers)
