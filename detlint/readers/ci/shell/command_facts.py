"""The facts ``read_command`` finds in one CI command text (``commands.py``).

Frozen and free of the parser's types, so they can be cached, pickled to worker
processes and compared: a pytest run with what its options and shell do, an export,
a call that runs tests otherwise, and what knobs the script writes around commands
that run no tests.
"""

from __future__ import annotations

from dataclasses import dataclass

from detlint.readers.ci.pytest.arguments import Option
from detlint.readers.ci.shell.quiet_knobs import QuietKnob
from detlint.readers.ci.shell.runners import Callee
from detlint.readers.ci.shell.walk import ExportVia


@dataclass(frozen=True)
class Place:
    """A region of the command text: 0-based lines and columns, exclusive end column."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class PytestRun:
    """One pytest invocation in a command text, with what its options and shell do.

    ``line``/``column``/``end_column`` locate the whole simple command (from its
    first word, inline assignments and wrappers included); ``end_line`` is where
    it ends when backslash continuations spread it over several lines.

    Option values and ``targets`` are words after quote removal; ``$NAME`` in
    them is replaced only by a literal value the text assigned earlier
    (``N=2; pytest --reruns $N``), otherwise kept as written and counted as
    dynamic. ``env`` holds the inline assignments (``FOO=1 pytest``, ``env
    FOO=1 pytest``) as written: a ``PYTEST_ADDOPTS`` there is not folded into
    the options, so that it can be merged with exported values and the step's
    ``env:`` in one place (``arguments.read_pytest_args`` in ``readers/ci/pytest/`` reads it).

    ``masked`` is a short phrase naming what keeps pytest's failure out of the
    step's exit status, or None when a failing pytest still fails the step, and
    also when that cannot be told: the run never executes (a function never
    called), the paths are too many to follow, or the text did not parse (bash
    stops at a syntax error with status 2).
    """

    line: int
    column: int
    end_column: int
    launcher: str
    targets: tuple[str, ...] = ()
    keyword: str | None = None
    markexpr: str | None = None
    reruns: int | None = None
    reruns_text: str | None = None
    reruns_dynamic: bool = False
    reruns_delay: bool = False
    only_rerun: tuple[str, ...] = ()
    retries: int | None = None
    force_flaky: bool = False
    max_runs: int | None = None
    min_passes: int | None = None
    count: int | None = None
    disabled_plugins: tuple[str, ...] = ()
    rootdir: str | None = None
    config_file: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    masked: str | None = None
    tox_env: str | None = None
    end_line: int = 0
    reruns_at: Place | None = None  # where the (winning) option that reruns is written
    masked_at: Place | None = None  # where the construct named by ``masked`` is
    deferred: str | None = None  # what catches a failure the script re-raises later
    force_reruns: int | None = None
    reruns_mode: str | None = None
    rerun_except: tuple[str, ...] = ()
    max_suite_reruns: int | None = None
    fail_on_flaky: bool = False
    rerun_exclude_path: tuple[str, ...] = ()
    ignore_flaky: bool = False
    flake_runs: int | None = None
    plugins: tuple[str, ...] = ()  # -p NAME (enabled explicitly)
    options: tuple[Option, ...] = ()  # every option pytest receives, canonical names
    wrappers: tuple[str, ...] = ()  # commands wrapped around it, e.g. "timeout 600"
    in_loop: bool = False  # inside a for/while/until body (a shell retry loop, perhaps)
    # A retry written in the script (``|| pytest --lf``, ``for i in 1 2 3; do pytest &&
    # break; done``): the attempts in all, the first included; None when none.
    retry_attempts: int | None = None
    retry_shape: str | None = None  # how the retry reads in a message
    args: tuple[str, ...] = ()  # the words pytest receives (tox: what follows --), as read
    function: str | None = None  # the function it is written in (None: the top level)


@dataclass(frozen=True)
class Export:
    """An environment variable the text sets for later commands.

    ``via`` says how: ``export NAME=value``; a bare ``NAME=value`` (a shell
    variable, seen by later commands in this text and by children once exported
    or when it was already in the environment); or a line appended to
    ``$GITHUB_ENV``, which reaches the job's *later steps*, not this one.
    ``value`` is the value after quote removal, expansions kept as written.
    """

    name: str
    value: str
    line: int
    column: int
    via: ExportVia = "export"
    dynamic: bool = False  # the value holds a shell expansion


@dataclass(frozen=True)
class TestCall:
    """A command that runs tests without pytest (``python -m unittest``, ``ctest``), or
    hands control to something that may (``make test``, ``./ci/test.sh``, a task, an
    image): ``callee`` says which (``runners.py``).

    Located like a ``PytestRun``; ``masked`` names what keeps its failure out of the
    script's exit status, as for a run, and ``cwd`` is the directory the text ``cd``-ed
    to before it (None: where the script started).
    """

    line: int
    column: int
    end_line: int
    end_column: int
    callee: Callee
    cwd: str | None = None
    masked: str | None = None
    in_loop: bool = False
    # A retry written around it (``hatch run test || hatch run test --lf``), as for a
    # pytest run: the attempts in all, and how the retry reads.
    retry_attempts: int | None = None
    retry_shape: str | None = None
    function: str | None = None  # the function it is written in (None: the top level)


@dataclass(frozen=True)
class CommandFacts:
    """What ``read_command`` found in one command text."""

    runs: tuple[PytestRun, ...]
    exports: tuple[Export, ...]
    unparsed: bool  # some text could not be tokenised or parsed and was stepped over
    calls: tuple[TestCall, ...] = ()  # commands that run tests otherwise, or may
    # `|| true`, `set +e` and retry loops around commands that run no tests, for the census
    quiet: tuple[QuietKnob, ...] = ()
    # Each function the text defines, with the functions its body calls: a script run
    # as ``ci.sh build`` that dispatches on its argument runs ``build`` alone.
    functions: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Some of the text is nested past the reader's depth limits and was not read: what
    # it runs there (tests, reruns, retries) is unknown, which DET901 says.
    too_deep: bool = False
