"""The CI census read by hand against detlint: recall over every knob, not only findings.

``ci_census.jsonl`` holds, per repository, every CI knob found by grep in its pipelines
and the scripts they call, read by hand: whether its step runs tests (``runs_tests``),
whether it acts on a test failure (``covers_test_failure``), and why. This reruns
``detlint check`` on each checkout and prints, per repository, how many knobs that hide
test failures are reported (a CI finding at the knob's file and line, or one line
below it, where a key's value starts, unless another knob of the census is written
there, or a place the row's ``also`` names: a retry
written in a wrapper that several steps call), how many are missed, how many knobs that hide
nothing are reported anyway, how many knobs that hide nothing the audit's inventory names
(``ci.knobs``, with its reason), and the CI findings at no knob of the census (to read)::

    .venv/bin/python bench/realworld/ci_census.py --checkouts /tmp/rw

The exit status is 1 when a knob that hides nothing is reported.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
CI_CODES = ("DET4", "DET5")


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--checkouts", type=Path, default=Path("/tmp/rw"))
    options.add_argument("--census", type=Path, default=HERE / "ci_census.jsonl")
    options.add_argument("--unnamed", action="store_true", help="list quiet knobs the audit omits")
    options.add_argument("--detlint", default=str(Path(sys.executable).with_name("detlint")))
    args = options.parse_args()
    rows = [json.loads(line) for line in args.census.open(encoding="utf-8") if line.strip()]
    by_repo: dict[str, list[dict]] = collections.defaultdict(list)
    for row in rows:
        by_repo[row["repo"]].append(row)
    totals: collections.Counter[str] = collections.Counter()
    print(
        f"{'repository':28} {'hide':>5} {'found':>6} {'missed':>7} {'wrong':>6} {'extra':>6}"
        f" {'quiet':>6} {'named':>6}"
    )
    for repo, knobs in sorted(by_repo.items()):
        checkout = args.checkouts / repo
        if not checkout.is_dir():
            print(f"{repo:28} (no checkout)")
            continue
        result = subprocess.run(
            [args.detlint, "check", "--no-cache", "--output-format", "json", "."],
            cwd=checkout, capture_output=True, text=True, check=False,
        )  # fmt: skip
        found = [f for f in json.loads(result.stdout)["findings"] if f["code"].startswith(CI_CODES)]
        places = {(f["path"], f["line"]) for f in found}
        audit = subprocess.run(
            [args.detlint, "audit", "--no-cache", "--output-format", "json", "."],
            cwd=checkout, capture_output=True, text=True, check=False,
        )  # fmt: skip
        inventory = {(k["path"], k["line"]) for k in json.loads(audit.stdout)["ci"]["knobs"]}
        counts: collections.Counter[str] = collections.Counter()
        matched: set[tuple[str, int]] = set()
        rows_at = {(knob["path"], knob["line"]) for knob in knobs}
        for knob in knobs:
            hides = knob["runs_tests"] == "yes" and knob["covers_test_failure"] in ("yes", "partly")
            written = {(knob["path"], knob["line"])}
            if (knob["path"], knob["line"] + 1) not in rows_at:  # the line below is its value's
                written.add((knob["path"], knob["line"] + 1))
            for place in knob.get("also", ()):  # where the knob is written, when elsewhere
                path, _, line = place.rpartition(":")
                written.add((path, int(line)))
            at = written & places
            matched |= at
            counts["hide"] += hides
            counts["found"] += hides and bool(at)
            counts["missed"] += hides and not at
            counts["wrong"] += (not hides) and bool(at)
            counts["quiet"] += not hides
            named = bool(at or written & inventory)
            counts["named"] += (not hides) and named
            if not hides and not named and args.unnamed:
                print(f"    unnamed {knob['path']}:{knob['line']} {knob['kind'][:70]}")
        extra = [f for f in found if (f["path"], f["line"]) not in matched]
        counts["extra"] += len(extra)
        totals.update(counts)
        print(
            f"{repo:28} {counts['hide']:>5} {counts['found']:>6} {counts['missed']:>7} "
            f"{counts['wrong']:>6} {counts['extra']:>6} {counts['quiet']:>6} {counts['named']:>6}"
        )
        for finding in extra:
            print(f"    extra {finding['code']} {finding['path']}:{finding['line']}")
    print(
        f"{'all':28} {totals['hide']:>5} {totals['found']:>6} {totals['missed']:>7} "
        f"{totals['wrong']:>6} {totals['extra']:>6} {totals['quiet']:>6} {totals['named']:>6}"
    )
    if totals["hide"]:
        print(f"census recall: {totals['found']}/{totals['hide']}")
    if totals["quiet"]:
        print(f"knobs hiding nothing, named in the audit: {totals['named']}/{totals['quiet']}")
    return 1 if totals["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
