"""The audit's plots: detection curves drawn as SVG for the HTML page.

Each plot is made by matplotlib's SVG backend without pyplot (no global figure
state, no GUI backend), with text kept as text (small files, the reader's system
fonts) and every element id put under the figure's own prefix, so that several
plots inlined in one page never share an id. The points are the model's, from
:mod:`detlint.report.audit.curves`; nothing here computes a probability.
"""

from __future__ import annotations

import io
import math
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from detlint.base.percentages import percent, percent_label
from detlint.report.audit.curves import GRID, Curve

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from detlint.report.audit.facts import AuditView

# The bottom of a log axis: a curve below it is not drawn, and a triangle on the
# floor marks where it leaves the axis.
LOG_FLOOR = 1e-6
BELOW_FLOOR = "▼ below 10⁻⁶"
_SOLID: dict[str, object] = {"linewidth": 2}
_DASHED: dict[str, object] = {"linewidth": 1.2, "linestyle": "--"}
_COLOURS = ("#c0392b", "#2471a3", "#7d3c98", "#d68910", "#138d75", "#5d6d7e")


@dataclass(frozen=True)
class Plot:
    """One figure of the report: its title, the curves drawn and the SVG markup."""

    title: str
    caption: str
    curves: tuple[Curve, ...]
    svg: str


def _draw(axes: Axes, curves: Sequence[Curve], reference_rate: float, log_y: bool) -> None:
    from matplotlib.ticker import NullLocator

    below = False
    for index, item in enumerate(curves):
        colour = _COLOURS[index % len(_COLOURS)]
        said = item.blocks or "never blocks" in item.label
        label = item.label if said else f"{item.label}: never blocks"
        for values, style in ((item.reported, _SOLID), (item.reported_without, _DASHED)):
            shown: Sequence[float] = values
            if log_y:
                shown = [value if value >= LOG_FLOOR else math.nan for value in values]
                below |= _mark_floor(axes, item.rates, values, colour)
            axes.plot(item.rates, shown, color=colour, label=label, **style)  # type: ignore[arg-type]
            label = "_dashed"  # matplotlib leaves a label starting "_" out of the legend
        if item.q50 is not None:
            axes.plot([item.q50], [0.5], marker="o", color=colour, markersize=6)
        if item.q50_without is not None:
            axes.plot([item.q50_without], [0.5], marker="o", markerfacecolor="white", color=colour)
    if below:
        # Top left: where a detection curve, rising with q, never is.
        axes.text(0.03, 0.95, BELOW_FLOOR, transform=axes.transAxes, fontsize=7, va="top")
    axes.axvline(reference_rate, color="#333333", linewidth=0.8, linestyle=":")
    axes.set_xscale("log")
    axes.set_xlim(GRID[0], 1.0)
    if log_y:
        axes.set_yscale("log")
        axes.set_ylim(LOG_FLOOR, 1.5)
    else:
        axes.set_ylim(-0.02, 1.02)
    axes.set_xlabel("violation rate q (per trial)")
    axes.set_ylabel("P(reported)" + (", log scale" if log_y else ""))
    axes.grid(True, which="major", color="#dddddd", linewidth=0.6)
    axes.xaxis.set_minor_locator(NullLocator())
    axes.yaxis.set_minor_locator(NullLocator())


def _mark_floor(axes: Axes, rates: Sequence[float], values: Sequence[float], colour: str) -> bool:
    """Marks where a curve on a log axis goes below the floor, with a down-pointing
    triangle on it: the curve is not drawn there (a flat line on the floor would
    read as a chance of 10⁻⁶). Returns whether it goes below anywhere."""
    low = [value < LOG_FLOOR for value in values]
    last = len(values) - 1
    edges = [
        rates[i]
        for i in range(len(values))
        if low[i] and ((i < last and not low[i + 1]) or (i > 0 and not low[i - 1]))
    ]
    if all(low):
        edges = [rates[last]]
    for rate in edges:
        axes.plot([rate], [LOG_FLOOR], marker="v", color=colour, markersize=5, clip_on=False)
    return bool(edges)


def _needs_log(curves: Sequence[Curve]) -> bool:
    """A log axis when some knob brings the reference rate's report under 1%."""
    return any(item.blocks and 0.0 < item.at_reference < 0.01 for item in curves)


def _svg(figure: Figure, salt: str) -> str:
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        figure.savefig(
            buffer,
            format="svg",
            metadata={"Creator": None, "Date": None, "Format": None, "Type": None},
        )
    text = buffer.getvalue()
    # Inlined in HTML: the XML declaration and doctype of a standalone file go.
    return _own_ids(text[text.index("<svg") :], salt)


_ID = re.compile(r'\bid="([^"]+)"')


def _own_ids(svg: str, prefix: str) -> str:
    """The SVG with every element id, and every reference to one, under ``prefix``.

    matplotlib numbers its groups per figure (``axes_1``, ``patch_1``): two figures
    inlined in one page would share those ids, which HTML forbids and which would
    point a clip path of one plot at the other's.
    """
    names = set(_ID.findall(svg))
    if not names:
        return svg

    def renamed(match: re.Match[str]) -> str:
        name = match.group(2)
        return f"{match.group(1)}{prefix}-{name}" if name in names else match.group(0)

    return re.sub(r'(\bid="|url\(#|href="#)([^")]+)', renamed, svg)


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    # Margins are set by hand: constrained layout measures every tick label of every
    # log axis, and took seconds per figure.
    figure = Figure(figsize=(width, height))
    FigureCanvasSVG(figure)  # the SVG canvas: no GUI backend is ever chosen
    return figure


def overview_plot(view: AuditView, curves: Sequence[Curve], salt: str) -> Plot | None:
    """The worst policies on one axis (and on a log axis beside it where numbers are tiny)."""
    if not curves:
        return None
    log_y = _needs_log(curves)
    legend_height = 0.22 * len(curves) + 0.2
    figure = _figure(10.0 if log_y else 7.0, 3.6 + legend_height)
    panels = figure.subplots(1, 2 if log_y else 1, squeeze=False)[0]
    _draw(panels[0], curves, view.reference_rate, log_y=False)
    if log_y:
        _draw(panels[1], curves, view.reference_rate, log_y=True)
    figure.legend(
        *panels[0].get_legend_handles_labels(),
        loc="lower center",
        fontsize=8,
        frameon=False,
    )
    figure.subplots_adjust(
        left=0.08,
        right=0.98,
        top=0.97,
        bottom=(legend_height + 0.55) / (3.6 + legend_height),
        wspace=0.25,
    )
    return Plot(
        title="Detection curves of the tests that lose most",
        caption=(
            "Solid: with the knobs; dashed: without them. Filled dot: the rate reported "
            "half the time (q50) with the knobs; open dot: without. Dotted line: the "
            f"reference rate {percent_label(view.reference_rate)}."
            + (" Right: the same on a log scale." if log_y else "")
        ),
        curves=tuple(curves),
        svg=_svg(figure, salt),
    )


# A per-knob panel's parts, in inches: the axes, the tick labels and axis label
# under them, the axis label and tick labels to their left, and one title line.
_PANEL = (2.9, 2.1)
_BELOW = 0.62
_LEFT = 0.95
_RIGHT = 0.25  # half the last tick label, 10⁰, stands out right of the axes
_TITLE_LINE = 0.16
_TITLE_WIDTH = 44  # characters of an 8-point title line over one panel


def knob_plot(view: AuditView, curves: Sequence[Curve], salt: str) -> Plot | None:
    """One small panel per costly knob: its commonest policy with and without it.

    Sizes are set in inches so that no label is clipped whatever the number of
    panels: each title is the knob's kind, place and text (wrapped, never cut
    before the place), and the axis labels keep their room under and beside it.
    """
    if not curves:
        return None
    columns = min(3, len(curves))
    rows = (len(curves) + columns - 1) // columns
    titles = [_title(item, view.reference_rate) for item in curves]
    above = _TITLE_LINE * max(title.count("\n") + 1 for title in titles) + 0.12
    row_height = above + _PANEL[1] + _BELOW
    width, height = columns * (_LEFT + _PANEL[0]) + _RIGHT, rows * row_height
    figure = _figure(width, height)
    grid = figure.subplots(rows, columns, squeeze=False)
    log_y = _needs_log(curves)
    for index, (item, title) in enumerate(zip(curves, titles, strict=True)):
        axes = grid[index // columns][index % columns]
        _draw(axes, [item], view.reference_rate, log_y=log_y)
        axes.set_title(title, fontsize=8)
    for index in range(len(curves), rows * columns):
        grid[index // columns][index % columns].set_visible(False)
    figure.subplots_adjust(
        left=_LEFT / width,
        right=1 - _RIGHT / width,
        top=1 - above / height,
        bottom=_BELOW / height,
        wspace=_LEFT / _PANEL[0],
        hspace=(above + _BELOW) / _PANEL[1],
    )
    return Plot(
        title="Per knob",
        caption=(
            "The knobs that win back most, each on the commonest policy of its tests: "
            "solid with the knob, dashed without this knob alone (the others kept). "
            "Knobs whose curves would be the same share a panel."
        ),
        curves=tuple(curves),
        svg=_svg(figure, salt),
    )


def _title(item: Curve, reference_rate: float) -> str:
    """A panel's title: the knobs it stands for, each line whole, then the knob's
    text wrapped on at most two lines, then its report at the reference rate."""
    *names, text = item.title or (item.label,)
    wrapped = textwrap.wrap(text, _TITLE_WIDTH)
    if len(wrapped) > 2:
        rest = textwrap.shorten(" ".join(wrapped[1:]), _TITLE_WIDTH, placeholder=" …")
        wrapped = [wrapped[0], rest]
    at = f"at q={percent_label(reference_rate)}: {percent(item.at_reference)}"
    return "\n".join([*names, *wrapped, at])
