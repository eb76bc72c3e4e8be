"""The audit as people read it: each test's whole stack, the knobs ranked by what
removing them wins back, the CI steps, and the headline.

The HTML and Markdown reports both render this one value, so they cannot
disagree; every number in it is the model's (``Policy.reported``), computed here
once. A test that several CI steps run is shown as the step most likely to
report it: the report never claims a loss larger than the best chance some
step has of catching the violation.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from detlint import __version__
from detlint.base.percentages import percent, percent_label
from detlint.base.source_lines import SourceLines
from detlint.base.span import Span
from detlint.compose.test_gate import Knob, TestGate
from detlint.model import Policy
from detlint.readers.project.pytest_configs import PytestConfigs
from detlint.report.audit.census import census_views
from detlint.report.audit.facts import (
    AuditView,
    FindingView,
    Headline,
    KindView,
    KnobView,
    TestView,
)
from detlint.report.audit.knobs import (
    GATE_KINDS,
    KnobTally,
    ci_knob_text,
    hides,
    knob_id,
    mean,
    median,
    removals,
    step_removals,
)
from detlint.report.audit.steps import files_under_ci_knobs, step_views

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
    from detlint.engine import Analysis
    from detlint.rules.finding import Finding

SNIPPET_LINES = 3
# The least a change must give back on average to be named as the one that wins
# back most: one percentage point of the chance a violation is reported.
MEANINGFUL_GAIN = 0.01
# A test's policy without each of its masking knobs alone, by knob id (``removals``).
Removals = Mapping[str, Policy | None]


def _snippet(sources: SourceLines, span: Span) -> tuple[str, ...]:
    """The knob's lines as written; none for a knob longer than ``SNIPPET_LINES`` (its
    first lines could show a retry rule that is not the one that matters, and the
    description quotes the whole value)."""
    if span.end_line - span.line >= SNIPPET_LINES:
        return ()
    lines = sources.utf8_lines(span.path)
    return tuple(line.rstrip("\r") for line in lines[span.line - 1 : span.end_line])


def _layers(policy: Policy) -> tuple[str, ...]:
    trials = f"{policy.trials} trial{'s' if policy.trials != 1 else ''} per attempt"
    return (trials, *(layer.describe() for layer in policy.layers), policy.gate.describe())


def _best_ci(gates: Sequence[CiGate], reference_rate: float) -> CiGate | None:
    return max(gates, key=lambda gate: gate.policy.reported(reference_rate), default=None)


@dataclass(frozen=True)
class _Numbers:
    reported: float
    reported_without: float
    q50: float | None
    q50_without: float | None
    trials_needed: int | None


class _Builder:
    def __init__(
        self,
        analysis: Analysis,
        cwd: Path,
        reference_rate: float,
        target: float,
        measured: Mapping[str, str],
    ) -> None:
        self.measured = measured
        self.rate = reference_rate
        self.target = target
        self.cwd = cwd
        self.sources = SourceLines(cwd)
        # The run's pytest configs (a view built without a run reads them afresh).
        self.configs = analysis.pytest_configs or PytestConfigs(cwd)
        self.knobs: dict[str, KnobTally] = {}
        self.left_out: Counter[str] = Counter()
        self.computed: dict[Policy, _Numbers] = {}
        self.findings = _finding_views(analysis.findings, cwd)
        self.by_knob: dict[str, list[tuple[Finding, FindingView]]] = {}
        for finding, view in zip(analysis.findings, self.findings, strict=True):
            self.by_knob.setdefault(knob_id(finding.span), []).append((finding, view))

    def written(self, span: Span, description: str) -> str:
        """A knob as its source writes it when that fits on a line: the decorator
        ``@pytest.mark.flaky(reruns=3)``, the setting ``reruns = 2``."""
        if span.end_line != span.line:
            return description
        line = _snippet(self.sources, span)
        if not line:
            return description
        text = line[0][span.column - 1 : span.end_column - 1].strip()
        return text if 0 < len(text) <= 80 else description

    def numbers(self, policy: Policy) -> _Numbers:
        """A policy's numbers, worked out once: thousands of tests share a few policies."""
        found = self.computed.get(policy)
        if found is None:
            baseline = policy.baseline()
            found = self.computed[policy] = _Numbers(
                reported=policy.reported(self.rate),
                reported_without=baseline.reported(self.rate),
                q50=policy.q50(),
                q50_without=baseline.q50(),
                trials_needed=baseline.trials_needed(self.rate, self.target),
            )
        return found

    def knob(self, span: Span, kind: str, description: str, condition: str) -> str:
        key = knob_id(span)
        if key not in self.knobs:
            self.knobs[key] = KnobTally(kind, description, span, condition)
        return key

    def test(self, gate: TestGate, ci: Sequence[CiGate]) -> TestView | None:
        """The test's view, or None when the report leaves it out (see ``leaves_out``)."""
        chosen = _best_ci(ci, self.rate)
        hiding = [knob for knob in gate.knobs if hides(knob)]
        if self.leaves_out(gate, chosen, hiding):
            if gate.policy.gate.blocks:  # it runs: a knob of another step still hides it
                self.step_knobs(ci, None, set())
            return None
        policy = chosen.policy if chosen is not None else gate.policy
        numbers = self.numbers(policy)
        ids, kinds = self.test_knobs(gate, chosen)
        # The knobs inside pytest that hide failures wherever the test runs.
        python = list(dict.fromkeys(knob_id(knob.span) for knob in hiding if not knob.condition))
        alone = removals(gate, chosen, python, self.configs, self.cwd)
        unique = tuple(dict.fromkeys(ids))
        self.tally(unique, alone, policy, numbers.reported)
        self.step_knobs(ci, chosen, set(unique))
        # The suggestion first of the knob whose removal wins back most for this test.
        gains = {
            key: after.reported(self.rate) - numbers.reported
            for key, after in alone.items()
            if after is not None
        }
        ranked = [
            (gains.get(key, 0.0), item) for key in unique for item in self.by_knob.get(key, ())
        ]
        ranked.sort(key=lambda pair: (-pair[0], -_finding_loss(pair[1][0])))
        found = [item for _, item in ranked]
        return TestView(
            label=gate.label,
            path=gate.test.path,
            line=gate.test.span.line,
            instances=gate.instances,
            policy=policy,
            layers=_layers(policy),
            environments=tuple(
                f"{env.effect} where {env.condition}: a {percent_label(self.rate)} violation is "
                f"reported {percent(env.policy.reported(self.rate))} of the time"
                for env in gate.environments
            ),
            notes=gate.notes,
            knob_ids=unique,
            knob_kinds=tuple(dict.fromkeys(kinds)),
            step=None if chosen is None else chosen.run.step.name,
            rules=tuple(dict.fromkeys(finding.code for finding, _ in found)),
            finding_ids=tuple(dict.fromkeys(view.id for _, view in found)),
            suggestion=found[0][0].help if found else "",
            reported=numbers.reported,
            reported_without=numbers.reported_without,
            q50=numbers.q50,
            q50_without=numbers.q50_without,
            trials_needed=numbers.trials_needed,
            measured=self.measured.get(gate.test.nodeid, ""),
            masks_elsewhere=any(env.policy.masks for env in gate.environments),
        )

    def leaves_out(self, gate: TestGate, chosen: CiGate | None, hiding: Sequence[Knob]) -> bool:
        """Whether the report leaves the test out, counted by why: it has no knob that
        hides failures, or a skip or xfail that does not say flaky keeps it from
        running or failing wherever it runs (that is not what the report is about)."""
        if not gate.policy.gate.blocks and not any(
            knob.kind in GATE_KINDS and not knob.condition for knob in hiding
        ):
            self.left_out["not run"] += 1
            return True
        if not hiding and (chosen is None or not (chosen.ci_knobs or chosen.masked)):
            if gate.knobs:  # a test with no knob at all is only in a file that has one
                own = any(knob.kind == "project-marker" for knob in gate.knobs)
                self.left_out["not judged" if own else "no hiding knob"] += 1
            return True
        return False

    def test_knobs(self, gate: TestGate, chosen: CiGate | None) -> tuple[list[str], list[str]]:
        """The ids and kinds of the test's knobs, its own then its CI step's, each
        knob registered the first time a test reaches it."""
        ids = [
            self.knob(k.span, k.kind, self.written(k.span, k.description), k.condition)
            for k in gate.knobs
        ]
        kinds = [k.kind for k in gate.knobs]
        if chosen is not None:
            ids += [self.knob(k.span, k.kind, ci_knob_text(k), "") for k in chosen.ci_knobs]
            kinds += [k.kind for k in chosen.ci_knobs]
        return ids, kinds

    def tally(
        self, unique: Sequence[str], alone: Removals, policy: Policy, reported: float
    ) -> None:
        """Counts the test for each of its knobs and, where the test's policy masks,
        what removing each knob alone gives it (None: the model cannot tell)."""
        for key in unique:
            self.knobs[key].tests += 1
        if policy.masks:
            for key, after in alone.items():
                tally = self.knobs[key]
                if after is None:
                    tally.uncounted += 1
                else:
                    tally.counted.append((reported, after.reported(self.rate)))
                    tally.policies[policy, after] += 1

    def step_knobs(self, ci: Sequence[CiGate], chosen: CiGate | None, seen: set[str]) -> None:
        """The CI knobs of the test's steps other than ``chosen`` (whose knobs ``tally``
        counted), each credited on its own step: what that step reports with and
        without it. ``check`` reports each of them, so the ranking lists each."""
        for step in ci:
            fresh = [knob for knob in step.ci_knobs if knob_id(knob.span) not in seen]
            if step is chosen or not fresh:
                continue
            policy = step.policy
            reported = self.numbers(policy).reported
            after = step_removals(step)
            for knob in fresh:
                key = self.knob(knob.span, knob.kind, ci_knob_text(knob), "")
                seen.add(key)
                self.knobs[key].tests += 1
                if policy.masks:
                    self.knobs[key].count(policy, after[key], reported, self.rate)

    def plain_steps(self, gates: Sequence[CiGate]) -> None:
        """The CI knobs over test files whose tests have no knob of their own: each
        file counted once, as one test of one trial (what ``check`` assumes)."""
        seen: set[tuple[str, str]] = set()
        for step in gates:
            if step.has_facts or not step.ci_knobs:
                continue
            policy = step.policy
            reported = self.numbers(policy).reported
            after = step_removals(step)
            for knob in step.ci_knobs:
                key = self.knob(knob.span, knob.kind, ci_knob_text(knob), "")
                files = [path for path in step.files if (key, path) not in seen]
                seen.update((key, path) for path in files)
                self.knobs[key].files += len(files)
                for _ in files if policy.masks else ():
                    self.knobs[key].count(policy, after[key], reported, self.rate)

    def kind_views(self) -> list[KindView]:
        tallies: dict[str, list[KnobTally]] = {}
        for tally in self.knobs.values():
            tallies.setdefault(tally.kind, []).append(tally)
        views = []
        for kind, group in tallies.items():
            counted = [pair for tally in group for pair in tally.counted]
            views.append(
                KindView(
                    kind=kind,
                    knobs=len(group),
                    counted=len(counted),
                    gain=math.fsum(without - reported for reported, without in counted),
                    reported=mean([reported for reported, _ in counted]),
                    reported_without=mean([without for _, without in counted]),
                )
            )
        views.sort(key=lambda view: (-view.gain, view.kind))
        return views

    def knob_views(self) -> list[KnobView]:
        views = [
            tally.view(key, _snippet(self.sources, tally.span)) for key, tally in self.knobs.items()
        ]
        views.sort(key=lambda view: (-view.gain, -view.tests, view.id))
        return views


def _finding_loss(finding: Finding) -> float:
    loss = finding.loss
    return 0.0 if loss is None else loss.reported_without - loss.reported


def _finding_views(findings: Sequence[Finding], cwd: Path) -> list[FindingView]:
    from detlint.rules.baseline import fingerprints

    return [
        FindingView(print_, finding.code, finding.span.path, finding.span.line, finding.message)
        for finding, print_ in zip(findings, fingerprints(findings, cwd), strict=True)
    ]


def _worth_naming(knob: KnobView | KindView) -> bool:
    """Whether removing a knob (or a kind) alone gives its tests back at least one
    percentage point on average: a job retry in front of five reruns "wins back"
    0.0001% and is no change worth naming (the tests need several knobs removed)."""
    return knob.gain > 0 and knob.reported_without - knob.reported >= MEANINGFUL_GAIN


def audit_view(
    analysis: Analysis,
    cwd: Path,
    reference_rate: float,
    target: float,
    command: str,
    date: str,
    measured: Mapping[str, str] | None = None,
) -> AuditView:
    """The audit for people; ``measured`` quotes, by test node id, what CI reports say."""
    builder = _Builder(analysis, cwd, reference_rate, target, measured or {})
    by_test: dict[str, list[CiGate]] = {}
    for ci_gate in analysis.ci.gates if analysis.ci is not None else ():
        if ci_gate.has_facts:
            by_test.setdefault(ci_gate.label, []).append(ci_gate)
    views = (builder.test(gate, by_test.get(gate.label, ())) for gate in analysis.gates)
    tests = sorted((v for v in views if v is not None), key=lambda view: (-view.loss, view.label))
    builder.plain_steps(analysis.ci.gates if analysis.ci is not None else ())
    knobs = builder.knob_views()
    masked = [view for view in tests if view.policy.masks]
    best = knobs[0] if knobs and _worth_naming(knobs[0]) else None
    kinds = builder.kind_views()
    best_kind = kinds[0] if kinds and _worth_naming(kinds[0]) and kinds[0].knobs > 1 else None
    if best_kind is not None and best is not None and best_kind.counted == best.counted:
        best_kind = None  # one knob does it all: the kind says nothing more
    headline = Headline(
        tests=len(tests),
        masked=len(masked),
        median_reported=median([view.reported for view in masked]),
        median_without=median([view.reported_without for view in masked]),
        never_block=sum(view.never_blocks for view in tests),
        effectively_never=sum(
            not view.never_blocks and view.effectively_never and view.policy.masks for view in tests
        ),
        best=best,
        best_kind=best_kind,
        not_run=builder.left_out["not run"],
        without_hiding_knob=builder.left_out["no hiding knob"],
        not_judged=builder.left_out["not judged"],
        mask_nothing=sum(not (v.policy.masks or v.masks_elsewhere) for v in tests),
        files_under_ci_knobs=len(files_under_ci_knobs(analysis, {view.path for view in tests})),
    )
    return AuditView(
        version=__version__,
        command=command,
        date=date,
        root=analysis.root.as_posix(),
        reference_rate=reference_rate,
        target=target,
        headline=headline,
        tests=tuple(tests),
        knobs=tuple(knobs),
        kinds=tuple(kinds),
        steps=tuple(step_views(analysis, reference_rate)),
        findings=tuple(builder.findings),
        problems=tuple(f"{p.span.path}:{p.span.line}: {p.message}" for p in analysis.problems),
        not_read=tuple(f"{path} ({system})" for path, system in analysis.not_read),
        census=census_views(analysis),
    )
