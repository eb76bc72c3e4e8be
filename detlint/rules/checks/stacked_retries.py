"""DET501 stacked-retries: a test retried inside pytest and again by its CI job, whose
attempts multiply.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from detlint.model import JobRetries, Policy, Reruns
from detlint.rules.ci_wording import (
    reach,
)
from detlint.rules.context import RuleContext, finding, loss_phrase, replay_clause
from detlint.rules.finding import Finding

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
    from detlint.readers.ci.facts import CiKnob
from detlint.rules.ci_costs import Pair, costliest, without_gate
from detlint.rules.context import QUARANTINE


def stacked_retries(context: RuleContext) -> Iterator[Finding]:
    """DET501: a test retried inside pytest and again by its CI job."""
    groups: dict[CiKnob, list[CiGate]] = {}
    for gate in context.ci_gates:
        inside = gate.inside  # under a strict xfail the retries hide a fixed bug (none here)
        if gate.retries and not inside.inverted and any(layer.masks for layer in inside.layers):
            groups.setdefault(gate.retries[0][0], []).append(gate)

    def pair(gate: CiGate) -> Pair:
        policy = without_gate(gate.policy)
        return policy, Policy(trials=policy.trials, threshold=policy.threshold)

    for knob, gates in groups.items():
        found = costliest(gates, pair, context)
        assert found is not None
        gate, numbers = found
        attempts = 1
        for layer in gate.policy.layers:
            attempts *= _attempts(layer)
        inner = ", ".join(layer.describe() for layer in gate.inside.layers if layer.masks)
        message = (
            f"{gate.label} is retried inside pytest by {inner} and again by `{knob.key}` "
            f"({knob.attempts} {'attempts' if knob.kind == 'shell-retry' else 'job runs'}): "
            f"up to {attempts} attempts in total; "
            f"{loss_phrase(numbers)} ({reach(path for g in gates for path in g.files)})"
            f"{replay_clause(gate.base.test, 'attempt', 'the retries hide', elsewhere=True)}"
        )
        related = [k.span for k in gate.base.knobs if k.kind in ("rerun-marker", "config-reruns")]
        help_text = (
            "retry at one layer at most: stop retrying test failures (exit status 1) in the "
            f"job, drop the in-test rerun, and quarantine visibly: {QUARANTINE}"
        )
        tests = (g.label for g in gates)
        yield finding("DET501", knob.span, message, help_text, numbers, related, tests=tests)


def _attempts(layer: object) -> int:
    """Runs one layer allows at most: reruns + 1, job retries + 1, or max_runs."""
    if isinstance(layer, Reruns):
        return layer.count + 1
    if isinstance(layer, JobRetries):
        return layer.limit + 1
    max_runs = getattr(layer, "max_runs", None)
    return max_runs if isinstance(max_runs, int) else 1
