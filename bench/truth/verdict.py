"""Claim against observation: within 3 binomial standard errors of the claim is ok."""

from __future__ import annotations

from dataclasses import dataclass

from bench.truth.claims import Claim
from bench.truth.observe import Observation


@dataclass(frozen=True)
class Verdict:
    standard_error: float | None
    verdict: str  # "ok", "DISCREPANCY" or "no claim"


def judge(claim: Claim, seen: Observation) -> Verdict:
    if claim.reported is None:
        return Verdict(None, "no claim")
    p = claim.reported
    error = (p * (1 - p) / seen.cases) ** 0.5
    if error == 0:
        # A claim of exactly 0 or 1 leaves no room: one instance off is a discrepancy.
        return Verdict(0.0, "ok" if seen.share == p else "DISCREPANCY")
    return Verdict(error, "ok" if abs(seen.share - p) <= 3 * error else "DISCREPANCY")
