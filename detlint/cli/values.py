"""Command-line values: probabilities, lists of rates and ``K/N`` counts.

Each parser is a click callback so that a bad value is rejected with the
option's name before any computation starts.
"""

from __future__ import annotations

from dataclasses import dataclass

import click


@dataclass(frozen=True)
class ProbabilityRange:
    """Which ends of [0, 1] an option accepts; the middle is always allowed.

    An option states its range rather than sharing one: whether 0 or 1 means
    anything depends on what the number is for (a table row, a target).
    """

    zero: bool = False
    one: bool = False

    def __contains__(self, value: float) -> bool:
        # NaN fails both comparisons, so it is never inside.
        above = value >= 0.0 if self.zero else value > 0.0
        below = value <= 1.0 if self.one else value < 1.0
        return above and below

    def __str__(self) -> str:
        return f"{'[' if self.zero else '('}0, 1{']' if self.one else ')'}"


OPEN_INTERVAL = ProbabilityRange()  # --target, --reference-rate: see probability_option
RATE_RANGE = ProbabilityRange(one=True)  # --rates: see rates_option


def parse_probability(text: str, allowed: ProbabilityRange) -> float:
    """``"0.1"`` or ``"10%"`` -> 0.1; raises ValueError outside ``allowed``."""
    raw = text.strip()
    scale = 1.0
    if raw.endswith("%"):
        raw, scale = raw[:-1].strip(), 0.01
    try:
        value = float(raw) * scale
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not a number") from None
    if value not in allowed:
        raise ValueError(f"{text.strip()} is not a probability in {allowed}")
    return value


def parse_rates(text: str) -> tuple[float, ...]:
    """``"0.05,10%"`` -> (0.05, 0.1); each rate in ``RATE_RANGE``."""
    items = [item for item in text.split(",") if item.strip()]
    if not items:
        raise ValueError("give at least one rate, e.g. 0.05,0.1")
    return tuple(parse_probability(item, RATE_RANGE) for item in items)


def parse_observed(text: str) -> tuple[int, int]:
    """``"0/60"`` -> (0, 60): K violations seen in N trials.

    These are counts, not a chosen probability, so K/N may be 0 or 1: 0/60 (no
    violation seen) is the measurement a green history gives, and the Wilson
    interval still bounds the rate above 0 at its high end.
    """
    parts = text.strip().split("/")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        raise ValueError(f"{text.strip()!r} is not K/N with non-negative integers, e.g. 0/60")
    mismatches, trials = (int(part) for part in parts)
    if trials == 0:
        raise ValueError(f"{text.strip()}: N must be at least 1")
    if mismatches > trials:
        raise ValueError(
            f"{text.strip()}: {mismatches} violations cannot come from {trials} trials"
        )
    return mismatches, trials


def probability_option(ctx: click.Context, param: click.Parameter, value: str) -> float:
    """--target and --reference-rate: a probability in the open interval (0, 1).

    Both feed the trial recommendation, which says nothing at either end. A
    target of 1 is reached by no trial count (only a certain violation is
    reported every time) and a target of 0 by any; a reference rate of 0 is no
    violation to find, and a rate of 1 is a systematic bug that one trial finds.
    """
    try:
        return parse_probability(value, OPEN_INTERVAL)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx, param) from None


def rates_option(ctx: click.Context, param: click.Parameter, value: str) -> tuple[float, ...]:
    """--rates, the table's rows: each in (0, 1].

    q = 1, a systematic bug, is a row worth showing: it is where every knob
    costs nothing. q = 0 is no violation at all, a row of 0% in every column for
    every setup, more likely a typo than a question.
    """
    try:
        return parse_rates(value)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx, param) from None


def observed_option(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> tuple[int, int] | None:
    """--observed K/N: counts, so the rate K/N may be 0 or 1 (see ``parse_observed``)."""
    if value is None:
        return None
    try:
        return parse_observed(value)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx, param) from None
