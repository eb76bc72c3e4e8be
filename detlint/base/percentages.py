"""How detlint writes probabilities for people.

Percentages keep three significant figures from 10% up and two below, the
convention of the hand analysis detlint reproduces (41.0%, 2.8%, 0.26%, 100%):
enough digits to compare a knob's loss, never so many that noise looks like
signal. Machine formats carry the exact floats instead.
"""

from __future__ import annotations

SMALLEST_SHOWN_PERCENT = 0.001


def percent(probability: float) -> str:
    """A probability as a percentage: ``0.0281`` -> ``"2.8%"``."""
    value = probability * 100.0
    if value == 0.0:
        return "0%"
    if value < SMALLEST_SHOWN_PERCENT:
        return f"<{SMALLEST_SHOWN_PERCENT:g}%"
    if value >= 99.95:
        return "100%"
    if value >= 9.95:
        return f"{value:.1f}%"
    return f"{value:#.2g}%"


def fraction(probability: float) -> str:
    """A probability as a two-decimal fraction, as rates are usually quoted: ``0.06``."""
    return f"{probability:.2f}"


def percent_label(probability: float) -> str:
    """A rate a person chose (a table row, a target), as written: ``0.05`` -> ``"5%"``."""
    return f"{round(probability * 100.0, 9):g}%"
