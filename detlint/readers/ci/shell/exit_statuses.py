"""The exit status a step ends with when its tests fail.

Whether a soft fail or a retry that names exit statuses (Buildkite's ``soft_fail:
[{exit_status: 2}]`` or ``retry.automatic`` rules, GitLab's ``allow_failure:
{exit_codes: ...}`` and ``retry: {exit_codes: ...}``) acts on a test failure depends
on the status the CI system sees, and that is not always pytest's 1: GNU make turns
any failing recipe into 2 (``make test``), ``ctest`` fails with 8, ``cargo test``
with 101. The status of the test command the step's script runs passes through
``timeout``, ``xvfb-run``, containers and scripts unchanged unless they set one.

This reads a step's commands (``shell/commands.py``) and names the status of its
test commands: the first launcher the script hands its tests to decides, a pytest
run (1) before a make goal (2) before another runner (its own). A script the step
runs (``.buildkite/run_tests.sh``, which runs ``make test``) is read in turn, a few
levels deep, when the pipeline reader says where the repository's files are
(``reading_scripts``): its status is the step's.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import posixpath
from collections.abc import Callable, Iterator, Sequence

from detlint.readers.ci.facts import PYTEST_FAILED, CiCommand
from detlint.readers.ci.shell.commands import read_script
from detlint.readers.ci.shell.runners import MAKE_FAILED
from detlint.readers.ci.shell.wrappers import XARGS_FAILED, through_xargs

ScriptText = Callable[[str], str | None]  # a repository path -> the file's text, or None
_SCRIPTS: contextvars.ContextVar[ScriptText | None] = contextvars.ContextVar(
    "detlint_status_scripts", default=None
)
_MAX_DEPTH = 4  # scripts that call scripts


@contextlib.contextmanager
def reading_scripts(script_text: ScriptText) -> Iterator[None]:
    """Within this block, ``failure_status`` reads the scripts a step runs through
    ``script_text``."""
    token = _SCRIPTS.set(script_text)
    try:
        yield
    finally:
        _SCRIPTS.reset(token)


def failure_status(
    texts: Sequence[str],
    errexit: bool = True,
    pipefail: bool = False,
    script_text: ScriptText | None = None,
) -> int:
    """The exit status a script of ``texts`` (one shell) ends with when its tests
    fail: 1 for pytest run directly (or for nothing detlint recognises), 2 when the
    tests run under make, a runner's own status otherwise; a script it runs is read
    through ``script_text`` when given, and its status taken."""
    found = _status("\n".join(texts), errexit, pipefail, script_text, 0)
    return PYTEST_FAILED if found is None else found


def _status(
    text: str, errexit: bool, pipefail: bool, script_text: ScriptText | None, depth: int
) -> int | None:
    """``failure_status`` of one script, or None when it runs nothing detlint knows."""
    facts = read_script(text, errexit, pipefail)
    if facts.runs:
        return XARGS_FAILED if through_xargs(facts.runs[0].wrappers) else PYTEST_FAILED
    statuses: list[int] = []
    for call in facts.calls:
        callee = call.callee
        if callee.status is not None:
            statuses.append(callee.status)
        elif callee.kind == "script" and script_text is not None and depth < _MAX_DEPTH:
            called = script_text(posixpath.normpath(posixpath.join(call.cwd or "", callee.path)))
            status = (
                None if called is None else _status(called, True, False, script_text, depth + 1)
            )
            if status is not None:
                statuses.append(status)
    if MAKE_FAILED in statuses:
        return MAKE_FAILED
    return statuses[0] if statuses else None


def status_of(commands: Sequence[CiCommand], pipefail: bool = False) -> Callable[[], int]:
    """``failure_status`` of a step's commands, worked out once, when a knob that names
    exit statuses first asks (most steps have none, and their text is not read here).
    The scripts it runs are read with the reader ``reading_scripts`` set at this call."""
    script_text = _SCRIPTS.get()

    @functools.cache
    def status() -> int:
        texts = [command.text for command in commands]
        return failure_status(texts, pipefail=pipefail, script_text=script_text)

    return status
