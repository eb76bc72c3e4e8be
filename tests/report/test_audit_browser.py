"""The HTML audit as a person sees it: loaded from disk in headless Chromium, and
checked by the Nu HTML Checker (vnu.jar, the W3C's validator).

Without a browser or the checker (a developer's machine) these tests are skipped
with that reason; CI sets DETLINT_REQUIRE_BROWSER=1, which makes a missing one a
failure, so the page is always checked there (.ci/run installs Debian's
chromium and the npm package vnu-jar).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from repo_expectations import written_repository
from test_audit_report import PIPELINE, SUITE, many_tests, run_audit

EXAMPLE = Path(__file__).parents[2] / "examples" / "needle"
REQUIRED = os.environ.get("DETLINT_REQUIRE_BROWSER") == "1"
CHROMIUM = os.environ.get("DETLINT_CHROMIUM") or shutil.which("chromium")
# Flags for a machine without network: no background connections, no first-run work.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def missing(what: str) -> None:
    if REQUIRED:
        pytest.fail(f"{what} (DETLINT_REQUIRE_BROWSER=1)")
    pytest.skip(what)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if CHROMIUM is None:
        missing("no chromium on PATH (Debian: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


class Page:
    """A report opened from disk, with what the browser said and asked for."""

    def __init__(self, browser: object, path: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on(
            "console",
            lambda message: (
                self.errors.append(message.text) if message.type in ("error", "warning") else None
            ),
        )
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.url = path.resolve().as_uri()
        self.page.goto(self.url)

    def rows(self) -> list[str]:
        return self.page.eval_on_selector_all(
            "#test-rows tr.test-row", "rows => rows.map(row => row.dataset.test)"
        )

    def shown(self) -> str:
        return self.page.inner_text("#shown-count")


def report(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = written_repository(tmp_path, files)
    run_audit(repo, "--output-format", "html", "-o", "audit.html")
    return repo / "audit.html"


def test_the_page_loads_from_disk_offline_without_errors(browser, tmp_path):
    opened = Page(browser, report(tmp_path, {**SUITE, **PIPELINE}))
    assert opened.errors == []
    assert opened.requests == [opened.url]  # the file itself, and nothing else
    shot = opened.page.screenshot(full_page=True)
    assert shot.startswith(b"\x89PNG")
    assert len(shot) > 20_000
    # Every plot has data: a curve is one path through the grid's 101 points.
    longest = opened.page.eval_on_selector_all(
        "figure.curve svg",
        "svgs => svgs.map(svg => Math.max(...[...svg.querySelectorAll('path')]"
        ".map(path => (path.getAttribute('d') || '').split('L').length)))",
    )
    assert len(longest) == 2
    assert all(points >= 50 for points in longest), longest
    assert opened.page.inner_text("#headline").startswith("4 tests run under knobs")


def test_the_table_sorts_filters_and_opens_a_row(browser, tmp_path):
    opened = Page(browser, report(tmp_path, {**SUITE, **PIPELINE}))
    page = opened.page
    by_loss = opened.rows()
    assert by_loss[0].endswith("::test_needle")  # ranked by loss, the worst first
    assert opened.shown() == "4 tests"
    page.click('#tests th[data-key="l"] button')
    assert opened.rows() == sorted(by_loss)
    assert page.get_attribute('#tests th[data-key="l"]', "aria-sort") == "ascending"
    page.click('#tests th[data-key="l"] button')
    assert opened.rows() == sorted(by_loss, reverse=True)
    page.click('#tests th[data-key="r"] button')  # reported, the most first
    assert opened.rows()[0].endswith("::test_posix")

    page.fill("#filter-text", "quarantine")
    assert opened.shown() == "3 of 4 tests"
    assert all("test_quarantine.py" in row for row in opened.rows())
    page.select_option("#filter-rule", "DET202")
    assert [row.rpartition("::")[2] for row in opened.rows()] == ["test_skipped_as_flaky"]
    page.select_option("#filter-rule", "")
    page.fill("#filter-text", "")
    page.check("#filter-never")
    assert opened.shown() == "3 of 4 tests"  # two quarantines and the soft-failed step
    page.uncheck("#filter-never")
    page.select_option("#filter-kind", "soft-fail")
    assert [row.rpartition("::")[2] for row in opened.rows()] == ["test_needle"]
    page.select_option("#filter-kind", "")
    page.fill("#filter-loss", "20")
    assert [row.rpartition("::")[2] for row in opened.rows()] == ["test_needle"]
    page.fill("#filter-loss", "")

    page.click('#test-rows tr.test-row[data-test$="::test_needle"]')
    detail = page.inner_text("#test-rows tr.detail")
    assert "reruns=3 (pytest-rerunfailures, 4 attempts)" in detail
    assert "soft_fail: true" in detail
    assert "Finding ids" in detail
    assert opened.errors == []


def test_printing_hides_the_controls(browser, tmp_path):
    opened = Page(browser, report(tmp_path, SUITE))
    opened.page.emulate_media(media="print")
    assert not opened.page.is_visible("#filter-text")
    assert opened.page.is_visible("#tests")


def test_five_thousand_tests_page_through_a_hundred_at_a_time(browser, tmp_path):
    opened = Page(browser, report(tmp_path, many_tests(50, 100)))
    page = opened.page
    assert opened.shown() == "5000 tests"
    first = opened.rows()
    assert len(first) == 100  # the DOM holds one page, whatever the size
    assert page.inner_text("#page-label") == "page 1 of 50"
    page.click("#page-next")
    second = opened.rows()
    assert len(second) == 100
    assert not set(first) & set(second)
    page.fill("#filter-text", "test_module_07.py::test_case_01")
    assert opened.shown() == "10 of 5000 tests"
    assert opened.errors == []


# -- the Nu HTML Checker ---------------------------------------------------------


def vnu_jar() -> Path:
    named = os.environ.get("DETLINT_VNU_JAR")
    if named:
        return Path(named)
    missing("DETLINT_VNU_JAR names no vnu.jar (npm install vnu-jar)")
    raise AssertionError  # not reached


def test_the_page_is_valid_html(tmp_path):
    """The fixture suite with a pipeline, a repository with no knob, and the example."""
    jar = vnu_jar()
    java = shutil.which("java")
    if java is None:
        missing("no java on PATH for vnu.jar")
    pages = [
        report(tmp_path / "suite", {**SUITE, **PIPELINE}),
        report(tmp_path / "empty", {"tests/test_nothing.py": "def test_x():\n    pass\n"}),
    ]
    example = tmp_path / "needle.html"
    run_audit(
        EXAMPLE.parent.parent, "examples/needle", "--output-format", "html", "-o", str(example)
    )
    pages.append(example)
    done = subprocess.run(
        [java, "-jar", str(jar), "--format", "json", *map(str, pages)],
        capture_output=True,
        text=True,
        check=False,
    )
    messages = json.loads(done.stderr or done.stdout)["messages"]
    assert [m for m in messages if m.get("type") != "info"] == []
