"""The audit as GitHub-flavoured Markdown: a step summary, a PR comment, an annotation.

Plain and link-free (a summary is read where links may point nowhere), and always
under ``LIMIT`` bytes, GitHub's cap on a step summary: rows are added worst first
until the next would pass it, and the report says how many were left out. It
needs no extra package, unlike the HTML report.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from detlint.base.percentages import percent, percent_label
from detlint.report.audit.facts import AuditView, CensusView, KnobView, StepView, TestView
from detlint.report.audit.text import headline_texts, points

_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
LIMIT = 1024 * 1024  # bytes, GitHub's step summary limit
TEST_ROWS = 50
KNOB_ROWS = 20
STEP_ROWS = 30
CENSUS_ROWS = 50
_RESERVE = 4096  # room for the closing lines after the tables
Row = TypeVar("Row")
# A header ending in a space marks a column of numbers, aligned right.
_KNOB_HEADER = (
    "Knob",
    "Where",
    "Tests ",
    "Not counted ",
    "Reported, mean ",
    "Without it, mean ",
    "Win back ",
)


def cell(text: str) -> str:
    """Text safe in a table cell: no row break, no cell break, no HTML tag
    (a ``<`` that could open one is escaped; ``<0.001%`` is left as written)."""
    flat = " ".join(text.split())
    return _TAG_START.sub("&lt;", flat.replace("\\", "\\\\").replace("|", "\\|"))


def code(text: str) -> str:
    """A code span around ``text`` whatever backticks it holds, safe in a table cell."""
    flat = " ".join(text.split()).replace("|", "\\|")
    fence = "`"
    while fence in flat:
        fence += "`"
    padding = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{padding}{flat}{padding}{fence}"


def _table(
    header: Sequence[str],
    rows: Sequence[Row],
    render: Callable[[Row], Sequence[str]],
    budget: int,
) -> tuple[list[str], int]:
    """The table's lines within ``budget`` bytes, and how many rows it holds."""
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---:" if name.endswith(" ") else "---" for name in header) + "|",
    ]
    used = sum(len(line.encode()) + 1 for line in lines)
    shown = 0
    for row in rows:
        line = "| " + " | ".join(render(row)) + " |"
        size = len(line.encode()) + 1
        if used + size > budget:
            break
        lines.append(line)
        used += size
        shown += 1
    return lines, shown


def _test_cells(test: TestView) -> list[str]:
    return [
        code(test.label),
        cell(", ".join(test.knob_kinds)),
        cell(" → ".join(test.layers)),
        "never" if not test.policy.gate.blocks else percent(test.reported),
        percent(test.reported_without),
        points(test.loss),
    ]


def _knob_cells(knob: KnobView) -> list[str]:
    return [
        cell(f"{knob.kind}: {knob.description}"),
        code(f"{knob.path}:{knob.line}"),
        str(knob.counted) + (f" ({_files(knob.files)} without knobs)" if knob.files else ""),
        str(knob.uncounted),
        percent(knob.reported) if knob.counted else "",
        percent(knob.reported_without) if knob.counted else "",
        f"{knob.gain:.2f}",
    ]


def _files(count: int) -> str:
    return f"{count} test file{'s' if count != 1 else ''}"


def _step_cells(step: StepView) -> list[str]:
    return [
        cell(step.step),
        code(f"{step.path}:{step.line}"),
        cell("; ".join(step.knobs)),
        str(step.tests),
        "" if step.reported is None else percent(step.reported),
        "" if step.reported_without is None else percent(step.reported_without),
    ]


def _measured_test_cells(test: TestView) -> list[str]:
    return [*_test_cells(test), cell(test.measured.removeprefix("measured in CI: "))]


def _test_columns(view: AuditView) -> tuple[list[str], Callable[[TestView], list[str]]]:
    """The tests table's header and cells: a column of what CI measured only when
    the audit read CI reports (``audit --evidence``)."""
    header = ["Test", "Knobs", "Layers", "Reported ", "Without ", "Loss (points) "]
    if any(test.measured for test in view.tests):
        return [*header, "Measured in CI"], _measured_test_cells
    return header, _test_cells


def _headline_lines(view: AuditView, title: str) -> list[str]:
    """The title, the lead sentence and the headline's numbers, which the size
    limit never cuts: the tables below give way to them."""
    texts = headline_texts(view)
    head, reference = view.headline, percent_label(view.reference_rate)
    out = [f"## detlint audit: {cell(title)}", "", cell(texts["lead"]), ""]
    out += [
        "| | |",
        "|---|---:|",
        f"| Tests under knobs that hide intermittent failures | {head.masked} |",
        f"| More where a condition holds | {head.tests - head.masked - head.mask_nothing} |",
        f"| More under knobs that mask nothing | {head.mask_nothing} |",
    ]
    if texts["median"]:
        out.append(
            f"| A {reference} violation reported (median) | "
            f"{texts['median']} instead of {texts['median_without']} |"
        )
    out += [
        f"| Never block (skipped, xfailed or soft-failed as flaky) | {head.never_block} |",
        f"| Report a {reference} violation at most once in 1000 | {head.effectively_never} |",
        f"| Findings | {len(view.findings)} |",
        "",
    ]
    if texts["best"]:
        out += [f"**{cell(texts['best'])}**", ""]
    if texts["left_out"]:
        out += [cell(texts["left_out"]), ""]
    return out


def _budget(out: Sequence[str]) -> int:
    """The bytes a table may still take after ``out``, keeping room for the closing lines."""
    return LIMIT - _RESERVE - sum(len(line.encode()) + 1 for line in out)


def _section(
    out: list[str],
    rows: Sequence[Row],
    most: int,
    header: Sequence[str],
    render: Callable[[Row], Sequence[str]],
    heading: Callable[[int], str],
) -> int:
    """Adds to ``out`` one table of the worst ``most`` rows, as many as the size limit
    lets in, and returns how many of ``rows`` it leaves out (the report says so)."""
    if not rows:
        return 0
    lines, shown = _table(header, rows[:most], render, _budget(out))
    out.extend([f"### {heading(shown)}", "", *lines, ""])
    return len(rows) - shown


def _tables(view: AuditView, out: list[str]) -> list[str]:
    """Adds the tests, knobs and CI steps tables to ``out``, worst rows first, and
    returns what they leave out: ``["3 tests", "2 knobs"]``."""
    losing = [test for test in view.tests if test.loss > 0 or not test.policy.gate.blocks]
    header, cells = _test_columns(view)
    gated = [step for step in view.steps if step.knobs]
    left_out = {
        "tests": _section(
            out,
            losing,
            TEST_ROWS,
            header,
            cells,
            lambda shown: (
                ("The test that loses most" if shown == 1 else f"The {shown} tests that lose most")
                + f" (of {len(losing)})"
            ),
        ),
        "knobs": _section(
            out,
            view.knobs,
            KNOB_ROWS,
            _KNOB_HEADER,
            _knob_cells,
            lambda shown: f"Knobs, by what removing each wins back ({shown} of {len(view.knobs)})",
        ),
        "steps": _section(
            out,
            gated,
            STEP_ROWS,
            ["Step", "Where", "Settings", "Tests ", "Reported ", "Without "],
            _step_cells,
            lambda shown: f"CI steps with soft-fail or retry settings ({shown} of {len(gated)})",
        ),
    }
    silent = [knob for knob in view.census if knob.verdict != "finding"]
    reported = len(view.census) - len(silent)
    left_out["CI knobs"] = _section(
        out,
        silent,
        CENSUS_ROWS,
        ["CI knob", "Where", "Step", "Why no finding"],
        _census_cells,
        lambda shown: (
            f"CI knobs without a finding ({shown} of {len(silent)}; "
            f"{reported} of {len(view.census)} CI knobs are findings)"
        ),
    )
    return [f"{count} {noun}" for noun, count in left_out.items() if count]


def _census_cells(knob: CensusView) -> list[str]:
    judged = "" if knob.verdict != "not-judged" else "not judged: "
    return [
        code(knob.written[:80]),
        code(f"{knob.path}:{knob.line}"),
        cell(knob.step),
        cell(judged + knob.reason),
    ]


def render_markdown(view: AuditView, title: str) -> str:
    out = _headline_lines(view, title)
    cut = _tables(view, out)
    if cut:
        out += [
            f"Not shown: {', '.join(cut)} (the summary shows the worst first, at most "
            f"{TEST_ROWS} tests, {KNOB_ROWS} knobs, {STEP_ROWS} steps and {CENSUS_ROWS} CI "
            "knobs without a finding, in under 1 MiB; "
            "`detlint audit --output-format html` lists every one).",
            "",
        ]
    out.append(f"detlint {view.version} · {code(view.command)} · {view.date}")
    return "\n".join(out) + "\n"
