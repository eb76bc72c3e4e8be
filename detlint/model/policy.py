"""A test's whole detection policy and the questions asked of it.

``Policy`` composes trials, retry layers and a gate from the inside out
(trials -> test reruns -> job retries -> gate) and answers: how often is a
violation of per-trial rate q reported, which q is reported half the time,
how many trials would reach a target, and what do N green runs prove.

Every rate question is one inverse problem, ``reported(q) = p``; it is solved
by walking the layers' closed-form inverses where all of them have one and by
``scipy.optimize.brentq`` otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

from detlint.model.gate import BLOCKING, Gate
from detlint.model.layers import Layer, StrictXfail, any_fails_inverse
from detlint.model.threshold import Threshold, at_least

# Search ceiling for trials_needed: beyond this the answer is "not practical".
MAX_TRIALS = 10**9


def _check_probability(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")


@dataclass(frozen=True)
class Policy:
    """Trials per attempt, the retry layers in application order, and the gate.

    ``threshold`` is the test's own pass threshold over its trials (``passes >= 3``),
    None when any failing trial fails the test.
    """

    trials: int = 1
    layers: tuple[Layer, ...] = ()
    gate: Gate = BLOCKING
    threshold: Threshold | None = None

    def __post_init__(self) -> None:
        if isinstance(self.trials, bool) or not isinstance(self.trials, int) or self.trials < 1:
            raise ValueError(f"trials must be an integer >= 1, got {self.trials!r}")

    # -- composition -------------------------------------------------------

    @property
    def fails_at(self) -> int:
        """m: how many of the T trials must fail for one attempt to fail (1 without a
        threshold)."""
        return 1 if self.threshold is None else self.threshold.fails_at(self.trials)

    def attempt(self, q: float) -> float:
        """P(one attempt of T trials fails): ``1 - (1 - q)**T``, or with a threshold
        ``P[Binomial(T, q) >= m]``."""
        _check_probability("q", q)
        return at_least(q, self.trials, self.fails_at)

    def failing(self, q: float) -> float:
        """P(the outcome below the gate is a failure)."""
        value = self.attempt(q)
        for layer in self.layers:
            value = layer.apply(value)
        return value

    def reported(self, q: float) -> float:
        """P(a violation of per-trial rate q turns the build red)."""
        return self.failing(q) if self.gate.blocks else 0.0

    def visible(self, q: float) -> float:
        """P(the violation leaves a trace someone can see, blocking or not)."""
        return self.failing(q) if self.gate.visible else 0.0

    # -- derived policies --------------------------------------------------

    @property
    def masks(self) -> bool:
        """True when any layer or the gate lowers the chance of a report."""
        return not self.gate.blocks or any(layer.masks for layer in self.layers)

    @property
    def inverted(self) -> bool:
        """True under a strict xfail: the build is red when the test *passes*, so a
        retry above it hides a fixed bug, not a violation; the rules that speak of
        hidden violations leave such a test to its own marker."""
        return any(isinstance(layer, StrictXfail) for layer in self.layers)

    def baseline(self) -> Policy:
        """The same test with every masking knob removed ("without the knob")."""
        kept = tuple(layer for layer in self.layers if not layer.masks)
        return Policy(trials=self.trials, layers=kept, gate=BLOCKING, threshold=self.threshold)

    def every_trial(self) -> Policy:
        """The same test requiring every trial to pass: its threshold dropped."""
        return replace(self, threshold=None)

    def with_trials(self, trials: int) -> Policy:
        return replace(self, trials=trials)

    def with_layers(self, layers: Iterable[Layer]) -> Policy:
        return replace(self, layers=tuple(layers))

    def describe(self) -> str:
        parts = [f"{self.trials} trial{'s' if self.trials != 1 else ''} per attempt"]
        if self.threshold is not None and self.fails_at != 1:
            parts[0] += f", {self.threshold.describe(self.trials)}"
        parts += [layer.describe() for layer in self.layers]
        if not self.gate.blocks:
            parts.append(self.gate.describe())
        return "; ".join(parts)

    # -- inverse questions -------------------------------------------------

    def rate_reported_with(self, probability: float) -> float | None:
        """The per-trial rate q with ``reported(q) == probability``.

        None when no rate reaches it (the gate never blocks, or the layers
        cannot produce that probability).
        """
        _check_probability("probability", probability)
        if not self.gate.blocks:
            return None
        closed = self._closed_form_rate(probability)
        if closed is not None:
            return closed
        return self._numeric_rate(probability)

    def _closed_form_rate(self, probability: float) -> float | None:
        value = probability
        for layer in reversed(self.layers):
            inverse = layer.invert(value)
            if inverse is None:
                return None
            value = inverse
        if self.fails_at != 1:
            return None  # a binomial tail has no closed-form inverse
        return any_fails_inverse(value, self.trials)

    def _numeric_rate(self, probability: float) -> float | None:
        from scipy.optimize import brentq

        low, high = self.failing(0.0) - probability, self.failing(1.0) - probability
        if low == 0.0:
            return 0.0
        if high == 0.0:
            return 1.0
        if (low > 0) == (high > 0):
            return None
        root = brentq(lambda q: self.failing(q) - probability, 0.0, 1.0, xtol=1e-15, rtol=1e-14)
        return float(root)

    def q50(self) -> float | None:
        """The per-trial rate at which a violation is reported half the time."""
        return self.rate_reported_with(0.5)

    def green_run_bound(self, runs: int, confidence: float = 0.95) -> float | None:
        """Upper bound on q after ``runs`` green runs under this policy.

        The q at which ``(1 - reported(q))**runs == 1 - confidence``: any larger
        rate would have turned at least one of those runs red with probability
        ``confidence``. None when the policy never reports (no bound at all).
        """
        if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
            raise ValueError(f"runs must be an integer >= 1, got {runs!r}")
        _check_probability("confidence", confidence)
        per_run = 1.0 - (1.0 - confidence) ** (1.0 / runs)
        return self.rate_reported_with(per_run)

    def green_runs_needed(self, rate: float, confidence: float = 0.95) -> int | None:
        """How many green runs in a row rule out a per-trial rate of ``rate`` at
        ``confidence``: the smallest N with ``(1 - reported(rate))**N <= 1 - confidence``,
        the inverse of ``green_run_bound``. A team lifting a quarantine asks it: how long
        the test must stay green before a violation at the reference rate is unlikely.
        None when the policy never reports a violation at that rate (no run of green
        builds says anything)."""
        _check_probability("rate", rate)
        _check_probability("confidence", confidence)
        reported = self.reported(rate)
        if reported <= 0.0:
            return None
        if reported >= 1.0:
            return 1
        runs = math.log(1.0 - confidence) / math.log1p(-reported)
        # A hair over an integer from rounding is that integer.
        return max(1, math.ceil(runs - 1e-9))

    def trials_needed(self, reference_rate: float, target: float) -> int | None:
        """Smallest T' with ``with_trials(T').reported(reference_rate) >= target``.

        For a policy with no other layers this is the smallest T' with
        ``1 - (1 - q_ref)**T' >= target``. None when no trial count reaches it.
        Assumes more trials never lower detection, true of every layer but
        ``StrictXfail``, which ``baseline()`` drops, and of a threshold whose m stays
        the same at every count (``passes >= N - 1``). A threshold of a fixed number
        of passes (``passes >= 3``) raises m with every trial added, so detection
        falls as well as rises with T': the question has no such answer, and None
        is given (``every_trial()`` asks it of the test without its threshold).
        """
        _check_probability("reference rate", reference_rate)
        _check_probability("target", target)
        if self.threshold is not None and not self.threshold.follows_count:
            return None

        def reaches(trials: int) -> bool:
            return self.with_trials(trials).reported(reference_rate) >= target

        if reaches(1):
            return 1
        if target >= 1.0:
            # Only a certain violation is reported with certainty; a float that
            # rounds 1 - 0.9**356 up to 1.0 is not an answer.
            return None
        high = 2
        while not reaches(high):
            if high >= MAX_TRIALS:
                return None
            high = min(high * 2, MAX_TRIALS)
        low = high // 2  # known not to reach
        while high - low > 1:
            middle = (low + high) // 2
            if reaches(middle):
                high = middle
            else:
                low = middle
        return high
