"""The pipeline's runs and gates indexed once per check, by knob and by pipeline file.

The CI rules ask, for every knob, which runs and gates it acts on, and for every
finding, which other runs the same pipeline file holds. Answered by a scan of every
run and gate each time, a pipeline of N knob steps costs N² knob comparisons (a
generated pipeline of thousands of steps took minutes); the index answers each in
time proportional to its answer. Lookups are by knob equality, as the scans were, and
keep the order of ``RuleContext.ci_runs`` and ``ci_gates``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
    from detlint.compose.ci.test_run import OtherRun, TestRun
    from detlint.readers.ci.facts import CiKnob

_Item = TypeVar("_Item")


@dataclass(frozen=True)
class CiIndex:
    runs_by_knob: dict[CiKnob, list[TestRun]]
    others_by_knob: dict[CiKnob, list[OtherRun]]
    gates_by_retry: dict[CiKnob, list[CiGate]]  # gates a knob retries
    gates_by_gate: dict[CiKnob, list[CiGate]]  # gates whose failure a knob lets pass
    # Per pipeline file and test file, the runs that block plainly on that test file,
    # each with its position in the pipeline file's runs (``plain_runs``).
    plain_runs: dict[str, dict[str, list[tuple[int, TestRun]]]]


def build_ci_index(
    runs: Iterable[TestRun], gates: Iterable[CiGate], others: Iterable[OtherRun]
) -> CiIndex:
    """One pass over the runs, gates and other runs of the pipelines read."""
    runs = tuple(runs)
    gates = tuple(gates)
    by_gate: dict[CiKnob, list[CiGate]] = {}
    for gate in gates:
        if gate.ci_gate is not None:
            by_gate.setdefault(gate.ci_gate, []).append(gate)
    return CiIndex(
        runs_by_knob=_by_knob(runs, lambda run: run.knobs),
        others_by_knob=_by_knob(others, lambda other: other.knobs),
        gates_by_retry=_by_knob(gates, lambda gate: (knob for knob, _ in gate.retries)),
        gates_by_gate=by_gate,
        plain_runs=plain_runs(runs),
    )


# pytest options that report, parallelise or time a run without selecting its tests: a
# run with any other option (a project's --integration_tests=true) may run other tests.
_NEUTRAL_OPTIONS = (
    "-v", "-q", "-s", "-x", "-r", "-n", "-p", "-W", "--verbose", "--quiet", "--cov",
    "--no-cov", "--junit", "--durations", "--timeout", "--color", "--tb", "--dist",
    "--numprocesses", "--maxfail", "--basetemp", "--import-mode", "--strict", "--capture",
    "--showlocals", "-l", "--log", "--benchmark-disable", "--html", "--self-contained-html",
)  # fmt: skip


def plain_runs(runs: tuple[TestRun, ...]) -> dict[str, dict[str, list[tuple[int, TestRun]]]]:
    """The runs that report a violation of the test files they run in their own step:
    no knob, rerun option or hidden status in the step (the `pytest --lf` of a retry is
    a run of its own), no selection, and no option of the project's own (which may
    select other tests); by pipeline file (another pipeline runs on other triggers, in
    other builds), then by test file."""
    by_file: dict[str, list[TestRun]] = {}
    for run in runs:
        by_file.setdefault(run.step.path, []).append(run)
    found: dict[str, dict[str, list[tuple[int, TestRun]]]] = {}
    for path, file_runs in by_file.items():
        changed = {id(run.step) for run in file_runs if run.changes_policy}
        by_test: dict[str, list[tuple[int, TestRun]]] = {}
        found[path] = by_test
        for position, run in enumerate(file_runs):
            if id(run.step) in changed or run.selection:
                continue
            if not all(option.name.startswith(_NEUTRAL_OPTIONS) for option in run.run.options):
                continue
            for test_file in dict.fromkeys(run.test_files):
                by_test.setdefault(test_file, []).append((position, run))
    return found


def _by_knob(
    items: Iterable[_Item], knobs_of: Callable[[_Item], Iterable[CiKnob]]
) -> dict[CiKnob, list[_Item]]:
    """Each knob's items, in order, each item once per knob however often it names it."""
    found: dict[CiKnob, list[_Item]] = {}
    for item in items:
        for knob in dict.fromkeys(knobs_of(item)):
            found.setdefault(knob, []).append(item)
    return found
