"""Static reading of the shell text a CI step runs: the public API.

A CI step's ``command``/``run:``/``script:`` is bash text, and what decides what a
test failure does is in it: the pytest invocations (their rerun options), the other
commands that run tests or hand control on (``runners.py``: ``python -m unittest``,
``make test``, a script, a task), and the shell around them (``|| true``, ``| tee``
without pipefail, ``set +e``), which can keep a failure out of the step's exit
status. ``read_command`` reads all of it without running anything into frozen facts
(``CommandFacts``). How it reads, one module each:

* ``lexer.py`` and ``parser.py`` build a syntax tree (``nodes.py``), with command
  substitutions, ``bash -c '...'`` and ``eval`` strings parsed as nested scripts;
  lines of plain words, most CI commands, take a shorter way (``plain.py``).
* ``walk.py`` walks the tree in text order, finding pytest invocations
  (``launchers.py``, ``wrappers.py``), other test commands (``runners.py``) and
  environment assignments, and tracking the working directory.
* ``masking.py`` decides whether the script still ends with status 0 when an
  invocation fails, by a small abstract interpreter (``simulation.py``) under bash's
  errexit and pipefail rules; ``retries.py`` finds the retries written around them.
* ``readers/ci/pytest/arguments.py`` reads the words handed to pytest.

Nothing here raises on odd input: text that cannot be tokenised or parsed is
stepped over, and ``CommandFacts.unparsed`` says so.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from detlint.base.line_index import LineIndex
from detlint.readers.ci.pytest.arguments import Option, read_knobs, scan_pytest_args
from detlint.readers.ci.shell.command_facts import (
    CommandFacts,
    Export,
    Place,
    PytestRun,
    TestCall,
)
from detlint.readers.ci.shell.launchers import has_launcher_hint
from detlint.readers.ci.shell.lexer import Word
from detlint.readers.ci.shell.masking import Masking
from detlint.readers.ci.shell.nodes import Simple
from detlint.readers.ci.shell.parser import parse
from detlint.readers.ci.shell.quiet_knobs import QUIET_HINT, quiet_knobs
from detlint.readers.ci.shell.retries import (
    ShellRetry,
    counted_retry,
    find_retries,
    loop_retry,
    retried,
    runs_again,
    same_commands,
)
from detlint.readers.ci.shell.runners import PROGRAM_NAMES
from detlint.readers.ci.shell.saved_status import saved_in, with_saved
from detlint.readers.ci.shell.state import Reason
from detlint.readers.ci.shell.walk import Found, Walker, WalkState, resolve

__all__ = [
    "CommandFacts",
    "Export",
    "Place",
    "PytestRun",
    "TestCall",
    "read_command",
    "read_script",
]


# A text is read only when it may hold a launcher, a line for $GITHUB_ENV or an
# assignment: a name followed by "=" at the start of a word (so "--flag=value"
# alone does not count).
_ASSIGNMENT_HINT = re.compile(r"(?:^|[\s;&|(){}'\"`])[A-Za-z_][A-Za-z0-9_]*=")
# A text may call a test runner or a delegate (``runners.py``) only when one of these is in
# it: a path or script, a test word, or a program that hands control on.
_CALL_HINT = re.compile(
    r"/|\.(?:sh|py|bash)\b|test|check|MAKE|-m\s|^\s*\.\s|\b(?:"
    + "|".join(sorted(map(re.escape, PROGRAM_NAMES)))
    + r")\b",
    re.M,
)


def _worth_reading(text: str) -> bool:
    """Whether ``text`` may hold a launcher, a call of something that may run tests
    (``runners.py``: a path, a runner, make...), a $GITHUB_ENV line, an assignment or a
    knob of its own (``quiet_knobs.py``)."""
    return (
        has_launcher_hint(text)
        or QUIET_HINT.search(text) is not None
        or "GITHUB_ENV" in text
        or ("=" in text and _ASSIGNMENT_HINT.search(text) is not None)
        or _CALL_HINT.search(text) is not None
    )


class _Lines:
    """Offsets into a command's text as 0-based lines and columns, as places count them."""

    __slots__ = ("_index",)

    def __init__(self, text: str) -> None:
        self._index = LineIndex(text)

    def point(self, offset: int) -> tuple[int, int]:
        if offset <= 0:
            return 0, offset
        line, column = self._index.position(offset)
        return line - 1, column - 1

    def span(self, start: int, end: int) -> tuple[int, int, int, int]:
        return (*self.point(start), *self.point(end))

    def place(self, start: int, end: int) -> Place:
        line, column = self.point(start)
        end_line, end_column = self.point(end)
        return Place(line, column, end_line, end_column)


def read_command(text: str, *, errexit: bool = True, pipefail: bool = False) -> CommandFacts:
    """Read the pytest invocations and exports of one CI command text.

    ``errexit``/``pipefail`` are the options of the shell the CI system runs
    the text in (``CiCommand.errexit``/``pipefail``); ``set`` commands in the
    text change them from there on.
    """
    if not _worth_reading(text):
        return CommandFacts((), (), False)
    try:
        return _read(text, errexit, pipefail)
    except RecursionError:  # pragma: no cover - depth limits keep well below it
        return CommandFacts((), (), True, too_deep=True)


@functools.lru_cache(maxsize=4096)
def read_script(text: str, errexit: bool, pipefail: bool) -> CommandFacts:
    """``read_command``, once per process for each script (a ``ScriptKey``): the pipeline
    reader and the exit-status reading ask for the same scripts, and pipelines repeat
    theirs from step to step."""
    return read_command(text, errexit=errexit, pipefail=pipefail)


def _read(text: str, errexit: bool, pipefail: bool) -> CommandFacts:
    program, unparsed, too_deep = parse(text)
    walker = Walker(text)
    walker.walk(program, WalkState())
    lines = _Lines(text)
    masking = Masking(program, unparsed, errexit, pipefail, same_commands(walker))
    starts = [found.command.start for found in walker.found]
    starts += [call.command.start for call in walker.calls]
    retries: dict[int, ShellRetry] = {}
    tested = len(walker.found) + len(walker.calls)
    looping = any(found.in_loop for found in walker.found) or any(
        call.in_loop for call in walker.calls
    )
    if tested > 1 or looping:
        readers = {id(found.command): _reader(found.variables) for found in walker.found}
        names = {}
        for call in walker.calls:
            readers[id(call.command)] = _reader({})
            names[id(call.command)] = call.callee.name
        retries = find_retries(program, readers, names)
    runs = [_run(found, masking, lines, starts, retries, text) for found in walker.found]
    if len(runs) > 1:
        runs.sort(key=lambda run: (run.line, run.column))
    exports = []
    for found in walker.exports:
        line, column = lines.point(found.offset)
        exports.append(Export(found.name, found.value, line, column, found.via, found.dynamic))
    calls = []
    for call in walker.calls:
        line, column = lines.point(call.command.start)
        end_line, end_column = lines.point(call.command.end)
        reason, caught = masking.verdict(call.command)
        retry = loop_retry(retries.get(id(call.command)), caught)
        if reason is not None and runs_again(reason, starts):
            retry = retry or retried(reason)  # `make test || make test`: a retry, not a mask
            reason = None
        masked = _masked(reason, text, call.command)
        retry = retry if masked is None else None
        attempts, shape = (retry.attempts, retry.shape) if retry is not None else (None, None)
        where = (line, column, end_line, end_column)
        calls.append(
            TestCall(
                *where, call.callee, call.cwd, masked, call.in_loop, attempts, shape, call.function
            )
        )
    testing = frozenset(id(f.command) for f in walker.found) | {id(c.command) for c in walker.calls}
    quiet = quiet_knobs(program, testing, lines.span)
    functions = walker.function_calls() if walker.functions else ()
    return CommandFacts(
        tuple(runs), tuple(exports), unparsed, tuple(calls), quiet, functions, too_deep
    )


def _masked(reason: Reason | None, text: str, command: Simple) -> str | None:
    """How the construct that hides a run's failure reads in a finding, with the
    variable it saves the failure in when the script reads that later."""
    if reason is None:
        return None
    return with_saved(reason.phrase, saved_in(text, reason, command))


def _reader(variables: dict[str, str]) -> Callable[[Word], str]:
    """How a word of a run reads: its literal value, or with the literal values of the
    variables assigned before the run (``$POLICY``)."""

    def read(word: Word) -> str:
        return resolve(word, variables)[0] if word.dynamic else word.value

    return read


def _run(
    found: Found,
    masking: Masking,
    lines: _Lines,
    starts: list[int],
    retries: dict[int, ShellRetry],
    text: str,
) -> PytestRun:
    command, launch = found.command, found.launch
    values, dynamic = _pytest_words(found)
    options, targets = scan_pytest_args(values)
    knobs, reruns_option = read_knobs(options, dynamic)
    reruns_text = reruns_at = None
    if reruns_option is not None:
        reruns_text, reruns_at = _as_written(reruns_option, found, lines)
    rerunning = [o for name in _RERUNNING for o in options if o.name == name]
    if reruns_at is None and rerunning:  # --retries, --force-flaky: where it is written
        reruns_at = _as_written(rerunning[0], found, lines)[1]
    reason, caught = masking.verdict(command)
    retry = loop_retry(retries.get(id(command)), caught)
    if caught is not None and caught.rounds is not None:
        caught = None  # a retry, not a deferred failure
    if reason is not None and runs_again(reason, starts):
        retry, reason = retry or retried(reason), None
    retry = counted_retry(retry, reason, knobs)
    line, column = lines.point(command.start)
    end_line, end_column = lines.point(command.end)
    tox_env = launch.tox_env
    if tox_env is None and "tox" in launch.launcher.split():
        tox_env = dict(found.env).get("TOXENV")
    return PytestRun(
        line=line,
        column=column,
        end_column=end_column,
        launcher=launch.launcher,
        targets=tuple(targets),
        reruns_text=reruns_text,
        env=found.env,
        cwd=found.cwd,
        masked=_masked(reason, text, command),
        tox_env=tox_env,
        end_line=end_line,
        reruns_at=reruns_at,
        masked_at=lines.place(reason.start, reason.end) if reason is not None else None,
        deferred=caught.phrase if caught is not None else None,
        options=tuple(options),
        wrappers=launch.wrappers,
        in_loop=found.in_loop,
        args=tuple(values),
        retry_attempts=retry.attempts if retry is not None else None,
        retry_shape=retry.shape if retry is not None else None,
        function=found.function,
        **knobs,
    )


def _pytest_words(found: Found) -> tuple[list[str], list[bool]]:
    """The words a run hands pytest, and for each whether its value is unknown: an
    expansion takes the literal values assigned before the run (``N=2; ... $N``), and
    an expansion the launcher rewrote (hatch test --retries) stays unknown."""
    words = found.run_words
    values: list[str] = []
    dynamic: list[bool] = []
    for value, index in found.launch.args:
        word = words[index]
        if not word.dynamic:
            unknown = False
        elif value == word.value:
            value, unknown = resolve(word, found.variables)
        else:  # rewritten by the launcher (hatch test --retries)
            unknown = True
        values.append(value)
        dynamic.append(unknown)
    return values, dynamic


# Options that make pytest run a failing test again, for where a finding points.
_RERUNNING = ("--retries", "--force-flaky", "--max-runs")  # the first one present


def _as_written(option: Option, found: Found, lines: _Lines) -> tuple[str, Place]:
    """How ``option`` (of the words handed to pytest) is written in the text, and where:
    a finding about it quotes the command's own words, not the words after expansion."""
    span = range(option.index, option.index + option.width)
    indexes = sorted({found.launch.args[k][1] for k in span})
    written = [found.run_words[k] for k in indexes]
    return " ".join(word.raw for word in written), lines.place(written[0].start, written[-1].end)
