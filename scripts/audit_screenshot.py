"""Draws docs/images/audit-report.png, the README's picture of the HTML audit.

The audit of examples/needle, made by the command the picture shows, opened from
disk in headless Chromium and photographed from the top of the page to the end of
its detection curves (the headline, the overview and the per-knob panels). The
date is fixed with SOURCE_DATE_EPOCH, so a run on an unchanged tree draws the
same page.

    python scripts/audit_screenshot.py [OUTPUT.png]

Needs detlint's report extras, playwright, and Chromium (Debian's ``chromium`` on
PATH, or the one DETLINT_CHROMIUM names).
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PICTURE = ROOT / "docs" / "images" / "audit-report.png"
WIDTH = 1000
DATE = "1796169600"  # 2026-12-02 00:00 UTC
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]


def audit_page(page: Path) -> None:
    """The example's HTML audit, written to ``page`` by the command the picture shows."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": DATE, "DETLINT_NO_CACHE": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    command = ["audit", "examples/needle", "-q", "--output-format", "html", "-o", str(page)]
    subprocess.run([sys.executable, "-m", "detlint", *command], cwd=ROOT, env=env, check=True)


def photograph(page: Path, picture: Path) -> None:
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("DETLINT_CHROMIUM") or shutil.which("chromium")
    if chromium is None:
        raise SystemExit("no chromium on PATH (Debian: apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        opened = browser.new_page(viewport={"width": WIDTH, "height": 900})
        opened.goto(page.resolve().as_uri())
        box = opened.locator("#curves").bounding_box()
        assert box is not None, "the page has no detection curves"
        # The window made as tall as the page down to the curves' end: the picture.
        opened.set_viewport_size({"width": WIDTH, "height": math.ceil(box["y"] + box["height"])})
        opened.screenshot(path=str(picture))
        browser.close()


def main(argv: list[str]) -> None:
    picture = Path(argv[0]) if argv else PICTURE
    with tempfile.TemporaryDirectory() as work:
        # The path the picture's command line shows.
        page = Path("/tmp/needle.html") if picture == PICTURE else Path(work) / "needle.html"
        audit_page(page)
        photograph(page, picture)


if __name__ == "__main__":
    main(sys.argv[1:])
