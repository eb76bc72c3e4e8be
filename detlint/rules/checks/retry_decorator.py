"""DET103 retry-decorator: tenacity, backoff or a configured retry decorator around a
test, which retries the assertion along with the flaky operation.
"""

from __future__ import annotations

from collections.abc import Iterator

from detlint.rules.context import (
    RuleContext,
    alternatives,
    covers,
    finding,
    group_by_mark,
    loss_phrase,
    replay_clause,
    trials_phrase,
    worst,
)
from detlint.rules.finding import Finding


def retry_decorator(context: RuleContext) -> Iterator[Finding]:
    """DET103: tenacity/backoff/configured retry decorators around tests."""
    groups = group_by_mark(context.gates, ("retry-decorator",))
    if not groups:
        return
    from detlint.model import Reruns

    for span, (mark, gates) in sorted(groups.items()):
        gate, numbers = worst(gates, context)
        several = len({g.test.nodeid for g in gates}) > 1
        # The decorator repeats the test's body alone: a fixture's seed is not set again.
        replay = replay_clause(gate.test, "retry", "the decorator hides", ("body",), several)
        unlimited = replay_clause(
            gate.test, "retry", "the decorator hides", ("body",), several, figures="that holds"
        )
        reruns = next((layer for layer in gate.policy.layers if isinstance(layer, Reruns)), None)
        if reruns is None or not numbers.reported < numbers.reported_without:
            message = (
                f"retry decorator {mark.name} around a test with no literal attempt limit: a "
                "violation is reported only if every attempt shows it "
                f"({trials_phrase(gate.test)}{covers(gates)}){unlimited}"
            )
        else:
            message = (
                f"retry decorator {mark.name} hides intermittent failures: "
                f"{loss_phrase(numbers)} ({reruns.count + 1} attempts; "
                f"{trials_phrase(gate.test)}{covers(gates)}){replay}"
            )
        yield finding(
            "DET103",
            span,
            message,
            alternatives(gate, numbers, "retry the flaky operation, not the assertion,"),
            numbers,
        )
