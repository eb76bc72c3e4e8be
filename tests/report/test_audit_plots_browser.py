"""The audit's plots as a reader sees them in headless Chromium: every label inside
its figure, no curve drawn along the floor of a log axis, the tests that lose most
in the order of their loss, no two panels alike, and each knob panel titled with
the knob's kind and place in full.

Like tests/report/test_audit_browser.py, these are skipped without a browser and
fail then under DETLINT_REQUIRE_BROWSER=1 (CI).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from test_audit_browser import EXAMPLE, Page, browser, report  # noqa: F401 (the fixture)
from test_audit_report import PIPELINE, SUITE, run_audit

ROOT = Path(__file__).parents[2]
_POINT = re.compile(r"[ML]\s*(-?[\d.]+)\s+(-?[\d.]+)")

# Each figure's <text> boxes that stick out of the figure's own box, by figure.
_CLIPPED = """svgs => svgs.map(svg => {
    const box = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('text')].filter(text => {
        const r = text.getBoundingClientRect();
        return r.width > 0 && (r.left < box.left - 0.5 || r.right > box.right + 0.5
            || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5);
    }).map(text => text.textContent);
})"""

# Per axes of a figure: its y-axis label, its title lines, the bottom of its plotting
# area and the path data of its curves (matplotlib's line2d groups).
_AXES = """svg => [...svg.querySelectorAll('g[id*="axes_"]')].map(axes => {
    const area = axes.querySelector('g[id*="patch_"] path');
    const box = area.getBBox();
    return {
        texts: [...axes.querySelectorAll('text')].map(text => text.textContent),
        floor: box.y + box.height,
        lines: [...axes.querySelectorAll('g[id*="line2d_"] path')]
            .map(path => path.getAttribute('d') || '').filter(d => d.split('L').length > 2),
    };
})"""


def example_page(tmp_path: Path) -> Path:
    """The README example's audit, as the README's picture shows it."""
    page = tmp_path / "needle.html"
    run_audit(EXAMPLE.parent.parent, "examples/needle", "--output-format", "html", "-o", str(page))
    return page


def figures(opened: Page) -> list[list[dict]]:
    return [
        opened.page.eval_on_selector(f"figure.curve:nth-of-type({index + 1}) svg", _AXES)
        for index in range(opened.page.locator("figure.curve").count())
    ]


def test_no_label_of_any_plot_is_clipped(browser, tmp_path):  # noqa: F811
    for path in (example_page(tmp_path), report(tmp_path / "suite", {**SUITE, **PIPELINE})):
        opened = Page(browser, path)
        clipped = opened.page.eval_on_selector_all("figure.curve svg", _CLIPPED)
        assert len(clipped) == 2
        assert clipped == [[], []], path
        assert opened.errors == []


def test_a_curve_below_the_log_floor_is_not_drawn_along_it(browser, tmp_path):  # noqa: F811
    """The needle test's curve with its knobs reports under 10⁻⁶ below q = 0.04: on the
    log axes that stretch is left out and marked, not a flat line on the floor."""
    opened = Page(browser, example_page(tmp_path))
    logs = [axes for figure in figures(opened) for axes in figure if _is_log(axes)]
    assert len(logs) == 3  # the overview's right panel and the two knob panels
    for axes in logs:
        assert "▼ below 10⁻⁶" in axes["texts"]
        for d in axes["lines"]:
            ys = [float(y) for _, y in _POINT.findall(d)]
            on_floor = [y for y in ys if abs(y - axes["floor"]) < 0.5]
            assert len(on_floor) <= 1, d[:200]


def _is_log(axes: dict) -> bool:
    return any("log scale" in text for text in axes["texts"])


def test_the_tests_that_lose_most_are_drawn_in_the_order_of_their_loss(browser, tmp_path):  # noqa: F811
    """The suite's losses at q = 10%: test_needle, soft-failed, loses all it would
    report (1 - 0.9**5 = 41.0%); the flaky skip and the flaky xfail, never run or
    never failing, lose 10% each and draw the same curves; test_posix loses
    10% - 1% = 9%."""
    opened = Page(browser, report(tmp_path, {**SUITE, **PIPELINE}))
    texts = opened.page.eval_on_selector(
        "figure.curve svg", "svg => [...svg.querySelectorAll('text')].map(t => t.textContent)"
    )
    legend = [text for text in texts if "per attempt;" in text]
    assert [entry.rpartition(" (")[2] for entry in legend] == [
        "test_needle)",
        "2 tests under 2 policies drawn the same)",
        "test_posix)",
    ]


def test_no_two_knob_panels_are_alike_and_each_names_its_knob(browser, tmp_path):  # noqa: F811
    """The flaky skip and the flaky xfail draw the same curves: one panel names both."""
    opened = Page(browser, report(tmp_path, {**SUITE, **PIPELINE}))
    panels = figures(opened)[1]
    drawn = [tuple(axes["lines"]) for axes in panels]
    assert len(set(drawn)) == len(drawn) == 3
    titles = [
        " | ".join(t for t in axes["texts"] if " at " in t or t.startswith("at q="))
        for axes in panels
    ]
    assert titles == [
        "rerun-marker at test_quarantine.py:23 | at q=10%: 1.0%",
        "xfail at test_quarantine.py:11 | skip at test_quarantine.py:6 | at q=10%: 0%",
        "soft-fail at pipeline.yml:4 | at q=10%: 0%",
    ]
    assert not any("…" in text for axes in panels for text in axes["texts"])


def test_the_readme_picture_is_the_example_audit_as_drawn_now(browser, tmp_path):  # noqa: F811
    """scripts/audit_screenshot.py draws the picture; drawn again it has the size of
    the one the README shows (the page's layout, curves and panels unchanged)."""
    picture = tmp_path / "audit-report.png"
    subprocess.run(
        [sys.executable, "scripts/audit_screenshot.py", str(picture)], cwd=ROOT, check=True
    )
    shipped = (ROOT / "docs" / "images" / "audit-report.png").read_bytes()
    drawn = picture.read_bytes()
    assert drawn.startswith(b"\x89PNG")
    (width, height), (shipped_width, shipped_height) = _size(drawn), _size(shipped)
    assert width == shipped_width == 1000
    # The system's fonts may move a line break by a few pixels, never a panel.
    assert abs(height - shipped_height) <= 0.03 * shipped_height, (height, shipped_height)


def _size(png: bytes) -> tuple[int, int]:
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def test_a_panel_for_three_knobs_names_two_and_counts_the_third(browser, tmp_path):  # noqa: F811
    """Three flaky skips of one-trial tests draw the same curves: one panel."""
    suite = "import pytest\n" + "".join(
        f'\n\n@pytest.mark.skip(reason="flaky")\ndef test_{name}():\n    assert run()\n'
        for name in "abc"
    )
    opened = Page(browser, report(tmp_path, {"tests/test_skips.py": suite}))
    (panel,) = figures(opened)[1]
    named = [t for t in panel["texts"] if " at " in t or t.startswith("and ")]
    assert len(named) == 3
    assert set(named[:2]) < {f"skip at test_skips.py:{line}" for line in (4, 9, 14)}
    assert named[2] == "and 1 more knob drawn the same"
