"""Where one ``detlint audit`` spends its wall time, phase by phase, in this process.

``bench/run.py`` times whole commands against grep and ruff; this script
splits one audit of a tree into the phases of ``detlint.engine.analyse`` and
the rendering, so that a number quoted for a phase can be measured again::

    .venv/bin/python bench/phases.py /tmp/detlint-bench-ci

Each phase is the wall time of the named function (forked workers included),
the median of ``--repeat`` runs after one warm-up. Phases nest where the
functions do (the trial-loop re-reads of linking are in both "linking" and
"Python files"), so they do not sum to the total. The last line is the CI
pass's share of the total (reading pipelines, linking). ``--warm`` reads the
pipelines through detlint's cache, filled by the warm-up run, as a repeat run
does. Standard library only.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PHASES = (  # (module, function or Class.method, label); one label may sum several
    ("detlint.engine", "discover", "listing the paths"),
    ("detlint.readers.ci.pipelines", "read_pipelines", "pipelines: YAML and shell"),
    ("detlint.engine", "scan_files", "Python files"),
    # With pipelines, workers sift the Python files while the pipelines are read (that
    # time is in the pipelines' phase) and then scan what they kept: the wait is here.
    ("detlint.base.parallel", "Staged.results", "Python files"),
    ("detlint.compose.ci.analysis", "link_ci", "linking CI runs to tests"),
    ("detlint.engine", "judge", "rules"),
)


CI_PHASES = ("pipelines: YAML and shell", "linking CI runs to tests")


def _timed(totals: dict[str, float], label: str, function: Callable[..., Any]) -> Any:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            totals[label] = totals.get(label, 0.0) + time.perf_counter() - start

    return wrapper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--warm",
        action="store_true",
        help="read pipelines through a cache (in a temporary directory) that the warm-up fills",
    )
    arguments = parser.parse_args()

    import importlib
    import tempfile

    from detlint.base.facts_cache import FactsCache
    from detlint.engine import analyse
    from detlint.readers.project.settings import Settings
    from detlint.report.audit.inventory import render_audit_json
    from detlint.rules.catalogue import select_codes

    totals: dict[str, float] = {}
    for module_name, name, label in PHASES:
        owner: Any = importlib.import_module(module_name)
        if "." in name:
            class_name, name = name.split(".")
            owner = getattr(owner, class_name)
        setattr(owner, name, _timed(totals, label, getattr(owner, name)))
    os.chdir(arguments.tree)
    scratch = tempfile.TemporaryDirectory(prefix="detlint-phases-")
    cache = FactsCache(Path(scratch.name), "pipelines") if arguments.warm else None
    runs: list[dict[str, float]] = []
    for _ in range(arguments.repeat + 1):
        totals.clear()
        start = time.perf_counter()
        analysis = analyse([], Path.cwd(), Settings(), select_codes(None, ()), cache=cache)
        analysed = time.perf_counter()
        render_audit_json(analysis, 0.1, 0.95)
        done = time.perf_counter()
        runs.append({**totals, "inventory JSON": done - analysed, "total": done - start})
    measured = runs[1:]
    for label in [*dict.fromkeys(label for _, _, label in PHASES), "inventory JSON", "total"]:
        values = [run.get(label, 0.0) for run in measured]
        print(f"{label:32} {statistics.median(values):7.3f} s")
    # "Pipelines must not dominate an audit": the CI pass's own phases against the whole.
    share = statistics.median(
        (run.get(CI_PHASES[0], 0.0) + run.get(CI_PHASES[1], 0.0)) / run["total"] for run in measured
    )
    print(f"{'CI pass (YAML, shell, linking)':32} {share:7.0%} of the total")


if __name__ == "__main__":
    main()
