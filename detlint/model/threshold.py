"""A pass threshold: a test that fails only when enough of its T trials fail.

A test that counts its passing trials and asserts ``passes >= 3`` of 5 fails only
when at least m = 5 - 3 + 1 = 3 trials fail: one attempt detects a violation of
per-trial rate q with probability ``P[Binomial(T, q) >= m]``, not ``1 - (1 - q)**T``.
The number of passes needed may follow the trial count (``passes >= N - 1`` needs
T - 1 whatever T is, so m stays 2) or not (``passes >= 3`` needs 3, so every trial
added raises m by one and detection falls). ``Threshold`` holds that rule so a trial
count set elsewhere (a CI variable) gets the m the test's own code gives it.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from detlint.model.layers import any_fails

# Up to here math.comb(T, k) fits a float exactly enough; past it the terms go through lgamma.
_EXACT_TRIALS = 500
# Up to here log(comb(T, k)) is summed term by term.
_SHORT_SIDE = 2000


# A bound on the count, as an expression of the trial count N: ("n",), ("num", 3),
# ("num", 0.8), (operator, left, right) with an operator of "+ - * / //", or
# (function, operand) with a function of "neg int floor ceil". It is evaluated with
# Python's own int and float arithmetic, as the test evaluates it: ``0.7 * 10`` is
# 7.000000000000001, so ``passes >= 0.7 * 10`` needs 8 passes, not 7.
Bound = tuple[object, ...]
Counted = Literal["passes", "failures"]
Operator = Literal[">=", ">", "<=", "<"]

_BINARY: dict[str, Callable[[float, float], float]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
}
_UNARY: dict[str, Callable[[float], float]] = {
    "neg": operator.neg,
    "int": int,
    "floor": math.floor,
    "ceil": math.ceil,
}


def evaluate(bound: Bound, trials: int) -> float:
    """The bound's value where N is ``trials``."""
    kind = bound[0]
    if kind == "n":
        return trials
    if kind == "num":
        value = bound[1]
        assert isinstance(value, int | float)
        return value
    if kind in _UNARY:
        operand = bound[1]
        assert isinstance(operand, tuple)
        return _UNARY[str(kind)](evaluate(operand, trials))
    left, right = _operands(bound)
    return _BINARY[str(kind)](evaluate(left, trials), evaluate(right, trials))


def _operands(bound: Bound) -> tuple[Bound, Bound]:
    left, right = bound[1], bound[2]
    if not (isinstance(left, tuple) and isinstance(right, tuple)):
        raise ValueError(f"not a bound: {bound!r}")
    return left, right


def _uses_count(bound: Bound) -> bool:
    return bound[0] == "n" or any(
        isinstance(part, tuple) and _uses_count(part) for part in bound[1:]
    )


def _count_plus_integer(bound: Bound) -> bool:
    """Whether the bound is N plus or minus whole numbers: ``N - 1``, ``2 + N - 3``."""
    kind = bound[0]
    if kind == "n":
        return True
    if kind in ("+", "-"):
        left, right = _operands(bound)
        if _count_plus_integer(left) and _integer(right):
            return True
        return kind == "+" and _integer(left) and _count_plus_integer(right)
    return False


def _integer(bound: Bound) -> bool:
    return not _uses_count(bound) and isinstance(evaluate(bound, 0), int)


@dataclass(frozen=True)
class Threshold:
    """What a test asserts of a count its trial loop keeps: ``passes >= 3`` is
    ("passes", ">=", ("num", 3)), ``failures <= 1`` is ("failures", "<=", ("num", 1)),
    ``passes > N // 2`` is ("passes", ">", ("//", ("n",), ("num", 2))).

    ``counted`` says which way the assertion reads: a lower bound (``>=``, ``>``) is
    one on the trials that pass, an upper bound one on the trials that fail.
    Requiring every trial to pass (``failures == 0``, ``passes == N``) is no threshold:
    the readers give None for it.
    """

    counted: Counted
    operator: Operator
    bound: Bound

    def passes_needed(self, trials: int) -> int:
        value = evaluate(self.bound, trials)
        if self.counted == "passes":
            return math.ceil(value) if self.operator == ">=" else math.floor(value) + 1
        allowed = math.floor(value) if self.operator == "<=" else math.ceil(value) - 1
        return trials - allowed

    def fails_at(self, trials: int) -> int:
        """m: the failing trials that fail the test. Above T the test never fails; at
        or below 0 it fails even when no trial does."""
        return trials - self.passes_needed(trials) + 1

    @property
    def follows_count(self) -> bool:
        """Whether m is the same at every trial count: a bound on failures that does not
        name N, or on passes that is N plus or minus whole numbers. Then more trials
        never lower detection."""
        if self.counted == "failures":
            return not _uses_count(self.bound)
        return _count_plus_integer(self.bound)

    @property
    def fixed_passes(self) -> bool:
        """Whether the passes needed are the same at every count (``passes >= 3``): then
        every trial added raises m by one, and detection only falls with more trials
        (``P[Binomial(T, 1 - q) < k]`` falls as T grows)."""
        return self.counted == "passes" and not _uses_count(self.bound)

    def describe(self, trials: int) -> str:
        """ "the test failing only when 3 of them fail" (at ``trials`` trials)."""
        failing = self.fails_at(trials)
        if failing > trials:
            return "the test never failing on them"
        if failing <= 0:
            return "the test failing even when none fails"
        if failing == 1:
            return "the test failing when any of them fails"
        if failing == trials:
            return "the test failing only when all of them fail"
        return f"the test failing only when {failing} of them fail"


def at_least(failing: float, trials: int, count: int) -> float:
    """``P[Binomial(trials, failing) >= count]``, summed exactly on the side of ``count``
    that holds few terms worth adding (the check path must not pay scipy's import time;
    the tests cross-check scipy), through ``lgamma`` where a binomial coefficient would
    overflow a float."""
    if count <= 0:
        return 1.0
    if count > trials:
        return 0.0
    if count == 1:
        return any_fails(failing, trials)
    if failing <= 0.0 or failing >= 1.0:
        return 0.0 if failing <= 0.0 else 1.0
    if failing * trials >= count:
        # The mass lies at or above count: one minus the few terms below it.
        below = math.fsum(_probability(failing, trials, fails) for fails in range(count))
        return max(0.0, 1.0 - below)
    # The terms fall from count on (the mode is below it): add them until they vanish.
    total = 0.0
    for fails in range(count, trials + 1):
        term = _probability(failing, trials, fails)
        total += term
        if term <= total * 1e-17:
            break
    return min(1.0, total)


def _probability(failing: float, trials: int, fails: int) -> float:
    """``P[Binomial(trials, failing) == fails]`` for 0 < failing < 1."""
    if trials <= _EXACT_TRIALS:
        return float(
            math.comb(trials, fails) * failing**fails * (1.0 - failing) ** (trials - fails)
        )
    return math.exp(
        _log_comb(trials, fails)
        + fails * math.log(failing)
        + (trials - fails) * math.log1p(-failing)
    )


def _log_comb(trials: int, fails: int) -> float:
    """``log(comb(trials, fails))``: a sum of logarithms when the smaller side is short
    (``lgamma`` of a billion loses six digits), ``lgamma`` otherwise."""
    side = min(fails, trials - fails)
    if side <= _SHORT_SIDE:
        return math.fsum(math.log(trials - i) - math.log(i + 1) for i in range(side))
    return math.lgamma(trials + 1) - math.lgamma(fails + 1) - math.lgamma(trials - fails + 1)
