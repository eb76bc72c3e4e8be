"""Timing the commands: what runs, under which RSS probe, and the ratios judged.

The command list for a tree, the probe that reads one command's peak RSS, one
warm-up run and ``--repeat`` interleaved rounds, and the ratios of medians with
their targets. ``run.py``'s docstring explains the method.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tree_facts import TreeFacts


@dataclass(frozen=True)
class Command:
    key: str
    label: str
    argv: tuple[str, ...]
    ok: frozenset[int] = frozenset({0})
    # Run from an empty temporary directory instead of the tree's root: ``python -c``
    # puts its working directory first on sys.path, and a corpus may hold click or libcst.
    neutral_cwd: bool = False


@dataclass(frozen=True)
class Skipped:
    key: str
    label: str
    reason: str


@dataclass
class Measurement:
    key: str
    label: str
    argv: list[str]
    seconds: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    exit_codes: list[int] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def peak_mb(self) -> float:
        return max(self.rss_mb)


class CommandFailed(Exception):
    pass


# The fallback RSS probe when GNU time is missing: fork, exec the command, write the
# child's ru_maxrss to a file. -I -S keep the probe small, since the RSS the forked
# child holds before exec counts towards its peak.
_PROBE = r"""import os, sys
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    except OSError as error:
        os.write(2, f"bench probe: cannot run {sys.argv[2]}: {error}\n".encode())
    os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


@dataclass(frozen=True)
class Runner:
    """Runs one command under a small RSS probe and reads back its peak RSS.

    The probe matters: Linux counts the pages a child holds just before exec towards
    its ``ru_maxrss``, so a command spawned directly from this (large) script would
    inherit this script's RSS as a floor. ``/usr/bin/time`` (GNU) holds about 2 MB;
    the Python probe about 8 MB.
    """

    method: str
    probe: tuple[str, ...]
    rss_file: Path
    unit_bytes: int  # bytes per unit of the number the probe writes
    env: dict[str, str]

    @classmethod
    def create(cls, scratch: Path, inherit_env: bool) -> Runner:
        env = dict(os.environ)
        if not inherit_env:
            # Warm bytecode caches, as an installed package has them, in a private place:
            # PYTHONDONTWRITEBYTECODE would make every run recompile editable installs.
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
        # Both linters keep their caches in the scratch directory, never in the tree
        # or the user's cache: a row without --no-cache is warm after the warm-up run.
        env["DETLINT_CACHE_DIR"] = str(scratch / "detlint-cache")
        env["RUFF_CACHE_DIR"] = str(scratch / "ruff-cache")
        env.pop("DETLINT_NO_CACHE", None)
        rss_file = scratch / "maxrss"
        gnu_time = ("/usr/bin/time", "-f", "%M", "-o", str(rss_file))
        if Path(gnu_time[0]).is_file():
            result = subprocess.run([*gnu_time, "true"], capture_output=True, check=False, env=env)
            if result.returncode == 0 and rss_file.read_text().strip().isdigit():
                return cls("GNU time %M", gnu_time, rss_file, 1024, env)
        probe = (sys.executable, "-I", "-S", "-c", _PROBE, str(rss_file))
        unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, else KB
        return cls("python wait4 probe", probe, rss_file, unit, env)

    def run(
        self, command: Command, cwd: Path, stdout: Path | None = None
    ) -> tuple[float, float, int]:
        """Wall seconds, peak RSS (MB) and exit status of one run of ``command``."""
        self.rss_file.unlink(missing_ok=True)
        with (
            tempfile.TemporaryFile() as err,
            open(stdout if stdout is not None else os.devnull, "wb") as out,
        ):
            start = time.perf_counter()
            result = subprocess.run(
                [*self.probe, *command.argv],
                cwd=cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                check=False,
            )
            elapsed = time.perf_counter() - start
            code = result.returncode
            if code not in command.ok:
                err.seek(0)
                message = err.read().decode(errors="replace")[-4000:]
                raise CommandFailed(
                    f"{command.label}: exit status {code} (expected {sorted(command.ok)})\n"
                    f"  command: {' '.join(command.argv)}\n  stderr:\n{message}"
                )
        # GNU time writes "Command exited with non-zero status 1" before the number.
        lines = self.rss_file.read_text().split()
        if not lines or not lines[-1].isdigit():
            raise CommandFailed(f"{command.label}: the RSS probe wrote no number: {lines!r}")
        return elapsed, int(lines[-1]) * self.unit_bytes / 2**20, code


def _tool(name: str) -> str:
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"bench: {name} not found beside {sys.executable} or on PATH")
    return found


# Over 60 lines: a declarative table of the measured commands, read top to bottom.
def commands(facts: TreeFacts) -> tuple[list[Command], list[Skipped]]:
    """The commands to measure, and the one-file rows the tree has no file for."""
    root = facts.root
    python, detlint, ruff = sys.executable, _tool("detlint"), _tool("ruff")
    lint = frozenset({0, 1})  # linters exit 1 when they have findings
    todo = [
        Command("python", "python -c pass", (python, "-c", "pass"), neutral_cwd=True),
        Command(
            "click", 'python -c "import click"', (python, "-c", "import click"), neutral_cwd=True
        ),
        Command(
            "libcst", 'python -c "import libcst"', (python, "-c", "import libcst"), neutral_cwd=True
        ),
        Command(
            "grep",
            "grep -rlE 'flaky|xfail|skip'",
            # .git is left out: it holds compressed copies no linter reads.
            ("grep", "-rlE", "--exclude-dir=.git", "flaky|xfail|skip", root),
            lint,  # grep exits 1 when nothing matches
        ),
        Command(
            "ruff",
            "ruff check --select PT --no-cache",
            (ruff, "check", "--select", "PT", "--no-cache", root),
            lint,
        ),
        Command("audit", "detlint audit --no-cache", (detlint, "audit", "--no-cache", root), lint),
        Command("check", "detlint check --no-cache", (detlint, "check", "--no-cache", root), lint),
    ]
    if facts.pipeline_targets:
        # Repeat runs: both tools keep their caches in the scratch directory (the
        # warm-up run fills them), so these rows time a run over an unchanged tree.
        todo += [
            Command(
                "ruff_warm",
                "ruff check --select PT <warm cache>",
                (ruff, "check", "--select", "PT", root),
                lint,
            ),
            Command("audit_warm", "detlint audit <warm cache>", (detlint, "audit", root), lint),
        ]
    skipped: list[Skipped] = []
    one_file = (
        (
            "one_plain",
            "detlint check <1 file, no candidates>",
            facts.file_no_candidates,
            "no test_*.py file without prefilter words in the tree",
        ),
        (
            "one_marker",
            f"detlint check <1 file, {facts.marker if facts.file_with_marker else 'a'} marker>",
            facts.file_with_marker,
            "no test_*.py file with mark.xfail or mark.flaky in the tree",
        ),
    )
    for key, label, path, missing in one_file:
        if path is None:
            skipped.append(Skipped(key, label, missing))
        else:
            todo.append(Command(key, label, (detlint, "check", os.path.join(root, path)), lint))
    if facts.pipeline_targets and facts.file_with_marker:
        # The marker check reads the pipelines that can retry its test; a pre-commit
        # hook's repeat runs find them in the cache, its first run does not.
        label = f"detlint check <1 file, {facts.marker} marker> --no-cache"
        argv = (detlint, "check", "--no-cache", os.path.join(root, facts.file_with_marker))
        todo.append(Command("one_marker_cold", label, argv, lint))
    if facts.pipeline_targets:
        label = f"detlint check --no-cache <{facts.pipeline_target_files} pipeline files>"
        targets = tuple(os.path.join(root, name) for name in facts.pipeline_targets)
        todo.append(Command("pipelines", label, (detlint, "check", "--no-cache", *targets), lint))
    else:
        why = "a --corpus copy holds *.py files only" if facts.corpus else "--pipelines 0"
        skipped.append(
            Skipped("pipelines", "detlint check <pipeline files>", f"no pipelines ({why})")
        )
    return todo, skipped


def check_reference_imports(runner: Runner, cwd: Path, tree: Path) -> None:
    """Make sure the reference commands import the installed click and libcst, not a copy."""
    code = "import click, libcst; print(click.__file__); print(libcst.__file__)"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=runner.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise CommandFailed(f"python -c {code!r}: exit status {result.returncode}\n{result.stderr}")
    for location in result.stdout.split():
        if Path(location).resolve().is_relative_to(tree.resolve()):
            raise CommandFailed(f"the reference imports load {location}, inside the tree")


@dataclass(frozen=True)
class Ratio:
    label: str
    numerator: str
    denominator: str
    limit: float | None  # None: informational
    strict: bool  # True: value < limit; False: value <= limit

    def judge(self, value: float) -> str:
        if self.limit is None:
            return "info"
        ok = value < self.limit if self.strict else value <= self.limit
        return "PASS" if ok else "FAIL"

    @property
    def target(self) -> str:
        if self.limit is None:
            return "-"
        return f"{'<' if self.strict else '<='} {self.limit:g}"


RATIOS = (
    Ratio("detlint audit / ruff check --select PT", "audit", "ruff", 1.0, strict=True),
    Ratio("detlint audit / grep", "audit", "grep", None, strict=True),
    Ratio(
        'one-file check (no candidates) / python -c "import click"',
        "one_plain",
        "click",
        1.5,
        strict=False,
    ),
    Ratio(
        'one-file check (marker) / python -c "import libcst"',
        "one_marker",
        "libcst",
        1.5,
        strict=False,
    ),
    # The YAML pass's share of a whole-repository audit: "pipelines must not dominate".
    Ratio("pipelines check / detlint audit", "pipelines", "audit", None, strict=True),
    Ratio("audit, warm caches: detlint / ruff", "audit_warm", "ruff_warm", None, strict=True),
    Ratio("detlint audit: warm cache / --no-cache", "audit_warm", "audit", None, strict=True),
)


def _audit_summary(path: Path) -> dict[str, int]:
    """What the warm-up audit found: a sanity check that detlint did the work."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    knob_files = {knob["path"] for knob in document.get("knobs", []) if "path" in knob}
    summary = {
        "audit_knobs": len(document.get("knobs", [])),
        "audit_knob_files": len(knob_files),
        "audit_tests": len(document.get("tests", [])),
        "audit_findings": len(document.get("findings", [])),
    }
    ci = document.get("ci")
    if isinstance(ci, dict):  # detlint with a CI pass
        ci_knob_files = {knob["path"] for knob in ci.get("knobs", []) if "path" in knob}
        summary |= {
            "audit_pipelines": len(ci.get("pipelines", [])),
            "audit_ci_knobs": len(ci.get("knobs", [])),
            "audit_ci_knob_files": len(ci_knob_files),
            "audit_ci_runs": len(ci.get("runs", [])),
        }
    return summary


def measure(
    facts: TreeFacts,
    todo: list[Command],
    repeat: int,
    runner: Runner,
    scratch: Path,
    log: Callable[[str], None],
) -> tuple[list[Measurement], dict[str, int]]:
    tree = Path(facts.root)
    neutral = scratch / "neutral-cwd"  # empty: nothing in it can shadow an installed package
    neutral.mkdir()
    check_reference_imports(runner, neutral, tree)

    def cwd(command: Command) -> Path:
        return neutral if command.neutral_cwd else tree

    results = {c.key: Measurement(c.key, c.label, list(c.argv)) for c in todo}
    audit_out = scratch / "audit.json"
    for command in todo:
        out = audit_out if command.key == "audit" else None
        elapsed, _, _ = runner.run(command, cwd(command), out)
        log(f"warm-up  {command.label:<40} {elapsed:7.3f} s")
    summary = _audit_summary(audit_out)
    for round_number in range(1, repeat + 1):
        for command in todo:
            elapsed, rss, code = runner.run(command, cwd(command))
            result = results[command.key]
            result.seconds.append(elapsed)
            result.rss_mb.append(rss)
            result.exit_codes.append(code)
        log(f"round {round_number}/{repeat} done")
    return list(results.values()), summary
