"""pytest commands with a rerun option in files no pipeline of the repository runs.

A command a pipeline reaches is linked to its tests and judged as that pipeline runs
it (``runs.py``). One written in a script, a Makefile recipe or a Python launcher that
no pipeline of the repository calls is run by hand or by a CI system outside the
repository; which tests it runs, and under which configuration, is not known, but its
rerun option reruns each of them all the same. Such commands are kept here with the
options they pass pytest, read as a command line's are (``run_options.py``).

A file counts as reached when the CI pass read it for a pipeline's command (a script it
called, a Makefile or noxfile whose target it ran) or a pipeline's run is written in it:
any command written there is then the CI rules' business, never reported twice.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.paths import display_path
from detlint.base.source import decode_text, read_bytes
from detlint.base.span import Problem
from detlint.compose.ci.run_options import RunOptions, line_options
from detlint.readers.ci.commands.written_runs import WrittenRun, may_hold_runs, written_runs

if TYPE_CHECKING:
    from detlint.compose.ci.analysis import CiAnalysis
    from detlint.readers.repository import Repository

_MAX_BYTES = 1_000_000  # a larger file is no script anyone writes by hand


@dataclass(frozen=True)
class UnreachedRun:
    """A pytest command no pipeline of the repository runs, with its rerun options."""

    written: WrittenRun
    options: RunOptions


def unreached_runs(
    paths: Sequence[Path],
    repository: Repository,
    ci: CiAnalysis | None,
    selected: frozenset[str] = frozenset({"DET421"}),
) -> tuple[UnreachedRun, ...]:
    """The commands with a rerun option written in the repository's files under
    ``paths`` (the run's, or all of it; vendored trees are left out as everywhere)
    outside every file a pipeline reaches; none unless DET421, the rule that reports
    them, is ``selected``."""
    if "DET421" not in selected:
        return ()
    tops = [os.path.abspath(path) for path in paths] or [os.path.abspath(repository.cwd)]
    root, cwd = repository.root, repository.cwd
    reached = {display_path(root / posixpath.normpath(path), cwd) for path in repository.called}
    if ci is not None:
        reached |= {run.span.path for run in ci.runs}
        reached |= {run.options.span.path for run in ci.runs if run.options.span is not None}
    found: list[UnreachedRun] = []
    for name in repository.script_files():
        if not may_hold_runs(posixpath.basename(name)) or not _under(name, tops):
            continue
        file = Path(name)
        shown = display_path(file, cwd)
        if shown in reached:
            continue
        text = _text(file, shown)
        for written in written_runs(shown, text) if text is not None else ():
            options = line_options(written.run, written.span, ())
            found.append(UnreachedRun(written, options))
    return tuple(found)


def _under(path: str, tops: Sequence[str]) -> bool:
    return any(path == top or path.startswith(top.rstrip("/") + "/") for top in tops)


def _text(file: Path, shown: str) -> str | None:
    if not os.path.isfile(file):
        return None
    data = read_bytes(file, shown, max_bytes=_MAX_BYTES)
    if isinstance(data, Problem) or (b"pytest" not in data and b"py.test" not in data):
        return None  # most files: no pytest command to read
    text = decode_text(data, "")
    return None if isinstance(text, Problem) else text
