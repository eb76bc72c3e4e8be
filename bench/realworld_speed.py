"""Time detlint against ruff and grep on real repository checkouts, read-only.

``run.py`` measures a synthetic tree; this script measures the checkouts the
findings are read against (``bench/realworld/repos.toml``)::

    .venv/bin/python bench/realworld_speed.py --checkouts /tmp/rw
    .venv/bin/python bench/realworld_speed.py --checkouts /tmp/rw spyder celery --repeat 5
    .venv/bin/python bench/realworld_speed.py --checkouts /tmp/rw --json

Per repository it times, from the checkout's root: ``detlint check --no-cache``
(cold, as a CI job's first run), ``detlint check`` (warm: the cache filled by
the warm-up run), ``detlint check --no-cache --output-format json``, ``detlint
audit --no-cache --output-format json``, ``detlint check <one test file with a
knob>`` (as a pre-commit hook runs it, cache warm), ``ruff check --select PT``
cold and warm, and ``grep -rl --include=*.py flaky .`` (the floor of reading
the Python files); once, from an empty directory, ``python -c "import click"``
(the floor of a Python command line, the one-file target).

The method is ``run.py``'s (``measure.Runner``): every command runs under a
small probe that reports its own peak RSS; one warm-up run of everything, then
``--repeat`` rounds, interleaved round-robin over the repositories and their
commands so that a noisy moment on a shared machine hits every row alike; the
tables show medians. The checkouts are never written to: detlint's and ruff's
caches (``--cache-dir``) and Python's bytecode (``PYTHONPYCACHEPREFIX``) live in
a scratch directory, and after the run every tree is searched for an entry
newer than the start (reported as ``tree_written``). The machine's load
average before and after is in the report, since the figures mean little
without it.

A measurement, not a test: exit 0, or 3 when a command exits outside the
statuses it documents (0/1 for linters and grep). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the modules beside this script

from measure import Command, CommandFailed, Measurement, Runner, _tool

# Eight checkouts of different shapes, 1k-10k files each (counts at the commits in
# repos.toml): YAML/CI-heavy, monorepos, Python-heavy libraries.
DEFAULT_REPOS = (
    "dd-trace-py",  # 10k files, 2.9k .py, 3.1k YAML (test snapshots, CI): YAML-heavy
    "ray-no-fork",  # 10k files, 4.5k .py, 780 YAML: a monorepo
    "prefect",  # 5.3k files, 1.9k .py: Python-heavy application
    "bokeh",  # 5.7k files, 1.2k .py: a library with many non-Python files
    "Megatron-LM",  # 3.1k files, 1.3k .py, 460 YAML: CI-heavy
    "vllm-ascend",  # 3.3k files, 1.2k .py, 260 YAML: nightly CI suites
    "haystack-core-integrations",  # 2.1k files, 1.2k .py: a monorepo of packages
    "spyder",  # 2.4k files, 1.0k .py: a desktop application
)

LINT = frozenset({0, 1})  # linters exit 1 on findings, grep when nothing matches
KNOB_WORDS = (b"mark.flaky", b"mark.xfail", b"@flaky")

# The floor of a reader written in Python: read and ``ast.parse`` every ``.py`` file of the
# tree in one process (hidden directories skipped, as both linters skip them). detlint parses
# only the files its prefilter passes, but the figure says what one parse of the tree costs
# against ruff's whole lint.
PARSE_EVERY_FILE = """
import ast, os
for top, folders, files in os.walk("."):
    folders[:] = [f for f in folders if not f.startswith(".")]
    for name in files:
        if name.endswith(".py"):
            try:
                with open(os.path.join(top, name), "rb") as handle:
                    ast.parse(handle.read())
            except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
                pass
"""

# (label, numerator key, denominator key)
RATIOS = (
    ("detlint cold / ruff cold", "check", "ruff"),
    ("detlint warm / ruff warm", "check_warm", "ruff_warm"),
    ("detlint cold / grep", "check", "grep"),
    ("python parse / ruff cold", "parse", "ruff"),
    ("json / text (cold)", "check_json", "check"),
    ("audit json / check json", "audit", "check_json"),
    ('one-file / python -c "import click"', "one_file", "click"),
)


@dataclass(frozen=True)
class Tree:
    """One checkout and what the run needs to know about it."""

    name: str
    root: Path
    files: int
    python_files: int
    yaml_files: int
    knob_file: str | None  # a test_*.py with a knob, relative to the root


def survey(name: str, root: Path) -> Tree:
    """Count the files (``.git`` aside) and pick the one-file target: the first test file,
    in sorted order, that holds a rerun/xfail knob."""
    files = python = yaml = 0
    knob: str | None = None
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d != ".git")
        for filename in sorted(names):
            files += 1
            python += filename.endswith(".py")
            yaml += filename.endswith((".yml", ".yaml"))
            if knob is None and filename.startswith("test_") and filename.endswith(".py"):
                path = Path(directory, filename)
                try:
                    data = path.read_bytes()
                except OSError:
                    continue
                if any(word in data for word in KNOB_WORDS):
                    knob = str(path.relative_to(root))
    return Tree(name, root, files, python, yaml, knob)


def tree_commands(tree: Tree, detlint: str, ruff: str, scratch: Path) -> list[Command]:
    """The rows measured from the tree's root; caches in ``scratch``, never in the tree."""
    cache = ("--cache-dir", str(scratch / "detlint-cache" / tree.name))
    ruff_cache = ("--cache-dir", str(scratch / "ruff-cache" / tree.name))
    rows = [
        Command(
            "check",
            "detlint check --no-cache .",
            (detlint, "check", "--no-cache", *cache, "."),
            LINT,
        ),
        Command(
            "check_warm", "detlint check . <warm cache>", (detlint, "check", *cache, "."), LINT
        ),
        Command(
            "check_json",
            "detlint check --no-cache --output-format json .",
            (detlint, "check", "--no-cache", *cache, "--output-format", "json", "."),
            LINT,
        ),
        Command(
            "audit",
            "detlint audit --no-cache --output-format json .",
            (detlint, "audit", "--no-cache", *cache, "--output-format", "json", "."),
            LINT,
        ),
        Command(
            "ruff",
            "ruff check --select PT --no-cache .",
            (ruff, "check", "--select", "PT", "--no-cache", *ruff_cache, "."),
            LINT,
        ),
        Command(
            "ruff_warm",
            "ruff check --select PT . <warm cache>",
            (ruff, "check", "--select", "PT", *ruff_cache, "."),
            LINT,
        ),
        Command(
            "grep",
            "grep -rl --include=*.py flaky .",
            ("grep", "-rl", "--include=*.py", "flaky", "."),
            LINT,
        ),
        Command(
            "parse",
            "python: ast.parse every .py file",
            (sys.executable, "-c", PARSE_EVERY_FILE),
            frozenset({0}),
        ),
    ]
    if tree.knob_file is not None:
        label = "detlint check <1 test file with a knob>"
        rows.append(Command("one_file", label, (detlint, "check", *cache, tree.knob_file), LINT))
    return rows


def _count_findings(path: Path) -> int | None:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(document, list):
        return len(document)
    if isinstance(document, dict) and isinstance(document.get("findings"), list):
        return len(document["findings"])
    return None


def _written_entry(root: Path, stamp: Path) -> str | None:
    """The first entry of the tree modified after ``stamp``, if any: trees stay as they were."""
    result = subprocess.run(
        ["find", str(root), "-newer", str(stamp), "-print", "-quit"],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip() or None


def run_rounds(
    plan: list[tuple[Tree, list[Command]]],
    click: Command,
    runner: Runner,
    neutral: Path,
    repeat: int,
    log: Callable[[str], None],
) -> tuple[dict[str, dict[str, Measurement]], dict[str, int | None]]:
    """One warm-up of every row, then ``repeat`` rounds round-robin over trees and rows."""
    results: dict[str, dict[str, Measurement]] = {
        tree.name: {c.key: Measurement(c.key, c.label, list(c.argv)) for c in rows}
        for tree, rows in plan
    }
    results[""] = {"click": Measurement("click", click.label, list(click.argv))}
    everything = [(tree.name, tree.root, c) for tree, rows in plan for c in rows]
    everything.append(("", neutral, click))
    found: dict[str, int | None] = {}
    for name, cwd, command in everything:
        out = neutral / f"{name}.json" if command.key == "check_json" else None
        elapsed, _, _ = runner.run(command, cwd, out)
        if out is not None:
            found[name] = _count_findings(out)
        log(f"warm-up  {name or '-':<28} {command.label:<48} {elapsed:8.3f} s")
    for number in range(1, repeat + 1):
        for name, cwd, command in everything:
            elapsed, rss, code = runner.run(command, cwd)
            row = results[name][command.key]
            row.seconds.append(elapsed)
            row.rss_mb.append(rss)
            row.exit_codes.append(code)
        log(f"round {number}/{repeat} done")
    return results, found


def _row(m: Measurement) -> dict[str, Any]:
    return {
        "key": m.key,
        "command": m.label,
        "median_seconds": round(m.median, 4),
        "min_seconds": round(min(m.seconds), 4),
        "max_seconds": round(max(m.seconds), 4),
        "peak_rss_mb": round(m.peak_mb, 1),
        "exit_codes": sorted(set(m.exit_codes)),
    }


def _ratios(rows: dict[str, Measurement], click: Measurement) -> dict[str, float | None]:
    table = {**rows, "click": click}
    ratios: dict[str, float | None] = {}
    for label, top, bottom in RATIOS:
        ok = top in table and bottom in table and table[bottom].median > 0
        ratios[label] = round(table[top].median / table[bottom].median, 3) if ok else None
    return ratios


def build_report(
    plan: list[tuple[Tree, list[Command]]],
    results: dict[str, dict[str, Measurement]],
    found: dict[str, int | None],
    written: dict[str, str | None],
) -> dict[str, Any]:
    click = results[""]["click"]
    repos = []
    for tree, _ in plan:
        rows = results[tree.name]
        repos.append(
            {
                "name": tree.name,
                "files": tree.files,
                "python_files": tree.python_files,
                "yaml_files": tree.yaml_files,
                "one_file": tree.knob_file,
                "detlint_findings": found.get(tree.name),
                "tree_written": written.get(tree.name),
                "commands": [_row(m) for m in rows.values()],
                "ratios": _ratios(rows, click),
                "peak_rss_mb": {
                    "detlint_cold": round(rows["check"].peak_mb, 1),
                    "ruff_cold": round(rows["ruff"].peak_mb, 1),
                },
            }
        )
    summary: dict[str, Any] = {}
    for label, _, _ in RATIOS:
        values = [r["ratios"][label] for r in repos if r["ratios"][label] is not None]
        summary[label] = {
            "median": round(statistics.median(values), 3) if values else None,
            "max": max(values) if values else None,
        }
    worst = max(repos, key=lambda r: r["ratios"]["detlint cold / ruff cold"] or 0.0)["name"]
    return {"click": _row(click), "repositories": repos, "summary": summary, "worst_cold": worst}


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def render_text(document: dict[str, Any]) -> str:
    lines = [
        f"median of {document['runs']} runs after 1 warm-up, interleaved; {document['cpus']} CPUs; "
        f"Python {document['python']}; RSS via {document['rss_method']}; load average "
        f"before {document['load_before']}, after {document['load_after']}",
        f"{document['click']['command']}: {document['click']['median_seconds']:.3f} s "
        f"(from an empty directory)",
    ]
    for repo in document["repositories"]:
        lines += [
            "",
            f"== {repo['name']}: {repo['files']} files, {repo['python_files']} .py, "
            f"{repo['yaml_files']} YAML; detlint check found {repo['detlint_findings']} findings; "
            f"one file: {repo['one_file'] or '-'}; tree written: {repo['tree_written'] or 'no'}",
        ]
        width = max(len(c["command"]) for c in repo["commands"])
        lines.append(f"{'command':<{width}}  {'median s':>9}  {'min s':>8}  {'peak RSS MB':>11}")
        for c in repo["commands"]:
            lines.append(
                f"{c['command']:<{width}}  {c['median_seconds']:>9.3f}  {c['min_seconds']:>8.3f}  "
                f"{c['peak_rss_mb']:>11.1f}"
            )
        lines.append("ratios: " + "; ".join(f"{k} {_number(v)}" for k, v in repo["ratios"].items()))
    lines += ["", "summary (ratios of medians, per repository)"]
    names = [r["name"] for r in document["repositories"]]
    short = ["cold/ruff", "warm/ruff", "cold/grep", "parse/ruff", "json/text", "audit/json"]
    short.append("1file/click")
    lines.append(f"{'repository':<28}" + "".join(f"{s:>12}" for s in short) + f"{'RSS MB d/r':>14}")
    for name, repo in zip(names, document["repositories"], strict=True):
        cells = "".join(f"{_number(v):>12}" for v in repo["ratios"].values())
        rss = f"{repo['peak_rss_mb']['detlint_cold']:.0f}/{repo['peak_rss_mb']['ruff_cold']:.0f}"
        lines.append(f"{name:<28}{cells}{rss:>14}")
    medians = "".join(f"{_number(s['median']):>12}" for s in document["summary"].values())
    lines.append(f"{'median over repositories':<28}{medians}")
    lines.append(f"worst detlint cold / ruff cold: {document['worst_cold']}")
    return "\n".join(lines) + "\n"


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "repos", nargs="*", help=f"checkout names (default: {' '.join(DEFAULT_REPOS)})"
    )
    parser.add_argument("--checkouts", required=True, type=Path, help="directory of the checkouts")
    parser.add_argument("--repeat", type=int, default=3, help="measured runs per command (3)")
    parser.add_argument("--ruff", help="the ruff to compare with (default: beside this Python)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the tables")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    args.repos = args.repos or list(DEFAULT_REPOS)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    missing = [name for name in args.repos if not (args.checkouts / name).is_dir()]
    empty = [
        name
        for name in args.repos
        if name not in missing and not any((args.checkouts / name).iterdir())
    ]
    if missing or empty:
        parser.error(f"no checkout under {args.checkouts}: {', '.join(missing + empty)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)

    def log(message: str) -> None:
        if not args.quiet:
            print(f"bench: {message}", file=sys.stderr, flush=True)

    detlint, ruff = _tool("detlint"), args.ruff or _tool("ruff")
    load_before = _load()
    with tempfile.TemporaryDirectory(prefix="detlint-realworld-") as scratch_name:
        scratch = Path(scratch_name)
        stamp = scratch / "start"
        stamp.touch()
        neutral = scratch / "neutral-cwd"
        neutral.mkdir()
        runner = Runner.create(scratch, inherit_env=False)
        trees = [survey(name, (args.checkouts / name).resolve()) for name in args.repos]
        plan = [(tree, tree_commands(tree, detlint, ruff, scratch)) for tree in trees]
        click = Command("click", 'python -c "import click"', (sys.executable, "-c", "import click"))
        try:
            results, found = run_rounds(plan, click, runner, neutral, args.repeat, log)
        except CommandFailed as error:
            print(f"bench: COMMAND FAILED: {error}", file=sys.stderr)
            return 3
        written = {tree.name: _written_entry(tree.root, stamp) for tree in trees}
    document = build_report(plan, results, found, written)
    document |= {
        "runs": args.repeat,
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "rss_method": runner.method,
        "load_before": load_before,
        "load_after": _load(),
        "detlint": detlint,
        "ruff": ruff,
    }
    print(json.dumps(document, indent=2) if args.json else render_text(document), end="")
    if args.json:
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
