"""Time ``detlint check`` in each output format on real checkouts, for one or more
source trees of detlint (before and after a change), read-only.

The JSON, SARIF and GitLab reports carry each finding's fix edits, which the
text report never builds; this script shows what that costs, as the ratio of
each format's time to the text format's on the same tree::

    .venv/bin/python bench/format_speed.py --checkouts /tmp/rw \\
        --tree before=/tmp/detlint-before --tree after=. spyder prefect --repeat 3

Every command is ``detlint check --no-cache --output-format F .`` from the
checkout's root, run as ``python -m detlint`` with ``PYTHONPATH`` set to the
tree, under ``measure.Runner``'s probe (peak RSS); one warm-up run of every
command, then ``--repeat`` rounds interleaved over repositories, trees and
formats, so that a noisy moment on a shared machine hits every row alike
(``--no-warm-up`` skips the warm-up where the checkouts were just read;
``--formats full,json`` measures fewer formats; each run is printed as it ends). The
tables show medians and the peak RSS. Standard library only; a measurement, not
a test: exit 0, or 3 when a command exits outside 0/1.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the modules beside this script

from measure import Command, CommandFailed, Runner

FORMATS = ("full", "json", "sarif", "gitlab")  # ``full``: the text report, the default
REPOS = ("spyder", "prefect", "dd-trace-py", "haystack-core-integrations", "Megatron-LM")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkouts", type=Path, required=True)
    parser.add_argument("--tree", action="append", default=[], metavar="LABEL=PATH")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--formats", default=",".join(FORMATS), help="comma-separated")
    parser.add_argument("--no-warm-up", action="store_true", help="skip the warm-up round")
    parser.add_argument("repos", nargs="*", default=list(REPOS))
    args = parser.parse_args(argv)
    trees = dict(item.split("=", 1) for item in args.tree) or {"here": os.getcwd()}
    formats = tuple(args.formats.split(","))
    rows = [
        (repo, label, fmt, _command(Path(path).resolve(), fmt))
        for repo in args.repos
        for label, path in trees.items()
        for fmt in formats
    ]
    seconds: dict[tuple[str, str, str], list[float]] = {row[:3]: [] for row in rows}
    rss: dict[tuple[str, str, str], float] = dict.fromkeys(seconds, 0.0)
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as scratch:
        runner = Runner.create(Path(scratch), inherit_env=False)
        try:
            first = 1 if args.no_warm_up else 0
            for round_number in range(first, args.repeat + 1):
                for repo, label, fmt, command in rows:
                    elapsed, peak, _ = runner.run(command, args.checkouts / repo)
                    rss[(repo, label, fmt)] = max(rss[(repo, label, fmt)], peak)
                    if round_number:  # round 0 warms the caches of the file system
                        print(repo, label, fmt, f"{elapsed:.2f}", flush=True)
                        seconds[(repo, label, fmt)].append(elapsed)
        except CommandFailed as error:
            print(error, file=sys.stderr)
            return 3
    print(f"load average before {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}, after", end=" ")
    print(" / ".join(f"{value:.2f}" for value in os.getloadavg()))
    print(f"seconds (median of {args.repeat}), ratio to text, peak RSS MB\n")
    print(
        "| repository | tree | "
        + " | ".join(formats)
        + " | "
        + " | ".join(f"{fmt}/text" for fmt in formats[1:])
        + " | RSS "
        + " / ".join(formats)
        + " |"
    )
    print("|---" * (2 + 2 * len(formats)) + "|")
    for repo in args.repos:
        for label in trees:
            median = {fmt: statistics.median(seconds[(repo, label, fmt)]) for fmt in formats}
            cells = [f"{median[fmt]:.2f}" for fmt in formats]
            cells += [f"{median[fmt] / median['full']:.2f}" for fmt in formats[1:]]
            cells.append(" / ".join(f"{rss[(repo, label, fmt)]:.0f}" for fmt in formats))
            print(f"| {repo} | {label} | " + " | ".join(cells) + " |")
    return 0


def _command(tree: Path, fmt: str) -> Command:
    argv = ("env", f"PYTHONPATH={tree}", sys.executable, "-m", "detlint", "check")
    argv += ("--no-cache", "--output-format", fmt, ".")
    return Command(f"{tree}:{fmt}", f"detlint check --output-format {fmt}", argv, frozenset({0, 1}))


if __name__ == "__main__":
    sys.exit(main())
