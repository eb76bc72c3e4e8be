"""How the HTML audit behaves with 5,000 tests: size, build time, and the page's
speed in headless Chromium (load, sort, filter, next page).

A synthetic repository of 5,000 tests under rerun markers is written to a
temporary directory; ``detlint audit`` builds its JSON (for comparison) and its
HTML page; the page is opened from disk and each interaction is timed in the
page (``performance.now()`` around a click or an input and the table it draws).

    python bench/report_page.py [--tests 5000] [--chromium /usr/bin/chromium]

Targets: the page under 5 MB, and every interaction under 200 ms (a person
notices a longer wait). Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PER_MODULE = 100
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# One interaction: what it does in the page, timed from the event to the drawn table.
INTERACTIONS = {
    "sort by test": "document.querySelector('#tests th[data-key=\"l\"] button').click()",
    "sort by loss": "document.querySelector('#tests th[data-key=\"s\"] button').click()",
    "filter by text": (
        "const box = document.querySelector('#filter-text'); box.value = 'test_module_07';"
        "box.dispatchEvent(new Event('input'))"
    ),
    "clear the filter": (
        "const box = document.querySelector('#filter-text'); box.value = '';"
        "box.dispatchEvent(new Event('input'))"
    ),
    "next page": "document.querySelector('#page-next').click()",
}


def write_repository(root: Path, tests: int) -> None:
    (root / "requirements-test.txt").write_text("pytest-rerunfailures==16.7\n")
    (root / "tests").mkdir()
    for module in range((tests + PER_MODULE - 1) // PER_MODULE):
        body = ["import pytest", ""]
        for index in range(min(PER_MODULE, tests - module * PER_MODULE)):
            body += [
                f"@pytest.mark.flaky(reruns={(module + index) % 5 + 1})",
                f"def test_case_{index:03d}_with_a_descriptive_name_{module}():",
                "    assert compute() == expected()",
                "",
            ]
        (root / "tests" / f"test_module_{module:03d}.py").write_text("\n".join(body))


def timed(root: Path, *args: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "detlint", "audit", "-q", "--no-cache", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def page_times(page_path: Path, chromium: str, repeat: int) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    found: dict[str, list[float]] = {"load": [], **{name: [] for name in INTERACTIONS}}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=ARGS)
        for _ in range(repeat):
            page = browser.new_page()
            start = time.perf_counter()
            page.goto(page_path.resolve().as_uri())
            page.wait_for_selector("#test-rows tr.test-row")
            found["load"].append((time.perf_counter() - start) * 1000)
            for name, action in INTERACTIONS.items():
                found[name].append(
                    page.evaluate(
                        f"() => {{ const t = performance.now(); {action}; "
                        "return performance.now() - t; }"
                    )
                )
            page.close()
        browser.close()
    return {name: statistics.median(values) for name, values in found.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--chromium", default=shutil.which("chromium"))
    options = parser.parse_args()
    status = 0
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        write_repository(root, options.tests)
        json_seconds = timed(root, "-o", "audit.json")
        html_seconds = timed(root, "--output-format", "html", "-o", "audit.html")
        size = (root / "audit.html").stat().st_size
        print(f"{options.tests} tests: audit JSON {json_seconds:.2f} s, HTML {html_seconds:.2f} s")
        verdict = "PASS" if size < 5 * 1024 * 1024 else "FAIL"
        status |= verdict == "FAIL"
        print(f"page size {size / 1024 / 1024:.2f} MB (target < 5 MB)  {verdict}")
        if options.chromium is None:
            print("page times: skipped, no chromium (--chromium)")
            return status
        for name, milliseconds in page_times(
            root / "audit.html", options.chromium, options.repeat
        ).items():
            target = 3000 if name == "load" else 200
            verdict = "PASS" if milliseconds < target else "FAIL"
            status |= verdict == "FAIL"
            print(f"{name:<18} {milliseconds:8.1f} ms (target < {target} ms)  {verdict}")
    return status


if __name__ == "__main__":
    sys.exit(main())
