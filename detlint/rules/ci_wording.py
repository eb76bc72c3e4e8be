"""How the CI rules word where a knob acts: the test files a run gates, the steps
that share one knob, and what a run reaches when it reaches no test file here.

A knob written once (a tox.ini command, a script, a matrix's line) acts in every
step that runs it: the rules report it once, naming those steps and the test files
of them all (``by_place``, ``steps_phrase``, ``group_reach``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from detlint.base.span import Span
    from detlint.compose.ci.test_run import TestRun
    from detlint.readers.ci.facts import Reading


def reach(paths: Iterable[str]) -> str:
    """e.g. "gates 12 test files under tests/gpu, tests/unit"."""
    files = sorted(set(paths))
    if not files:
        return "runs no test detlint could link"
    directories = sorted({path.rsplit("/", 1)[0] if "/" in path else "." for path in files})
    shown = ", ".join(directories[:3])
    if len(directories) > 3:
        shown += f" and {len(directories) - 3} more"
    noun = "test file" if len(files) == 1 else "test files"
    return f"gates {len(files)} {noun} under {shown}"


def unlinked(run: TestRun) -> str:
    """Which tests the numbers are for when pytest runs but reaches no test file here:
    doctests, another project's suite in the CI image (``/workspace/vllm/tests``), or a
    directory set at run time."""
    if any("$" in target for target in run.run.targets):
        return f"in the tests `{command_text(run)}` runs (its targets are set at run time)"
    directory = run.command.working_dir or run.step.working_dir or ""
    if "$" in directory or "$" in (run.run.cwd or ""):
        return f"in the tests `{command_text(run)}` runs (in a directory set at run time)"
    return f"in the tests `{command_text(run)}` runs, which detlint finds in no test file here"


def with_reach(which: str, run: TestRun) -> str:
    """``which`` and, in brackets, the test files a run gates (or what it runs)."""
    if not run.test_files:
        return unlinked(run)
    if run.benchmarks_only:
        which = "in the benchmarks it runs (`--benchmark-only` skips the other tests)"
    return f"{which} ({reach(run.test_files)})"


def command_text(run: TestRun, width: int = 80) -> str:
    """A run's pytest command as written, cut to ``width`` characters."""
    text = " ".join((run.run.launcher, *run.run.args))
    return text if len(text) <= width else text[: width - 1] + "…"


def test_files(runs: Iterable[TestRun]) -> list[str]:
    return [path for run in runs for path in run.test_files]


def by_place(
    runs: Iterable[TestRun], key: Callable[[TestRun], object | None]
) -> list[list[TestRun]]:
    """Runs grouped by where their knob is written, in order: a tox.ini command or a
    script that several steps (or a matrix's copies) run is one knob, one finding."""
    groups: dict[object, list[TestRun]] = {}
    for run in runs:
        place = key(run)
        if place is not None:
            groups.setdefault(place, []).append(run)
    return list(groups.values())


def steps_phrase(runs: list[TestRun]) -> str:
    """e.g. "step 'unit'", "steps 'py311' and 'py312'", "steps 'a', 'b' and 3 more", with
    where they run it when each does only sometimes (``runs_condition``)."""
    names = list(dict.fromkeys(run.step.name for run in runs))
    if len(names) == 1:
        phrase = f"step {names[0]!r}"
    elif len(names) == 2:
        phrase = f"steps {names[0]!r} and {names[1]!r}"
    else:
        phrase = f"steps {names[0]!r}, {names[1]!r} and {len(names) - 2} more"
    return phrase + runs_condition(runs)


def runs_condition(runs: list[TestRun]) -> str:
    """`` (matrix entries with tox_env=plugins: ...)`` when every one of ``runs`` runs
    only under a condition (``TestRun.condition``); empty when one runs always, or when
    they are one command's runs in every reading of it (``pytest tests/${{ matrix.suite
    }}``: each entry runs other tests, and every entry runs the knob)."""
    conditions = [run.condition for run in runs]
    if not conditions or None in conditions:
        return ""
    readings: dict[Span, set[Reading]] = {}
    for run in runs:
        if run.reading is not None and run.selected is None:
            readings.setdefault(run.command.span, set()).add(run.reading)
            if readings[run.command.span] == set(run.command.readings):
                return ""
    distinct = list(dict.fromkeys(c for c in conditions if c is not None))
    more = f"; or {len(distinct) - 2} more" if len(distinct) > 2 else ""
    return f" ({'; or '.join(distinct[:2])}{more})"


def group_reach(which: str, runs: list[TestRun]) -> str:
    """``with_reach`` for the runs of one knob: the test files of them all."""
    if len(runs) == 1:
        return with_reach(which, runs[0])
    files = test_files(runs)
    if not files:
        return unlinked(runs[0])
    if any(run.benchmarks_only for run in runs):
        which = "in the benchmarks it runs (`--benchmark-only` skips the other tests)"
    return f"{which} ({reach(files)})"
