"""Rendering a ``PowerAnalysis`` as the text table people read and the JSON
document machines read. Both come from the same computed value, so they
cannot disagree."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from detlint.base.percentages import percent, percent_label
from detlint.model import Gate, Layer, Policy
from detlint.model.power import PowerAnalysis

JSON_SCHEMA = "detlint.power/1"


# -- text ------------------------------------------------------------------


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True))
        for row in [header, *rows]
    ]


def _rate_or_never(rate: float | None, never: str) -> str:
    return never if rate is None else percent(rate)


def _trials(count: int) -> str:
    return f"{count} trial{'s' if count != 1 else ''}"


def _trials_lines(analysis: PowerAnalysis) -> list[str]:
    """The trial recommendation: how many trials reach the target at q_ref.

    With a knob it is the trials that would replace the knob, compared with the
    knob kept. Without one there is nothing to replace, so it is only the trial
    count the target takes, next to what today's count reaches.
    """
    policy = analysis.policy
    q_ref, target = percent_label(analysis.reference_rate), percent_label(analysis.target)
    needed = analysis.trials_needed_without
    if needed is None:
        return [f"No trial count reports a {q_ref} violation {target} of the time."]
    reach = (
        f"{_trials(needed)} per attempt {'report' if needed != 1 else 'reports'} "
        f"a {q_ref} violation {target} of the time"
    )
    if not policy.masks:
        return [
            f"Trials needed: {reach}",
            f"  ({_trials(policy.trials)} now: {percent(analysis.reference_reported_without)})",
        ]
    kept = analysis.trials_needed_with
    keeping = (
        f"keeping the knob, {target} takes {_trials(kept)}"
        if kept is not None
        else f"keeping the knob, no trial count reaches {target}"
    )
    return [
        f"Trials instead of the knob: {reach}",
        f"  ({_trials(policy.trials)} now: {percent(analysis.reference_reported_without)} "
        f"without the knob, {percent(analysis.reference_reported)} with it; {keeping})",
    ]


def _loss_table(analysis: PowerAnalysis) -> list[str]:
    """The loss table's lines, a row per violation rate; a knob that never blocks
    gets a column of how often the failure is at least visible."""
    show_visible = not analysis.policy.gate.blocks
    header = ["violation rate q", "one attempt", "reported with the knob"]
    if show_visible:
        header.append("visible with the knob")
    header.append("reported without")
    rows = []
    for row in analysis.rows:
        cells = [percent_label(row.rate), percent(row.one_attempt), percent(row.reported)]
        if show_visible:
            cells.append(percent(row.visible))
        cells.append(percent(row.reported_without))
        rows.append(cells)
    return _table(header, rows)


def _observed_lines(analysis: PowerAnalysis) -> list[str]:
    """What an observed mismatch count says: the rate's interval, and how often a
    violation anywhere in it is reported (none without ``--observed``)."""
    observed = analysis.observed
    if observed is None:
        return []
    estimate = observed.estimate
    level = percent_label(estimate.confidence)
    with_at, with_low, with_high = observed.reported
    without_at, without_low, without_high = observed.reported_without
    lines = [
        "",
        f"Observed {estimate.mismatches}/{estimate.trials}: rate {percent(estimate.rate)}, "
        f"{level} Wilson interval [{percent(estimate.low)}, {percent(estimate.high)}]",
    ]
    if analysis.policy.masks:
        lines += [
            f"  reported with the knob: {percent(with_at)} at that rate, "
            f"{percent(with_low)} to {percent(with_high)} over the interval",
            f"  reported without:       {percent(without_at)} at that rate, "
            f"{percent(without_low)} to {percent(without_high)} over the interval",
        ]
    else:  # no knob: one figure, not two columns that agree
        lines.append(
            f"  reported: {percent(without_at)} at that rate, "
            f"{percent(without_low)} to {percent(without_high)} over the interval"
        )
    return lines


def _green_runs_lines(analysis: PowerAnalysis) -> list[str]:
    """The per-trial rates a run of green builds rules out, with the knob and without
    (none without ``--green-runs``)."""
    green = analysis.green_runs
    if green is None:
        return []
    bound = green.bound_without
    without = f"above {percent(bound)}" if bound is not None else "none"
    lines = [
        "",
        f"After {green.runs} green run{'s' if green.runs != 1 else ''}, "
        f"per-trial rates ruled out at {percent_label(green.confidence)} confidence:",
    ]
    if analysis.policy.masks:
        lines += [
            "  with the knob: "
            + (
                f"above {percent(green.bound)}"
                if green.bound is not None
                else "none (the knob never lets a failure block)"
            ),
            f"  without:       {without}",
        ]
    else:  # no knob: one bound
        lines.append(f"  {without}")
    return lines


def _rule_out_lines(analysis: PowerAnalysis) -> list[str]:
    """How many green runs in a row rule out the reference rate: what a team lifting a
    quarantine waits for."""
    rate = percent_label(analysis.reference_rate)
    without = analysis.runs_to_rule_out_without
    heading = f"Green runs in a row that rule out a {rate} violation at 95% confidence:"
    if not analysis.policy.masks:
        return ["", f"{heading} {without if without is not None else 'never'}"]
    with_knob = analysis.runs_to_rule_out
    return [
        "",
        heading,
        "  with the knob: "
        + (f"{with_knob}" if with_knob is not None else "never (it lets no failure block)"),
        f"  without:       {without if without is not None else 'never'}",
    ]


def render_text(analysis: PowerAnalysis) -> str:
    """The loss table and its summary lines."""
    policy = analysis.policy
    lines = [f"detlint power: {policy.describe()}", ""]
    if not policy.masks:
        lines += ["No knob here lowers detection; both columns agree.", ""]
    lines += ["  " + line for line in _loss_table(analysis)]
    lines.append("")

    never = f"never ({policy.gate.kind} never blocks)"
    lines.append(
        "q50, the rate reported half the time: "
        f"{_rate_or_never(analysis.q50, never)} with the knob, "
        f"{_rate_or_never(analysis.q50_without, 'never')} without"
    )
    lines += _trials_lines(analysis)
    lines += _rule_out_lines(analysis)
    lines += _observed_lines(analysis)
    lines += _green_runs_lines(analysis)
    return "\n".join(lines) + "\n"


# -- JSON ------------------------------------------------------------------


def layer_json(layer: Layer) -> dict[str, Any]:
    fields: dict[str, Any] = dataclasses.asdict(layer) if dataclasses.is_dataclass(layer) else {}
    return {"kind": layer.kind, **fields, "masks": layer.masks, "description": layer.describe()}


def gate_json(gate: Gate) -> dict[str, Any]:
    return {"kind": gate.kind, "blocks": gate.blocks, "visible": gate.visible}


def policy_json(policy: Policy) -> dict[str, Any]:
    return {
        "description": policy.describe(),
        "trials": policy.trials,
        "layers": [layer_json(layer) for layer in policy.layers],
        "gate": gate_json(policy.gate),
        "masks": policy.masks,
    }


def _triple(values: tuple[float, ...]) -> dict[str, float]:
    return dict(zip(("at_rate", "at_low", "at_high"), values, strict=True))


def to_json(analysis: PowerAnalysis) -> dict[str, Any]:
    """The analysis as plain JSON values: probabilities are fractions (floats)."""
    observed = analysis.observed
    green = analysis.green_runs
    return {
        "schema": JSON_SCHEMA,
        "policy": policy_json(analysis.policy),
        "baseline": policy_json(analysis.baseline),
        "rates": [dataclasses.asdict(row) for row in analysis.rows],
        "q50": analysis.q50,
        "q50_without": analysis.q50_without,
        "reference_rate": analysis.reference_rate,
        "target": analysis.target,
        "reference_reported": analysis.reference_reported,
        "reference_reported_without": analysis.reference_reported_without,
        "trials_needed_without": analysis.trials_needed_without,
        "trials_needed_with": analysis.trials_needed_with,
        "observed": None
        if observed is None
        else {
            **dataclasses.asdict(observed.estimate),
            "reported": _triple(observed.reported),
            "reported_without": _triple(observed.reported_without),
        },
        "green_runs": None if green is None else dataclasses.asdict(green),
        "runs_to_rule_out": analysis.runs_to_rule_out,
        "runs_to_rule_out_without": analysis.runs_to_rule_out_without,
    }


def render_json(analysis: PowerAnalysis) -> str:
    return json.dumps(to_json(analysis), indent=2) + "\n"
