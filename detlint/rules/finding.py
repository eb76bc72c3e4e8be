"""A finding: what a rule reports, with the model's numbers behind it.

Formatters render findings and never compute, so every number a message
quotes is also carried here as a float for machine formats.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from detlint.base.span import Span

if TYPE_CHECKING:
    from detlint.rules.plans import FixPlan


@dataclass(frozen=True)
class Loss:
    """The model's numbers for one knob on one test, at the reference rate."""

    reference_rate: float
    target: float
    trials: int
    trials_env: str | None
    reported: float  # P(a violation at the reference rate turns the build red), with the knob
    reported_without: float
    visible: float
    trials_needed: int | None  # trials per attempt that reach the target without the knob
    instances: int | None  # test instances the knob covers, when known


@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    severity: str
    span: Span
    message: str
    help: str
    loss: Loss | None = None
    related: tuple[Span, ...] = field(default=())
    fix: FixPlan | None = None  # what would fix it, made into edits only when asked for
    # The tests a finding on a knob many tests share speaks for (a job retry stacked on
    # their reruns, DET501): part of its identity in a baseline, so that a new test under
    # an old retry is a new finding (``rules/baseline.py``).
    tests: tuple[str, ...] = field(default=())

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.span.path, self.span.line, self.span.column, self.code)
