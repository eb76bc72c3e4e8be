"""The audit report's facts: each test's stack and numbers, the knobs ranked by
what removing each wins back, the CI steps, and the headline.

Frozen values built once by :mod:`detlint.report.audit.view`; the HTML and Markdown
reports only render them.
"""

from __future__ import annotations

from dataclasses import dataclass

from detlint.model import Policy

# A test whose violation at the reference rate is reported at most this often
# "effectively never blocks": one report in a thousand violations. The comparison
# allows for rounding: 0.1**3 is 1 in 1000 whichever way the float falls.
EFFECTIVELY_NEVER = 0.001
ROUNDING = 1e-9


@dataclass(frozen=True)
class KnobView:
    """One knob where it is written, the tests it reaches and what removing it wins back.

    ``gain`` sums, over the ``counted`` tests, how much more often a violation at
    the reference rate would be reported without this knob alone (the test's
    other knobs kept); ``uncounted`` tests have another masking knob inside pytest
    whose precedence decides what removing this one gives, so they add nothing.
    ``files`` are test files a CI step runs under the knob whose tests have no knob
    of their own: each is counted as one test of one trial, as ``check`` assumes.
    """

    id: str
    kind: str
    description: str
    path: str
    line: int
    condition: str
    snippet: tuple[str, ...]
    tests: int
    files: int
    counted: int
    uncounted: int
    gain: float
    reported: float  # the mean over the counted tests, with the knob
    reported_without: float  # the same tests' mean without this knob alone
    # The commonest policy of the counted tests, and that policy without this knob.
    policies: tuple[Policy, Policy] | None


@dataclass(frozen=True)
class KindView:
    """Every knob of one kind together (the 247 ``@flaky`` decorators of a suite):
    what removing all of them, each alone, would win back."""

    kind: str
    knobs: int
    counted: int  # tests counted, over all of them
    gain: float
    reported: float  # the mean over the counted tests, with the knob
    reported_without: float


@dataclass(frozen=True)
class StepView:
    """One pytest invocation in a pipeline: what gates it and what it reaches."""

    step: str
    system: str
    path: str
    line: int
    command: str
    knobs: tuple[str, ...]  # "soft_fail: true (line 18)"
    tests: int  # tests with knobs of their own that this run reaches
    test_files: int
    directories: tuple[str, ...]
    gate: str
    reported: float | None  # median over its tests, at the reference rate
    reported_without: float | None


@dataclass(frozen=True)
class CensusView:
    """One CI knob and what detlint made of it: the findings at it, or why none."""

    kind: str
    path: str
    line: int
    step: str
    written: str  # the knob as written, e.g. "soft_fail: true"
    verdict: str  # "finding", "no-finding" or "not-judged"
    codes: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class TestView:
    """One test (or the instances a ``pytest.param`` mark covers), its stack and numbers."""

    label: str
    path: str
    line: int
    instances: int | None
    policy: Policy
    layers: tuple[str, ...]  # trials -> reruns -> job retries -> gate, in that order
    environments: tuple[str, ...]
    notes: tuple[str, ...]
    knob_ids: tuple[str, ...]
    knob_kinds: tuple[str, ...]
    step: str | None  # the CI step whose numbers are shown, when a step runs it
    rules: tuple[str, ...]
    finding_ids: tuple[str, ...]
    suggestion: str
    reported: float
    reported_without: float
    q50: float | None
    q50_without: float | None
    trials_needed: int | None
    measured: str = ""  # what the CI reports given with --evidence say of it
    # Some other environment (a condition's) masks where this one may not.
    masks_elsewhere: bool = False

    @property
    def loss(self) -> float:
        return self.reported_without - self.reported

    @property
    def never_blocks(self) -> bool:
        return not self.policy.gate.blocks

    @property
    def effectively_never(self) -> bool:
        return self.reported <= EFFECTIVELY_NEVER * (1 + ROUNDING)


@dataclass(frozen=True)
class FindingView:
    id: str  # the baseline's fingerprint
    code: str
    path: str
    line: int
    message: str


@dataclass(frozen=True)
class Headline:
    tests: int  # tests with a knob that hides failures
    masked: int  # tests whose knobs lower the chance of a report
    median_reported: float | None
    median_without: float | None
    never_block: int
    effectively_never: int  # blocking, yet at most EFFECTIVELY_NEVER
    best: KnobView | None
    best_kind: KindView | None  # when it is more than one knob
    # Tests with knobs the report leaves out (the JSON audit lists them): skipped or
    # xfailed for a reason that is not flakiness, and those with no knob that hides.
    not_run: int
    without_hiding_knob: int
    # Test files a CI knob that hides failures runs, whose tests have no knob or trial
    # loop of their own: detlint links them as files, not test by test.
    files_under_ci_knobs: int
    # Tests whose `flaky` marker the project's own conftest code reads, no rerun plugin
    # declared: what it does is the project's, and detlint does not judge it.
    not_judged: int = 0
    # Tests whose hiding knobs mask nothing in any environment: a filter that lets no
    # assertion by, a condition that is never true, a marker that errors every run.
    mask_nothing: int = 0


@dataclass(frozen=True)
class AuditView:
    version: str
    command: str
    date: str
    root: str
    reference_rate: float
    target: float
    headline: Headline
    tests: tuple[TestView, ...]  # ranked by loss
    knobs: tuple[KnobView, ...]  # ranked by gain
    kinds: tuple[KindView, ...]  # ranked by gain
    steps: tuple[StepView, ...]
    findings: tuple[FindingView, ...]
    problems: tuple[str, ...]
    not_read: tuple[str, ...]
    census: tuple[CensusView, ...] = ()  # every CI knob, in file order
