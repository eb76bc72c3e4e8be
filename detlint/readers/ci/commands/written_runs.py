"""pytest commands with a rerun option written in a repository's own files.

The CI pass reads a shell script, a Makefile recipe or a Python script when a pipeline
calls it. A project also keeps commands no pipeline of its own calls: a script run by
hand or by a CI system outside the repository (``build/rocm/run_single_gpu.py``), a
``make test`` target, a nox session. Their rerun options act on every test the command
runs all the same, so those files are read here as the CI pass would read them: a
shell script as a script, each Makefile recipe line as a shell line of its own, and a
Python file's argument lists and command strings (``python_commands.py``).

Reading is cheap first: a file is parsed only when its text holds ``pytest`` and a
rerun option's spelling. Test modules are left to the Python pass (a test module's
own ``pytest.main([... __file__])`` is read there, and a test that runs pytest on
other files runs a session of its own).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from dataclasses import dataclass

from detlint.base.span import Span
from detlint.readers.ci.commands.makefile import read_makefile
from detlint.readers.ci.commands.python_commands import (
    RERUN_FLAG,
    RERUN_HINT,
    python_commands,
)
from detlint.readers.ci.shell.commands import PytestRun, read_command

_SHELL_SUFFIXES = (".sh", ".bash")
_MAKEFILES = frozenset({"makefile", "gnumakefile"})


@dataclass(frozen=True)
class WrittenRun:
    """One pytest command of a repository file: ``run`` read as a command line, ``span``
    where its rerun option is written, ``where`` how the message names its place (``the
    shell script``, ``the `test` recipe of the Makefile``), and ``unread`` the rerun
    option as written when its count is not a literal (``--reruns $N``)."""

    run: PytestRun
    span: Span
    where: str
    unread: str | None = None


def may_hold_runs(name: str) -> bool:
    """Whether a file of this name is read for commands (before its text is read)."""
    lower = name.lower()
    if lower.endswith(".py"):
        stem = lower[:-3]
        return not (stem.startswith("test_") or stem.endswith("_test") or stem == "conftest")
    return lower.endswith(_SHELL_SUFFIXES) or lower in _MAKEFILES or lower.endswith(".mk")


def written_runs(path: str, text: str) -> tuple[WrittenRun, ...]:
    """The pytest commands with a rerun option written in the file ``path`` (as shown)."""
    if ("pytest" not in text and "py.test" not in text) or RERUN_HINT.search(text) is None:
        return ()
    name = posixpath.basename(path).lower()
    if name.endswith(".py"):
        return tuple(_python_runs(path, text, name))
    if name.endswith(_SHELL_SUFFIXES):
        return tuple(_shell_runs(path, text, 0, "the shell script"))
    return tuple(_make_runs(path, text))


def _counted(run: PytestRun) -> bool:
    """Whether the run has a rerun option, literal or not."""
    return any(RERUN_FLAG.match(word) for word in run.args)


def _unread(run: PytestRun) -> str | None:
    return run.reruns_text if run.reruns_dynamic and run.reruns is None else None


def _shell_runs(path: str, text: str, offset: int, where: str) -> Iterator[WrittenRun]:
    """The runs of a shell text whose first line is line ``offset + 1`` of the file."""
    for run in read_command(text, errexit=False).runs:
        if not _counted(run):
            continue
        at = run.reruns_at
        if at is not None:
            span = Span(
                path,
                at.line + offset + 1,
                at.column + 1,
                at.end_line + offset + 1,
                at.end_column + 1,
            )
        else:
            line = run.line + offset + 1
            span = Span(path, line, run.column + 1, line, run.end_column + 1)
        yield WrittenRun(run, span, where, _unread(run))


def _make_runs(path: str, text: str) -> Iterator[WrittenRun]:
    """Each recipe line of each target, read as the shell make hands it to."""
    makefile = read_makefile(text)
    done: set[tuple[int, int]] = set()
    for target in makefile.rules:
        for recipe in makefile.recipe([target]):
            if (recipe.line, recipe.column) in done:
                continue
            done.add((recipe.line, recipe.column))
            where = f"the `{recipe.target}` recipe of the Makefile"
            for found in _shell_runs(path, recipe.text, recipe.line - 1, where):
                # Expanded text has columns of its own: the recipe line is the place.
                span = Span(path, recipe.line, recipe.column, recipe.end_line, recipe.end_column)
                yield WrittenRun(found.run, span, where, found.unread)


def _python_runs(path: str, text: str, name: str) -> Iterator[WrittenRun]:
    where = "the noxfile" if name == "noxfile.py" else "the Python script"
    for command in python_commands(text):
        for run in read_command(command.text, errexit=False).runs:
            if _counted(run):
                span = Span(path, command.line, command.column, command.line, command.end_column)
                unread = command.unread or _unread(run)
                yield WrittenRun(run, span, where, unread)
