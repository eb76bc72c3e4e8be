"""Command-line values: probabilities, lists of rates and ``K/N`` counts.

Each parser is a click callback so that a bad value is rejected with the
option's name before any computation starts.
"""

from __future__ import annotations

import math

import click


def parse_probability(text: str) -> float:
    """``"0.1"`` or ``"10%"`` -> 0.1; raises ValueError outside [0, 1]."""
    raw = text.strip()
    scale = 1.0
    if raw.endswith("%"):
        raw, scale = raw[:-1].strip(), 0.01
    try:
        value = float(raw) * scale
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not a number") from None
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{text.strip()} is not a probability in [0, 1]")
    return value


def parse_rates(text: str) -> tuple[float, ...]:
    """``"0.05,10%"`` -> (0.05, 0.1)."""
    items = [item for item in text.split(",") if item.strip()]
    if not items:
        raise ValueError("give at least one rate, e.g. 0.05,0.1")
    return tuple(parse_probability(item) for item in items)


def parse_observed(text: str) -> tuple[int, int]:
    """``"0/60"`` -> (0, 60): K violations seen in N trials."""
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
    try:
        return parse_probability(value)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx, param) from None


def rates_option(ctx: click.Context, param: click.Parameter, value: str) -> tuple[float, ...]:
    try:
        return parse_rates(value)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx, param) from None


def observed_option(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> tuple[int, int] | None:
    if value is None:
        return None
    try:
        return parse_observed(value)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx, param) from None
