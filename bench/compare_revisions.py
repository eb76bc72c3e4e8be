"""Whether two revisions of detlint print the same thing, byte for byte, on the same inputs.

A change that means to keep behaviour (a move of modules, a split of functions, a faster
reader) is checked here: both revisions run every command below on today's inputs, and
every output (standard output, standard error and exit status, run times and dates
masked) must be equal::

    .venv/bin/python bench/compare_revisions.py a8dbe83             # against the work tree
    .venv/bin/python bench/compare_revisions.py a8dbe83 HEAD --checkouts /tmp/rw

The inputs: every fixture repository under ``tests/fixtures`` and the examples (``check``
in every output format, ``--diff``, ``--statistics``, ``audit`` as JSON and Markdown), each
example of the rule catalogue, ``power``, ``rule``, ``evidence``, the help texts and the
setup views; with ``--checkouts DIR``, each repository checked out under DIR (the real
repositories of ``bench/realworld/repos.toml``: ``check`` as JSON, concise and ``--diff``,
``audit`` as JSON and Markdown). ``--startup N`` times instead a one-file check (a test
file with a knob, and README.md), N interleaved runs of each revision, and prints the
medians: what a pre-commit hook waits for. Each revision's ``detlint`` and ``rules`` are taken from
git (or the work tree) into a scratch directory and run with the interpreter that runs
this script. Exit status 1 when an output differs. Standard library only (Python 3.11+).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from io import BytesIO
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ("concise", "full", "json", "sarif", "github", "junit", "buildkite", "gitlab")
# The entry point of either layout: detlint.cli.main (now) or detlint.cli (before).
RUNNER = (
    "import sys\n"
    "sys.argv[0] = 'detlint'\n"
    "try:\n    from detlint.cli.main import main\n"
    "except ImportError:\n    from detlint.cli import main\n"
    "sys.exit(main())\n"
)
_MASKS = (
    (re.compile(r'time="[0-9.]+"'), 'time="X"'),
    (re.compile(r'"(time|elapsed|seconds|generated)": [0-9.e-]+'), r'"\1": X'),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC"), "DATE"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?"), "DATE"),
)

Job = tuple[str, Path, list[str]]  # (name, working directory, detlint's arguments)


def source_of(revision: str | None, into: Path) -> Path:
    """``detlint`` and ``rules`` of ``revision`` (the work tree when None) under ``into``."""
    into.mkdir(parents=True)
    if revision is None:
        for name in ("detlint", "rules"):
            shutil.copytree(ROOT / name, into / name, ignore=shutil.ignore_patterns("__pycache__"))
        return into
    archive = subprocess.run(
        ["git", "archive", revision, "detlint", "rules"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def example_jobs(scratch: Path) -> list[Job]:
    """Every example of the rule catalogue, written out as the files it names."""
    jobs: list[Job] = []
    for path in sorted((ROOT / "rules").glob("DET*.toml")):
        page = tomllib.loads(path.read_text(encoding="utf-8"))
        for number, example in enumerate(page.get("examples", [])):
            where = scratch / "examples" / f"{path.stem}-{number}"
            where.mkdir(parents=True)
            for file in example.get("files", []):
                target = where / file["path"]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(file["content"], encoding="utf-8")
            for form in ("json", "full"):
                arguments = ["check", "--output-format", form, "--extend-select", path.stem]
                jobs.append((f"example {path.stem}-{number} {form}", where, arguments))
    return jobs


def fixture_jobs() -> list[Job]:
    fixtures = ROOT / "tests" / "fixtures"
    subjects = [fixtures / "ci", ROOT / "examples" / "needle", ROOT / "examples" / "evidence"]
    for group in ("repos", "deps", "pytest_config", "fixes/ci", "fixes/python"):
        subjects += sorted(path for path in (fixtures / group).iterdir() if path.is_dir())
    jobs: list[Job] = []
    for subject in subjects:
        name = subject.relative_to(ROOT).as_posix()
        for form in FORMATS:
            arguments = ["check", "--output-format", form, "--extend-select", "DET301,DET902", "."]
            jobs.append((f"{name} check {form}", subject, arguments))
        jobs += [
            (f"{name} check diff", subject, ["check", "--diff", "--unsafe-fixes", "."]),
            (f"{name} check statistics", subject, ["check", "--statistics", "."]),
            (f"{name} audit json", subject, ["audit", "-q", "."]),
            (
                f"{name} audit markdown",
                subject,
                ["audit", "-q", "--output-format", "markdown", "."],
            ),
            (f"{name} from the root", ROOT, ["check", "--output-format", "json", name]),
        ]
    return jobs


def command_jobs() -> list[Job]:
    evidence = ["evidence", "examples/evidence/reports", "--repo", "examples/evidence"]
    needle = ROOT / "examples" / "needle"
    commands = [
        ["power", "--trials", "5", "--reruns", "3"],
        [
            "power",
            "--trials",
            "5",
            "--max-runs",
            "3",
            "--min-passes",
            "2",
            "--output-format",
            "json",
        ],
        ["power", "--trials", "5", "--reruns", "3", "--job-retries", "2", "--observed", "0/60"],
        ["power", "--trials", "5", "--retries", "2", "--green-runs", "200"],
        ["rule"],
        *(["rule", path.stem] for path in sorted((ROOT / "rules").glob("DET*.toml"))),
        evidence,
        [*evidence, "--output-format", "json"],
        [*evidence, "--output-format", "markdown"],
        ["check", "--output-format", "json", "--evidence", "examples/evidence/reports", "examples"],
        *([name, "--help"] for name in ("check", "audit", "evidence", "power", "rule")),
        ["check", "--select", "NOPE"],
    ]
    jobs: list[Job] = [(" ".join(command), ROOT, command) for command in commands]
    for flag in ("--show-settings", "--show-files", "-v"):
        jobs.append((f"needle check {flag}", needle, ["check", flag]))
    return jobs


def checkout_jobs(checkouts: Path) -> list[Job]:
    jobs: list[Job] = []
    for checkout in sorted(path for path in checkouts.iterdir() if path.is_dir()):
        name = checkout.name
        jobs += [
            (f"{name} check json", checkout, ["check", "--output-format", "json", "."]),
            (f"{name} check concise", checkout, ["check", "."]),
            (f"{name} check diff", checkout, ["check", "--diff", "--unsafe-fixes", "."]),
            (f"{name} audit json", checkout, ["audit", "-q", "."]),
            (
                f"{name} audit markdown",
                checkout,
                ["audit", "-q", "--output-format", "markdown", "."],
            ),
        ]
    return jobs


def run(source: Path, job: Job) -> str:
    _, cwd, arguments = job
    env = dict(os.environ, PYTHONPATH=str(source), NO_COLOR="1", DETLINT_NO_CACHE="1")
    env.pop("FORCE_COLOR", None)
    done = subprocess.run(
        [sys.executable, "-P", "-c", RUNNER, *arguments],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    text = f"exit {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    return text


STARTUP_CHECKS = (
    ["check", "examples/needle/tests/test_batch_invariance.py"],
    ["check", "README.md"],
)


def startup(base: Path, head: Path, rounds: int) -> None:
    """Median wall time of each one-file check for both revisions, interleaved."""
    import statistics
    import time

    def timed(source: Path, arguments: list[str]) -> float:
        started = time.perf_counter()
        run(source, ("", ROOT, arguments))
        return time.perf_counter() - started

    for arguments in STARTUP_CHECKS:
        for source in (base, head):  # a first run writes the bytecode caches
            timed(source, arguments)
        times: dict[Path, list[float]] = {base: [], head: []}
        for _ in range(rounds):
            for source in (base, head):
                times[source].append(timed(source, arguments))
        medians = [f"{statistics.median(times[s]) * 1000:.1f} ms" for s in (base, head)]
        print(f"{' '.join(arguments)}: base {medians[0]}, head {medians[1]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the revision to compare against")
    parser.add_argument("head", nargs="?", help="the revision to check (default: the work tree)")
    parser.add_argument("--checkouts", type=Path, help="a directory of real repositories")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--startup", type=int, metavar="N", help="time one-file checks instead")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="detlint-revisions-") as scratch:
        base = source_of(args.base, Path(scratch) / "base")
        head = source_of(args.head, Path(scratch) / "head")
        if args.startup:
            startup(base, head, args.startup)
            return 0
        jobs = fixture_jobs() + command_jobs() + example_jobs(Path(scratch))
        if args.checkouts is not None:
            jobs += checkout_jobs(args.checkouts)
        with ThreadPoolExecutor(args.jobs) as pool:
            before = list(pool.map(lambda job: run(base, job), jobs))
            after = list(pool.map(lambda job: run(head, job), jobs))
    differ = [job[0] for job, old, new in zip(jobs, before, after, strict=True) if old != new]
    print(f"{len(jobs) - len(differ)} of {len(jobs)} outputs identical")
    for name in differ[:40]:
        print(f"differs: {name}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
