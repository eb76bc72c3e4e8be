"""The audit as a person at a terminal reads it: ``detlint audit`` without a format.

The JSON inventory is for machines and runs to thousands of lines; on a terminal
the audit prints what a reader acts on instead: the lead sentence, the change that
wins back most, the knobs ranked by what removing each wins back and the tests that
lose most, each a line or two, then where the whole inventory is. Piped, or with
``--output-format json``, the audit prints the JSON as before.
"""

from __future__ import annotations

import shutil
import textwrap

from detlint.base.percentages import percent, percent_label
from detlint.report.audit.facts import AuditView, KnobView, TestView
from detlint.report.audit.text import headline_texts, points

KNOB_LINES = 10  # knobs listed, the costliest first
TEST_LINES = 5  # tests listed, those that lose most first


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _knob(number: int, knob: KnobView, reference: str) -> list[str]:
    return [
        f"{number:>3}. {knob.path}:{knob.line}  {knob.kind}: {knob.description}",
        f"     {_plural(knob.counted, 'test')} reached: a {reference} violation is reported "
        f"{percent(knob.reported)} of the time on average, "
        f"{percent(knob.reported_without)} without this knob",
    ]


def _test(test: TestView) -> list[str]:
    reported = f"reported {percent(test.reported)}" if test.policy.gate.blocks else "never reported"
    return [
        f"  - {test.label}",
        f"    {reported}, {percent(test.reported_without)} without its knobs "
        f"({points(test.loss)} points lost; {', '.join(test.knob_kinds)})",
    ]


def _sections(view: AuditView) -> list[str]:
    reference = percent_label(view.reference_rate)
    out: list[str] = []
    costly = [knob for knob in view.knobs if knob.gain > 0]
    if costly:
        shown = costly[:KNOB_LINES]
        out += ["", f"Knobs, by what removing each wins back ({len(shown)} of {len(costly)}):"]
        for number, knob in enumerate(shown, start=1):
            out += _knob(number, knob, reference)
    losing = [test for test in view.tests if test.loss > 0 or not test.policy.gate.blocks]
    if losing:
        shown_tests = losing[:TEST_LINES]
        count = len(shown_tests)
        out += ["", f"Tests that lose most ({count} of {len(losing)}):"]
        for test in shown_tests:
            out += _test(test)
    return out


def render_terminal(view: AuditView, title: str, width: int | None = None) -> str:
    """The summary, its sentences wrapped to the terminal's width."""
    width = width or min(shutil.get_terminal_size().columns, 100)
    texts = headline_texts(view)
    paragraphs = [texts["lead"], texts["best"], texts["left_out"]]
    out = [f"detlint audit: {title}"]
    for paragraph in filter(None, paragraphs):
        out += ["", *textwrap.wrap(paragraph, width)]
    out += _sections(view)
    findings = len(view.findings)
    out += [
        "",
        f"{_plural(findings, 'finding')} (`detlint check` lists them). Every knob and test: "
        "--output-format json (the default when piped), html -o audit.html (a page with "
        "plots) or markdown (a CI summary).",
    ]
    return "\n".join(out[:-1] + textwrap.wrap(out[-1], width)) + "\n"
