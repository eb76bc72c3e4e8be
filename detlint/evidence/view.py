"""What CI history says about each test: measured rates, what the knobs hid, and
what the green builds prove.

The builds come from the reports CI keeps (:mod:`detlint.evidence.reports`). A build
where most tests failed is an infrastructure failure (a lost agent, a broken
image): it is counted apart and says nothing about any one test. For the others,
each test's first attempt in a build is one Bernoulli trial of "does it fail":
``k`` of ``n`` builds failing their first attempt give the per-attempt failure
rate with its Wilson interval (:func:`detlint.model.estimate_rate`), unless the
test's plugin leaves that attempt out of the reports (:mod:`detlint.evidence.rates`).
An XFAIL is a failed attempt that left the build green. With the
repository given, the test's static policy says what its knobs did to a failure
that frequent, and what its green builds prove: a run of green builds under
reruns bounds the rate far less tightly than the same builds would without them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from detlint.evidence.rates import FIRST_ATTEMPTS, BuildCounts, attempt_rate, per_trial
from detlint.model import Policy
from detlint.model.evidence import RateEstimate

if TYPE_CHECKING:
    from detlint.evidence.reports.records import Build, TestAttempts

# A build where more than this share of the tests that ran failed is an infrastructure
# failure, not evidence about any test.
INFRASTRUCTURE_SHARE = 0.8
# A build of fewer tests than this is too small to call an infrastructure failure.
INFRASTRUCTURE_MIN_TESTS = 5
CONFIDENCE = 0.95
_PARAMETERS = re.compile(r"\[.*\]$")


@dataclass(frozen=True)
class TestEvidence:
    """One test over every build that is evidence."""

    test: str  # as the reports name it (the node id, or JUnit's dotted classname::name)
    matched: str | None  # the static test it was matched to (its label), with --repo
    builds: int  # builds in which it ran (not skipped)
    attempts: int
    first_failures: int  # builds that recorded a failed attempt (the first, for reruns)
    flaky_passes: int  # builds it passed only after a rerun
    hard_failures: int  # builds whose last attempt failed too
    # The per-attempt failure rate with its Wilson interval, and what it rests on
    # (``rates.FIRST_ATTEMPTS``, ``ATTEMPTS``, ``XFAILS`` or ``FAILED_BUILDS``; see ``rates``).
    rate: RateEstimate
    policy: Policy | None  # its static policy, attempt by attempt (trials folded in)
    policy_text: str  # what the knobs are, in words ("reruns=3 (pytest-rerunfailures, ...)")
    reported: float | None  # P(a failure this frequent turns the build red) under the policy
    green: int  # builds whose last attempt passed
    green_bound: float | None  # the rate those green builds bound, under the policy
    green_bound_without: float | None  # the same builds without the knobs
    basis: str = FIRST_ATTEMPTS
    expected_failures: int = 0  # builds whose last attempt was an XFAIL
    # Consecutive pairs of its builds (in the order given) and how many of them differ
    # in whether a failed attempt was recorded; None where the reports do not say
    # which builds had one (flaky with min_passes > 1).
    pairs: int = 0
    flips: int | None = None
    trials: int = 1  # trials per attempt the repository gives the test
    per_trial: RateEstimate | None = None  # the rate per trial, when trials > 1

    @property
    def flip_rate(self) -> float | None:
        """The share of consecutive build pairs whose outcome differs. Builds that fail
        independently at rate p flip about 2p(1 - p) of the time; far fewer flips than
        that mean failures come in runs of builds (a regression and its fix), not at
        random."""
        if self.flips is None or not self.pairs:
            return None
        return self.flips / self.pairs

    @property
    def hidden(self) -> float:
        """How much of the measured rate the knobs kept from turning builds red."""
        return 0.0 if self.reported is None else self.rate.rate - self.reported


@dataclass(frozen=True)
class EvidenceView:
    builds: int  # builds read
    infrastructure: tuple[str, ...]  # builds set apart as infrastructure failures
    tests: tuple[TestEvidence, ...]  # ranked by what was hidden, then by flaky passes
    threshold: float  # the infrastructure share used
    first: datetime | None = None  # the earliest and latest build times the reports give
    last: datetime | None = None


def _final_failed(attempts: TestAttempts) -> bool:
    return attempts.outcome == "failed"


def infrastructure_failure(build: Build, share: float = INFRASTRUCTURE_SHARE) -> bool:
    """Whether most of the tests that ran in a build failed for good."""
    ran = [test for test in build.tests if test.outcome != "skipped"]
    failed = sum(_final_failed(test) for test in ran)
    return len(ran) >= INFRASTRUCTURE_MIN_TESTS and failed / len(ran) > share


def attempt_policy(policy: Policy) -> Policy:
    """``policy`` one attempt at a time: the measured rate is of attempts, not of trials,
    so the trial count is already inside it."""
    return Policy(trials=1, layers=policy.layers, gate=policy.gate)


@dataclass
class _Tally:
    builds: int = 0
    attempts: int = 0
    first_failures: int = 0
    flaky_passes: int = 0
    hard_failures: int = 0
    expected_failures: int = 0
    green: int = 0
    green_attempts: int = 0
    failed_attempts: list[int] = field(default_factory=list)
    junit_only: bool = True
    pairs: int = 0
    flips: int = 0
    last: bool | None = None  # whether the latest build it ran in recorded a failure
    # The same pairs, by whether the build ended in an XFAIL (what a strict xfail's
    # violation leaves; its strict XPASS reruns record no violation).
    xfail_flips: int = 0
    last_xfailed: bool | None = None

    def add(self, attempts: TestAttempts, build_format: str) -> None:
        if attempts.outcome == "skipped":
            return
        self.builds += 1
        self.attempts += attempts.attempts
        self.junit_only &= build_format == "junit"
        failed = attempts.failed_attempts > 0
        self.first_failures += failed
        if self.last is not None:
            self.pairs += 1
            self.flips += failed != self.last
        self.last = failed
        xfailed = attempts.outcome == "xfailed"
        if self.last_xfailed is not None:
            self.xfail_flips += xfailed != self.last_xfailed
        self.last_xfailed = xfailed
        if attempts.outcome == "passed":
            self.green += 1
            self.green_attempts += attempts.attempts
            self.flaky_passes += failed
        elif attempts.outcome == "xfailed":
            self.expected_failures += 1
        else:
            self.hard_failures += 1
            self.failed_attempts.append(attempts.attempts)

    def counts(self) -> BuildCounts:
        return BuildCounts(
            builds=self.builds,
            first_failures=self.first_failures,
            hard_failures=self.hard_failures,
            green=self.green,
            green_attempts=self.green_attempts,
            failed_attempts=tuple(self.failed_attempts),
            attempts=self.attempts,
            expected_failures=self.expected_failures,
            junit_only=self.junit_only,
        )


def static_key(test: str) -> str:
    """A reported test's name without its parameters (``test_x[1]`` -> ``test_x``): the
    static pass knows functions, and every instance shares its function's knobs."""
    return _PARAMETERS.sub("", test)


def evidence_view(
    builds: Iterable[Build],
    policy_of: Callable[[TestAttempts], tuple[str, Policy, str] | None] | None = None,
    share: float = INFRASTRUCTURE_SHARE,
) -> EvidenceView:
    """Every test's evidence over ``builds``; ``policy_of`` gives a reported test's
    static label, policy and knob description when the repository is known."""
    infrastructure: list[str] = []
    tallies: dict[str, _Tally] = {}
    examples: dict[str, TestAttempts] = {}
    read = 0
    times: list[datetime] = []
    for build in builds:  # one at a time: only the tallies are kept
        read += 1
        if build.time is not None:
            times.append(build.time)
        if infrastructure_failure(build, share):
            infrastructure.append(build.source)
            continue
        for attempts in build.tests:
            tallies.setdefault(attempts.test, _Tally()).add(attempts, build.format)
            examples.setdefault(attempts.test, attempts)
    tests = [
        _test(name, tally, examples[name], policy_of)
        for name, tally in tallies.items()
        if tally.builds > 0
    ]
    tests.sort(key=lambda item: (-item.hidden, -item.flaky_passes, -item.rate.rate, item.test))
    first, last = _span(times)
    return EvidenceView(read, tuple(infrastructure), tuple(tests), share, first, last)


def _span(times: list[datetime]) -> tuple[datetime | None, datetime | None]:
    """The earliest and latest times, when they can be compared (all with a zone, or
    all without)."""
    if not times or len({time.tzinfo is None for time in times}) > 1:
        return None, None
    return min(times), max(times)


def _test(
    name: str,
    tally: _Tally,
    example: TestAttempts,
    policy_of: Callable[[TestAttempts], tuple[str, Policy, str] | None] | None,
) -> TestEvidence:
    found = policy_of(example) if policy_of is not None else None
    matched, policy, text = (None, None, "") if found is None else found
    matched = matched or None
    measured = attempt_rate(tally.counts(), policy, CONFIDENCE)
    rate = measured.estimate
    attempt = attempt_policy(policy) if policy is not None else None
    bound = bound_without = None
    if tally.green:
        bound_without = Policy().green_run_bound(tally.green, CONFIDENCE)
        bound = attempt.green_run_bound(tally.green, CONFIDENCE) if attempt is not None else None
    return TestEvidence(
        test=name,
        matched=matched,
        builds=tally.builds,
        attempts=tally.attempts,
        first_failures=tally.first_failures,
        flaky_passes=tally.flaky_passes,
        hard_failures=tally.hard_failures,
        rate=rate,
        policy=attempt,
        policy_text=text,
        reported=attempt.reported(rate.rate) if attempt is not None else None,
        green=tally.green,
        green_bound=bound,
        green_bound_without=bound_without,
        basis=measured.basis,
        expected_failures=tally.expected_failures,
        pairs=tally.pairs,
        flips=_flips(tally, policy) if measured.per_build else None,
        trials=policy.trials if policy is not None else 1,
        per_trial=per_trial(rate, policy),
    )


def _flips(tally: _Tally, policy: Policy | None) -> int:
    """Flips of whether a build recorded the violation: a failed attempt, or under a
    strict xfail an XFAIL."""
    return tally.xfail_flips if policy is not None and policy.inverted else tally.flips


def flaky_tests(view: EvidenceView) -> list[TestEvidence]:
    return [test for test in view.tests if test.flaky_passes]
