"""The audit report on the real checkouts: properties checked, and the claims to read.

For each checkout present under ``--checkouts`` (the ``[[repo]]`` names of
``repos.toml``), ``detlint audit`` is run three times (HTML, Markdown, JSON) and:

- the page must be under 5 MB, hold every test of its table once, and ask for
  nothing over the network (no external ``src``/``href``, no ``<link>``);
- the summary must stay under 1 MiB and name the same headline as the page;
- the headline's median must be the median of the table's rows (the page
  computes nothing: this checks that the view and the rows agree).

Then it prints what a reader judges against the source: the headline, the
change that wins back most, and the first ``--rows`` rows of the table (test,
layers, reported, without). The verdicts are in ``report.jsonl``: one claim per
line, its repository, what was read (``headline``, ``best``, ``row``), the text,
``verdict`` (right or wrong) and a note.

    python bench/realworld/report.py --checkouts /tmp/rw [--rows 10] [NAME ...]

Exit status: 1 when a property fails on any repository, 0 otherwise.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent

if sys.version_info >= (3, 11):
    import tomllib
else:  # detlint depends on tomli there
    import tomli as tomllib

_DATA = re.compile(r'<script type="application/json" id="audit-data">(.*?)</script>', re.S)
_ATTRIBUTE = re.compile(r"""\s(?:src|href|xlink:href)\s*=\s*["']([^"']*)["']""")


def _audit(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "detlint", "audit", "-q", *args]
    return subprocess.run(command, cwd=root.parent, capture_output=True, text=True, check=False)


def check_repository(root: Path, rows: int) -> list[str]:
    """The properties that fail on one checkout (printing what there is to read)."""
    failed: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        page_path = Path(scratch) / "audit.html"
        done = _audit(root, root.name, "--output-format", "html", "-o", str(page_path))
        if done.returncode != 0:
            return [f"html: exit {done.returncode}: {done.stderr.strip()}"]
        page = page_path.read_text(encoding="utf-8")
    summary = _audit(root, root.name, "--output-format", "markdown")
    if summary.returncode != 0:
        return [f"markdown: exit {summary.returncode}: {summary.stderr.strip()}"]
    size = len(page.encode())
    if size >= 5 * 1024 * 1024:
        failed.append(f"the page is {size} bytes")
    if len(summary.stdout.encode()) >= 1024 * 1024:
        failed.append("the summary passes 1 MiB")
    if re.search(r"<link\b|<script[^>]*\bsrc=", page) or any(
        not value.startswith("#") for value in _ATTRIBUTE.findall(page)
    ):
        failed.append("the page links outside itself")
    found = _DATA.search(page)
    if found is None:
        return [*failed, "no data in the page"]
    data = json.loads(found.group(1))
    labels = [row["l"] for row in data["tests"]]
    if len(labels) != len(set(labels)):
        failed.append("a test is in the table twice")
    lead = re.search(r'<p class="lead">(.*?)</p>', page, re.S)
    lead_text = html.unescape(lead.group(1).strip()) if lead else ""
    if lead_text.split(":")[0] not in summary.stdout:
        failed.append("the summary's headline differs from the page's")
    policies = data["policies"]
    masked = [policies[row["P"]] for row in data["tests"] if _masks(policies[row["P"]])]
    if masked:
        median = statistics.median(policy["r"] for policy in masked)
        if f"{_percent_text(median)} of the time (median)" not in lead_text:
            failed.append(f"the headline's median is not the rows' ({median})")
    print(f"  headline: {lead_text}")
    best = re.search(r'<p class="best">(.*?)</p>', page, re.S)
    if best:
        print(f"  best: {html.unescape(best.group(1).strip())}")
    for row in data["tests"][:rows]:
        policy = policies[row["P"]]
        print(f"  row: {row['l']}  [{' -> '.join(policy['y'])}]  {policy['rt']} / {policy['wt']}")
    print(f"  {len(labels)} tests, page {size // 1024} KiB, summary {len(summary.stdout)} bytes")
    return failed


def _masks(policy: dict[str, object]) -> bool:
    return bool(policy["nb"]) or float(policy["w"]) - float(policy["r"]) > 0  # type: ignore[arg-type]


def _percent_text(value: float) -> str:
    sys.path.insert(0, str(HERE.parent.parent))
    from detlint.base.percentages import percent

    return percent(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkouts", type=Path, required=True)
    parser.add_argument("--rows", type=int, default=10)
    parser.add_argument("names", nargs="*")
    options = parser.parse_args()
    repos = tomllib.loads((HERE / "repos.toml").read_text(encoding="utf-8"))["repo"]
    status = 0
    for repo in repos:
        name = repo["name"]
        root = options.checkouts / name
        if (options.names and name not in options.names) or not root.is_dir():
            continue
        print(f"{name} ({repo['github']} at {repo['commit'][:12]})")
        failed = check_repository(root, options.rows)
        for problem in failed:
            print(f"  FAILED: {problem}")
        status |= bool(failed)
    return status


if __name__ == "__main__":
    sys.exit(main())
