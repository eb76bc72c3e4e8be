"""The audit's plots: detection curves drawn as SVG for the HTML page.

Each plot is made by matplotlib's SVG backend without pyplot (no global figure
state, no GUI backend), with text kept as text (small files, the reader's system
fonts) and every element id put under the figure's own prefix, so that several
plots inlined in one page never share an id. The points are the model's, from
:mod:`detlint.report.audit.curves`; nothing here computes a probability.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from detlint.base.percentages import percent, percent_label
from detlint.report.audit.curves import GRID, Curve

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from detlint.report.audit.facts import AuditView

# Below this on a log axis a probability is drawn at the floor.
LOG_FLOOR = 1e-6
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

    for index, item in enumerate(curves):
        colour = _COLOURS[index % len(_COLOURS)]
        floor = LOG_FLOOR if log_y else 0.0
        axes.plot(
            item.rates,
            [max(value, floor) for value in item.reported],
            color=colour,
            linewidth=2,
            label=item.label if item.blocks else f"{item.label}: never blocks",
        )
        axes.plot(
            item.rates,
            [max(value, floor) for value in item.reported_without],
            color=colour,
            linewidth=1.2,
            linestyle="--",
        )
        if item.q50 is not None:
            axes.plot([item.q50], [0.5], marker="o", color=colour, markersize=6)
        if item.q50_without is not None:
            axes.plot([item.q50_without], [0.5], marker="o", markerfacecolor="white", color=colour)
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


def knob_plot(view: AuditView, curves: Sequence[Curve], salt: str) -> Plot | None:
    """One small panel per costly knob: its commonest policy with and without it."""
    if not curves:
        return None
    columns = min(3, len(curves))
    rows = (len(curves) + columns - 1) // columns
    figure = _figure(3.4 * columns, 3.0 * rows)
    grid = figure.subplots(rows, columns, squeeze=False)
    log_y = _needs_log(curves)
    for index, item in enumerate(curves):
        axes = grid[index // columns][index % columns]
        _draw(axes, [item], view.reference_rate, log_y=log_y)
        reported = item.at_reference
        axes.set_title(
            f"{_short(item.label)}\nat q={percent_label(view.reference_rate)}: {percent(reported)}",
            fontsize=8,
        )
    for index in range(len(curves), rows * columns):
        grid[index // columns][index % columns].set_visible(False)
    figure.subplots_adjust(left=0.1, right=0.98, top=0.9, bottom=0.12, wspace=0.4, hspace=0.6)
    return Plot(
        title="Per knob",
        caption=(
            "The knobs that win back most, each on the commonest policy of its tests: "
            "solid with the knob, dashed without this knob alone (the others kept)."
        ),
        curves=tuple(curves),
        svg=_svg(figure, salt),
    )


def _short(label: str, width: int = 48) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"
