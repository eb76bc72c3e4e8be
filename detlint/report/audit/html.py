"""The audit as one self-contained HTML page: headline, curves, knobs, tests, steps.

Rendered by Jinja2 (autoescaped) from ``AuditView``; the plots are matplotlib
SVG inlined in the page; the table of tests is data embedded as JSON and drawn by
a small script, so that a page with thousands of tests stays small and quick to
sort and filter. The page asks for nothing over the network: styles, script and
plots are inline, and fonts are the reader's own.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from detlint.base.percentages import percent, percent_label
from detlint.model import Policy
from detlint.report.audit.curves import knob_curves, worst_curves
from detlint.report.audit.facts import AuditView, KnobView, TestView
from detlint.report.audit.plots import Plot, knob_plot, overview_plot
from detlint.report.audit.text import headline_texts, points

# The page stays readable and under a few megabytes on any repository: static tables
# show their first rows (and say so); the table of tests always holds every test.
KNOB_ROWS = 100
STEP_ROWS = 500
CENSUS_ROWS = 1000
FINDING_ROWS = 2000


def _rate(value: float | None, blocks: bool) -> str:
    if value is None:
        return "never" if not blocks else "unreachable"
    return percent(value)


def _policy_data(test: TestView) -> dict[str, Any]:
    """What a row shows that depends on its policy alone, shared by every test with it:
    5,000 tests have a handful of policies, and the page must stay a few megabytes."""
    blocks = test.policy.gate.blocks
    return {
        "r": test.reported,
        "w": test.reported_without,
        "s": test.loss,
        "q": test.q50,
        "rt": percent(test.reported),
        "wt": percent(test.reported_without),
        "lt": points(test.loss),
        "qt": _rate(test.q50, blocks),
        "qwt": _rate(test.q50_without, True),
        "tn": ""
        if test.trials_needed is None or not test.policy.masks
        else f"{test.trials_needed} trials per attempt without the knobs",
        "y": list(test.layers),
        "nb": not blocks,
    }


def _test_data(
    test: TestView, knob_index: dict[str, int], policy: int, suggestion: int
) -> dict[str, Any]:
    """One row of the table, with short keys; ``P`` and ``g`` index the shared tables."""
    return {
        "l": test.label,
        "p": test.path,
        "n": test.line,
        "P": policy,
        "k": [knob_index[key] for key in test.knob_ids],
        "kk": list(test.knob_kinds),
        "ru": list(test.rules),
        "f": list(test.finding_ids),
        "g": suggestion,
        "e": list(test.environments),
        "o": list(test.notes),
        "st": test.step or "",
        "m": test.measured,
    }


def _knob_data(knob: KnobView) -> dict[str, Any]:
    return {
        "d": knob.description,
        "p": knob.path,
        "n": knob.line,
        "c": knob.condition,
        "x": list(knob.snippet),
    }


def plots(view: AuditView) -> list[Plot]:
    made = [
        overview_plot(view, worst_curves(view), salt="detlint-worst"),
        knob_plot(view, knob_curves(view), salt="detlint-knobs"),
    ]
    return [plot for plot in made if plot is not None]


def render_html(view: AuditView, title: str, drawn: list[Plot] | None = None) -> str:
    """The page; ``drawn`` are its plots when the caller made them already."""
    from jinja2 import Environment, StrictUndefined

    templates = resources.files("detlint.report.audit") / "templates"
    environment = Environment(
        autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True
    )
    template = environment.from_string((templates / "audit.html.j2").read_text("utf-8"))
    knob_index = {knob.id: index for index, knob in enumerate(view.knobs)}
    costly = [knob for knob in view.knobs if knob.gain > 0]
    others = [knob for knob in view.knobs if knob.gain <= 0]
    policies: dict[Policy, int] = {}
    policy_rows: list[dict[str, Any]] = []
    helps: dict[str, int] = {}
    rows = []
    for test in view.tests:
        if test.policy not in policies:
            policies[test.policy] = len(policy_rows)
            policy_rows.append(_policy_data(test))
        help_index = helps.setdefault(test.suggestion, len(helps))
        rows.append(_test_data(test, knob_index, policies[test.policy], help_index))
    data = {
        "rate": percent_label(view.reference_rate),
        "tests": rows,
        "policies": policy_rows,
        "helps": list(helps),
        "knobs": [_knob_data(knob) for knob in view.knobs],
    }
    from markupsafe import Markup

    return template.render(
        view=view,
        title=title,
        reference=percent_label(view.reference_rate),
        target=percent_label(view.target),
        headline=headline_texts(view),
        plots=plots(view) if drawn is None else drawn,
        costly=costly[:KNOB_ROWS],
        costly_cut=len(costly) > KNOB_ROWS,
        costly_count=len(costly),
        others=others[:KNOB_ROWS],
        others_cut=len(others) > KNOB_ROWS,
        others_count=len(others),
        steps=view.steps[:STEP_ROWS],
        steps_cut=len(view.steps) > STEP_ROWS,
        census=sorted(view.census, key=lambda knob: knob.verdict == "finding")[:CENSUS_ROWS],
        census_cut=len(view.census) > CENSUS_ROWS,
        census_reported=sum(knob.verdict == "finding" for knob in view.census),
        findings=view.findings[:FINDING_ROWS],
        findings_cut=len(view.findings) > FINDING_ROWS,
        rules=sorted({code for test in view.tests for code in test.rules}),
        kinds=sorted({kind for test in view.tests for kind in test.knob_kinds}),
        data=data,
        pct=percent,
        css=Markup((templates / "audit.css").read_text("utf-8")),
        js=(templates / "audit.js").read_text("utf-8"),
    )
