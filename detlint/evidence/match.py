"""Which static test a reported test is: the policy its knobs give it.

Reports name tests their own way: pytest's report-log by node id relative to the
rootdir pytest chose, JUnit by a dotted ``classname`` (module path and classes)
and a ``name`` with the parameters. detlint's tests are named relative to where
it runs. A reported test matches the static test whose label ends with one of the
node ids the report's name can stand for, at a path boundary; a name that fits
two static tests is left unmatched rather than guessed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from detlint.evidence.view import static_key
from detlint.model import Policy

if TYPE_CHECKING:
    from detlint.compose.test_gate import TestGate
    from detlint.evidence.reports.records import TestAttempts

NO_KNOB = "no knob found in the repository"


class PolicyMatcher:
    """Looks reported tests up among the static pass's tests."""

    def __init__(self, gates: Iterable[TestGate]) -> None:
        self.by_suffix: dict[str, TestGate | None] = {}
        for gate in gates:
            if gate.label != gate.test.nodeid:
                continue  # a pytest.param gate: its instances are not told apart in reports
            path, _, rest = gate.label.partition("::")
            parts = path.split("/")
            for start in range(len(parts)):
                key = "/".join(parts[start:]) + "::" + rest
                found = self.by_suffix.get(key, gate)
                self.by_suffix[key] = gate if found is gate else None  # None: ambiguous

    def __call__(self, attempts: TestAttempts) -> tuple[str, Policy, str]:
        """The static label, policy and knob description of a reported test; a test the
        static pass does not know has no knob detlint found (plain policy)."""
        for candidate in _candidates(attempts):
            gate = self.by_suffix.get(candidate)
            if gate is not None:
                return gate.label, gate.policy, _describe(gate.policy)
        return "", Policy(), NO_KNOB


def _candidates(attempts: TestAttempts) -> list[str]:
    if attempts.file is not None and attempts.classname:
        from detlint.evidence.reports.junit import nodeid_candidates

        named = nodeid_candidates(attempts.classname, attempts.name)
        in_file = [c for c in named if c.startswith(attempts.file.replace("\\", "/") + "::")]
        return [static_key(c) for c in (in_file or named)]
    if "::" in attempts.test and ".py::" in attempts.test:
        return [static_key(attempts.test)]
    if attempts.classname:
        from detlint.evidence.reports.junit import nodeid_candidates

        return [static_key(c) for c in nodeid_candidates(attempts.classname, attempts.name)]
    return [static_key(attempts.test)]


def _describe(policy: Policy) -> str:
    knobs = [layer.describe() for layer in policy.layers if layer.masks]
    if not policy.gate.blocks:
        knobs.append(policy.gate.describe())
    return "; ".join(knobs) if knobs else "no knob that hides failures"
