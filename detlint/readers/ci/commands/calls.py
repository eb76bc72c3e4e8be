"""Following the calls of a CI command down to the tests they run.

A step's command hands control on (``make test``, ``./ci/test.sh``, a recipe line
that calls a script that runs ``python -m unittest``), and the tests it runs are
wherever the chain ends. ``follow_calls`` walks that chain for the calls the shell
reader found (``TestCall``, ``shell/runners.py``), through repository scripts and
make recipes, to the pytest runs at its ends (located in the file that writes them,
for the linking to resolve to tests) and the other ends: a test runner detlint does
not link test by test (``python -m unittest``, ``ctest``), or a call it cannot see
into (a script that is not in the repository, a task, an image's own command) that
is named like a test runner. Every end keeps the calls that led to it, for a message
to show (``make test`` → ``ci/test.sh`` → ``python -m unittest``).

A call whose failure the caller hides (``make test || true``) hides what it runs:
the runs found under it carry the caller's reason. Depth and cycles are bounded:
a chain stops after ``_MAX_DEPTH`` files, and a file is followed once per chain.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from detlint.base.paths import join
from detlint.base.span import Span
from detlint.readers.ci.commands.call_ends import CallEnd, CallReach
from detlint.readers.ci.commands.follow import RUN_TIME, Followed, Follower, make_call
from detlint.readers.ci.commands.makefile import MAKEFILE_NAMES
from detlint.readers.ci.commands.python_ends import TEST_MODULE, python_end, test_script_end
from detlint.readers.ci.shell.commands import CommandFacts, TestCall
from detlint.readers.ci.shell.quiet_knobs import QuietKnob
from detlint.readers.ci.shell.runner_reruns import bazelrc_reruns, command_reruns
from detlint.readers.ci.shell.runners import TEST_WORD, Callee

_MAX_DEPTH = 4
# make's goals also say "check" for their tests (GNU's name for the test goal).
_MAKE_TEST_GOAL = re.compile(r"(?:^|[-_./:])(?:unit|py)?(?:tests?|check)(?:$|[-_./:\d])", re.I)
# A Python script is named like a runner as a whole (test.py, run_tests.py, runtests.py,
# run-tests-gpu.py); merge_recommended_tests.py or test_selector.py are tools about tests.
# A test module in a test directory (tests/test_cli.py) runs its tests as a script.
_PYTHON_RUNNER = re.compile(r"^(?:tests?|(?:run|smoke)[-_]?tests?(?:[-_.]\w+)*)\.py$")
_TEST_DIRECTORIES = frozenset({"test", "tests", "testing"})
_FOLLOWED_KINDS = frozenset({"script", "make", "task", "nox"})


def _run_by_python(callee: Callee) -> bool:
    """A script handed to Python (``python scripts/ci/run-tests``), whatever its suffix."""
    return callee.name.startswith(("python", "pypy"))


def _shell_script(path: str) -> bool:
    """A path read as a shell script: ``.sh``/``.bash``, or a name without a suffix
    (``./ci/test``, ``scripts/run-tests``)."""
    return path.endswith((".sh", ".bash")) or "." not in path.rpartition("/")[2]


def suggests_tests(callee: Callee) -> bool:
    """Whether a call detlint cannot see into is named like a test runner: a script,
    make goal, task, nox session or image with ``test`` (or ``tests``...) as a word of
    its name. A word ``test`` elsewhere (a label, a results directory) says nothing."""
    kind = callee.kind
    if kind in ("runner", "command"):  # a command only when named like one
        return True
    if kind == "make":
        return any(_MAKE_TEST_GOAL.search(word) for word in callee.name.split()[1:])
    if kind == "nox":  # bare nox runs the default sessions
        sessions = _session_names(callee.words)
        return not sessions or any(TEST_WORD.search(name) for name in sessions)
    if kind == "script":
        directory, _, name = callee.path.rpartition("/")
        if name.endswith(".py"):
            if _PYTHON_RUNNER.match(name) is not None:
                return True
            in_tests = not _TEST_DIRECTORIES.isdisjoint(directory.split("/"))
            return in_tests and TEST_MODULE.match(name) is not None
        # A shell script by its own name (run-amd-test.sh) or its own directory's
        # (standalone_tests/check.sh); tests/e2e/benchmarking/mlperf.sh is a benchmark
        # kept in a test tree.
        parent = directory.rpartition("/")[2]
        return any(TEST_WORD.search(part) is not None for part in (name, parent))
    if kind in ("task", "container", "tox"):
        return any(TEST_WORD.search(word) for word in callee.name.split()[1:])
    return False


def _session_names(words: Sequence[str]) -> list[str]:
    names: list[str] = []
    for index, word in enumerate(words):
        if word in ("-s", "--session", "--sessions", "-e") and index + 1 < len(words):
            names.append(words[index + 1])
        elif word.startswith(("--session=", "--sessions=")):
            names.append(word.partition("=")[2])
    return names


def follow_calls(
    follower: Follower, calls: Sequence[TestCall], working: str, via: tuple[str, ...] = ()
) -> CallReach:
    """The runs and ends the ``calls`` of one command reach, from ``working``."""
    runs: list[Followed] = []
    ends: list[CallEnd] = []
    quiet: dict[Span, QuietKnob] = {}
    for call in calls:
        _follow(follower, call, working, via, None, frozenset(), runs, ends, quiet)
    return CallReach(tuple(runs), tuple(ends), tuple(quiet.items()))


def _follow(
    follower: Follower,
    call: TestCall,
    working: str,
    via: tuple[str, ...],
    span: Span | None,
    seen: frozenset[str],
    runs: list[Followed],
    ends: list[CallEnd],
    quiet: dict[Span, QuietKnob],
) -> None:
    callee = call.callee
    chain = (*via, callee.name)
    directory = (
        join(working, call.cwd) if call.cwd and not call.cwd.startswith(("~", "$")) else working
    )
    if callee.kind == "runner":
        reruns, written = _runner_retry(follower, callee, directory, span)
        ends.append(CallEnd(call, chain, span, True, call.masked, reruns, written))
        return
    if callee.kind == "script" and (callee.path.endswith(".py") or _run_by_python(callee)):
        end = python_end(follower, call, chain, span, directory) or test_script_end(
            follower, call, chain, span, directory
        )
        if end is not None:
            ends.append(end)
            return
    if callee.kind in _FOLLOWED_KINDS and len(chain) <= _MAX_DEPTH:
        found = _inner(follower, call, directory, seen)
        if found is not None:
            before = (len(runs), len(ends))
            key, facts_by_place, base = found
            for facts, place, start, condition in facts_by_place:
                facts = dispatched(facts, callee)
                for knob in facts.quiet:
                    where = (knob.line, knob.column, knob.end_line, knob.end_column)
                    quiet.setdefault(located(place, *where), knob)
                for run in facts.runs:
                    at = located(place, run.line, run.column, run.end_line, run.end_column)
                    masked = call.masked or run.masked
                    if masked != run.masked:
                        run = dataclasses.replace(run, masked=masked, masked_at=None)
                    runs.append(Followed(run, at, start, condition=condition))
                for inner in facts.calls:
                    if call.masked and inner.masked is None:
                        inner = dataclasses.replace(inner, masked=call.masked)
                    at = located(place, inner.line, inner.column, inner.end_line, inner.end_column)
                    inner_working = start or base
                    _follow(
                        follower, inner, inner_working, chain, at, seen | {key}, runs, ends, quiet
                    )
            if (len(runs), len(ends)) != before or not suggests_tests(callee):
                return
            # Named like a test runner, and nothing in it detlint can read runs tests: it
            # may run them through what it is handed ("$@", a template) or an image.
    if suggests_tests(callee):
        ends.append(CallEnd(call, chain, span, False, call.masked))


# Where a followed text starts (file, 0-based line and column) and, for a task's
# command, how wide it is written there: its {args} filled in make the text longer.
_Place = tuple[str, int, int] | tuple[str, int, int, int]


# What one followed call holds: (its facts, the file and line its text starts at, the
# directory its commands start in, where it runs when the call may not select it), per
# shell it runs (a script: one; make: one per line).
_Line = tuple[CommandFacts, _Place, str | None, str | None]
_Inner = tuple[str, list[_Line], str]


def _runner_retry(
    follower: Follower, callee: Callee, directory: str, span: Span | None
) -> tuple[tuple[int, Span | None] | None, str]:
    """A test runner's own reruns (``runner_reruns.py``): on its command line, or for
    Bazel in the ``.bazelrc`` of its workspace through the configs it selects."""
    found = command_reruns(callee.name, callee.words)
    if found is not None:
        return (found[0], span), found[1]
    if callee.name.split()[0] in ("bazel", "bazelisk"):
        path = follower.find(directory, "", (".bazelrc",))
        text = follower.text(path) if path is not None else None
        read = bazelrc_reruns(callee.words, text) if text is not None else None
        if path is not None and read is not None:
            attempts, written, line = read
            return (attempts, Span(follower.display(path), line, 1, line, 1)), written
    return None, ""


def dispatched(facts: CommandFacts, callee: Callee) -> CommandFacts:
    """What a script runs when called with the name of one of its functions first
    (``ci.sh build``, ``. ./ci.sh init``): the script's top level, which dispatches on
    it, and that function with the functions it calls, not every function it defines."""
    if callee.kind != "script" or not callee.words or not facts.functions:
        return facts
    calls = dict(facts.functions)
    named = callee.words[0]
    if named not in calls:
        return facts
    reached = {named, *calls.get("", ())}
    pending = list(reached)
    while pending:
        for inner in calls.get(pending.pop(), ()):
            if inner not in reached:
                reached.add(inner)
                pending.append(inner)
    kept = {None, *reached}
    return dataclasses.replace(
        facts,
        runs=tuple(run for run in facts.runs if run.function in kept),
        calls=tuple(call for call in facts.calls if call.function in kept),
    )


def _inner(
    follower: Follower, call: TestCall, directory: str, seen: frozenset[str]
) -> _Inner | None:
    callee = call.callee
    if callee.kind in ("task", "nox"):
        return _tasks(follower, callee, directory, seen)
    if callee.kind == "script":
        path = callee.path
        if not _shell_script(path) or _run_by_python(callee):
            return None  # a Python script, or another program: not read as a shell script
        located = follower.located(path, directory)
        if not located or located in seen:
            return None
        facts = follower.script(located)
        if facts is None:
            return None
        return located, [(facts, (follower.display(located), 0, 0), None, None)], directory
    try:
        words = list(callee.words)
        made = make_call(words, directory)
    except ValueError:
        return None
    if made is None:
        return None
    make_dir, file, goals, overrides, ignore = made
    names = (file,) if file else MAKEFILE_NAMES
    found = follower.find(make_dir, make_dir, names)
    makefile = follower.makefile(found) if found is not None else None
    if found is None or makefile is None:
        return None
    path = found
    key = f"{path}:{' '.join(goals)}"
    if key in seen:
        return None
    shown = follower.display(path)
    lines: list[_Line] = []
    for line in makefile.recipe(goals, overrides):
        facts = follower.line(line.text)
        if line.ignore_status or ignore:
            reason = "`-` before the recipe line" if line.ignore_status else "`make -i`"
            facts = dataclasses.replace(
                facts,
                runs=tuple(
                    dataclasses.replace(r, masked=r.masked or reason, masked_at=None)
                    for r in facts.runs
                ),
                calls=tuple(dataclasses.replace(c, masked=c.masked or reason) for c in facts.calls),
            )
        lines.append((facts, (shown, line.line - 1, line.column - 1), make_dir, None))
    return key, lines, make_dir


def _tasks(
    follower: Follower, callee: Callee, directory: str, seen: frozenset[str]
) -> _Inner | None:
    """The commands of a project's task (``hatch run test``) or nox sessions, each read
    as a shell of its own, located where the task writes it. A session named at run time
    (``nox -s "$SESSION"``) may be any the noxfile defines: each is read, saying so."""
    from detlint.readers.ci.commands.tasks import nox_sessions, task_commands  # parses TOML...

    calls: list[tuple[str, tuple[str, ...], str | None]]
    if callee.kind == "nox":
        sessions = _session_names(callee.words)
        known = [session for session in sessions if not RUN_TIME.search(session)]
        calls = [("nox", (session,), None) for session in known]
        if len(known) < len(sessions):
            calls += [
                ("nox", (name,), f"in nox session `{name}`, if the step selects it")
                for name in nox_sessions(directory, "", follower.text)
                if name not in known
            ]
    else:
        calls = [(callee.runner, callee.words, None)]
    key = f"{callee.kind}:{callee.name}"
    if not calls or key in seen:
        return None
    lines: list[_Line] = []
    for runner, words, condition in calls:
        commands = task_commands(runner, words, directory, "", follower.text)
        if commands is None:
            return None
        for command in commands:
            shown = follower.display(command.path)
            place: _Place = (shown, max(command.line - 1, 0), command.column)
            if command.width is not None:
                place = (*place, command.width)
            lines.append((follower.line(command.text), place, None, condition))
    return key, lines, directory


def located(place: _Place, line: int, column: int, end_line: int, end_column: int) -> Span:
    """A span in a followed file: ``place`` is the file and the 0-based line and column
    its text starts at; the rest are 0-based within that text."""
    path, first_line, first_column = place[:3]
    start_column = column + (first_column if line == 0 else 0)
    end = end_column + (first_column if end_line == 0 else 0)
    if len(place) > 3 and end_line == 0:  # no further than the text as written
        end = min(end, first_column + place[3])
    return Span(path, first_line + line + 1, start_column + 1, first_line + end_line + 1, end + 1)


__all__ = ["follow_calls", "located", "suggests_tests"]
