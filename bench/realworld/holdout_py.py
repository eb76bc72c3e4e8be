"""Draw the samples a held-out measurement of detlint's Python side reads.

Two samples, both stratified by repository and reproducible (a fixed seed):

- ``findings``: ``detlint check --output-format json`` on each checkout; the
  Python findings (every code but the CI rules DET4xx and DET9xx) are drawn
  round-robin over repositories and, within one, over codes, until N are drawn.
  Each line of the output is one finding to read and judge (``verdict`` left
  empty).
- ``occurrences``: every line of a Python file or a pytest configuration file
  that spells a knob (a rerun, retry or flaky marker or decorator, a skip or
  xfail whose reason sounds flaky, a rerun option, a loop bounded by the
  environment) is found by regular expressions, and M are drawn the same way,
  each with the findings detlint reports on that line or the test it belongs to
  (by path and line), for a reader to judge whether the knob was reported.

The reader judges from the source; this script only draws and joins.

    python bench/realworld/holdout_py.py findings --checkouts /tmp/holdout-py -n 160 > F.jsonl
    python bench/realworld/holdout_py.py occurrences --checkouts /tmp/holdout-py -n 70 > O.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

SEED = 31
CI_CODES = ("DET4", "DET9")
CONFIG_FILES = frozenset({"pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"})
FLAKY_WORDS = (
    r"(flak|intermittent|sometimes|random(ly)?\s+fail|\brace\b|unstable|nondetermin|occasional)"
)
SPELLINGS: dict[str, re.Pattern[str]] = {
    "rerun-marker": re.compile(r"mark\.flaky\b|@flaky\b|\bflaky\(|mark\.repeat\b"),
    "retry-decorator": re.compile(r"^\s*@\S*(retry|retrying|backoff\.on_exception|on_exception)\b"),
    "flaky-skip": re.compile(
        r"(skip|skipif|skipIf|skipUnless|xfail|expectedFailure)\b.*" + FLAKY_WORDS, re.I
    ),
    "rerun-option": re.compile(r"--reruns\b|--max-runs\b|--retries\b|--force-flaky\b"),
    "env-trial-loop": re.compile(r"\bfor\b.*\brange\(.*(getenv|environ)"),
}


def python_findings(checkout: Path) -> list[dict[str, object]]:
    """detlint's findings on one checkout, without the CI rules."""
    run = subprocess.run(
        [sys.executable, "-m", "detlint", "check", "--output-format", "json", "--no-cache", "."],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        findings = json.loads(run.stdout)["findings"]
    except (json.JSONDecodeError, KeyError):
        print(f"{checkout.name}: no JSON ({run.stderr.strip()[:200]})", file=sys.stderr)
        return []
    return [item for item in findings if not str(item["code"]).startswith(CI_CODES)]


def round_robin(
    groups: dict[str, dict[str, list[dict[str, object]]]], total: int
) -> Iterator[dict[str, object]]:
    """Up to ``total`` items: one repository after another, one code after another."""
    rng = random.Random(SEED)
    queues: dict[str, list[list[dict[str, object]]]] = {}
    for repo in sorted(groups):
        codes = [list(items) for _, items in sorted(groups[repo].items())]
        for items in codes:
            rng.shuffle(items)
        queues[repo] = codes
    drawn = 0
    while drawn < total and any(any(codes) for codes in queues.values()):
        for repo in sorted(queues):
            codes = [items for items in queues[repo] if items]
            queues[repo] = codes
            if not codes or drawn >= total:
                continue
            codes.append(codes.pop(0))
            yield codes[-1].pop()
            drawn += 1


def knob_lines(checkout: Path) -> Iterator[dict[str, object]]:
    for path in sorted(checkout.rglob("*")):
        if not path.is_file() or not (path.suffix == ".py" or path.name in CONFIG_FILES):
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for spelling, pattern in SPELLINGS.items():
                if pattern.search(line):
                    yield {
                        "path": str(path.relative_to(checkout)),
                        "line": number,
                        "spelling": spelling,
                        "text": line.strip()[:300],
                    }
                    break


def _checkouts(directory: Path) -> list[Path]:
    return sorted(path for path in directory.iterdir() if path.is_dir())


def _write(items: Iterable[dict[str, object]]) -> None:
    for item in items:
        print(json.dumps(item, ensure_ascii=False))


def draw_findings(directory: Path, total: int) -> None:
    groups: dict[str, dict[str, list[dict[str, object]]]] = {}
    for checkout in _checkouts(directory):
        by_code: dict[str, list[dict[str, object]]] = defaultdict(list)
        found = python_findings(checkout)
        print(f"{checkout.name}: {len(found)} Python findings", file=sys.stderr)
        for item in found:
            by_code[str(item["code"])].append(
                {
                    "repo": checkout.name,
                    "code": item["code"],
                    "path": item["path"],
                    "line": item["line"],
                    "message": item["message"],
                    "verdict": "",
                    "note": "",
                }
            )
        groups[checkout.name] = dict(by_code)
    _write(round_robin(groups, total))


def draw_occurrences(directory: Path, total: int) -> None:
    groups: dict[str, dict[str, list[dict[str, object]]]] = {}
    for checkout in _checkouts(directory):
        findings = python_findings(checkout)
        by_spelling: dict[str, list[dict[str, object]]] = defaultdict(list)
        for occurrence in knob_lines(checkout):
            near = [
                f"{item['code']} {item['path']}:{item['line']}: {item['message']}"
                for item in findings
                if item["path"] == occurrence["path"]
            ]
            by_spelling[str(occurrence["spelling"])].append(
                {
                    "repo": checkout.name,
                    **occurrence,
                    "findings_in_file": near,
                    "verdict": "",
                    "note": "",
                }
            )
        groups[checkout.name] = dict(by_spelling)
    _write(round_robin(groups, total))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sample", choices=("findings", "occurrences"))
    parser.add_argument("--checkouts", type=Path, required=True)
    parser.add_argument("-n", type=int, default=160)
    arguments = parser.parse_args()
    if arguments.sample == "findings":
        draw_findings(arguments.checkouts, arguments.n)
    else:
        draw_occurrences(arguments.checkouts, arguments.n)


if __name__ == "__main__":
    main()
