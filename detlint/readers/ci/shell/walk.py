"""The walk over a parsed CI script that finds pytest runs and exported variables.

It visits the script in text order, as bash would run it with every command
succeeding, and keeps what later commands see: the working directory (``cd``,
``pushd``/``popd``, subshells), variables assigned literal values (so that
``N=2; pytest --reruns $N`` reads as ``--reruns 2``), and whether output goes
to ``$GITHUB_ENV``. It collects each pytest invocation (``Found``) with that
context, and each variable the text sets for later commands (``FoundExport``);
``shell`` turns both into the public facts. Whether a run's failure reaches
the step's exit status is not the walk's concern (``masking.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from detlint.readers.ci.shell.launchers import Launch, has_launcher_hint, launcher_of
from detlint.readers.ci.shell.lexer import ASSIGNMENT, DECLARATIONS, Word, split_assignment
from detlint.readers.ci.shell.nodes import (
    AndOr,
    Case,
    CommandList,
    Group,
    If,
    Loop,
    Node,
    Pipeline,
    Redirect,
    Simple,
    Subshell,
)
from detlint.readers.ci.shell.runners import Callee, callee_of, test_command
from detlint.readers.ci.shell.wrappers import join_dir

# How an exported variable is set; see ``shell.Export``.
ExportVia = Literal["export", "assignment", "github-env"]

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_ENV_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)")
# pytest's options that list the tests instead of running them (``--collectonly`` is the
# old spelling it still accepts): such a run is no test run, whatever its status.
_COLLECT_ONLY = frozenset({"--collect-only", "--co", "--collectonly"})


@dataclass
class WalkState:
    """What the walk knows at a point of the text."""

    cwd: str | None = None
    directories: list[str | None] = field(default_factory=list)  # pushd stack
    variables: dict[str, str] = field(default_factory=dict)  # literal values only
    loops: int = 0
    github_env: bool = False  # output of this part goes to $GITHUB_ENV
    function: str | None = None  # the function whose body this is (None: the top level)

    def copy(self) -> WalkState:
        return WalkState(
            self.cwd,
            list(self.directories),
            dict(self.variables),
            self.loops,
            self.github_env,
            self.function,
        )


@dataclass
class Found:
    """A pytest invocation and what the walk knew where it stands."""

    command: Simple
    launch: Launch
    env: tuple[tuple[str, str], ...]  # prefix assignments, then env's
    cwd: str | None
    in_loop: bool
    variables: dict[str, str]  # literal values assigned before it
    # The words run, when a variable held the command (CMD="pytest -x"; $CMD): the
    # launch's indexes point into these, each placed where the variable is written.
    words: list[Word] | None = None
    function: str | None = None  # the function it is written in (None: the top level)

    @property
    def run_words(self) -> list[Word]:
        """The words of the command run: the held ones, else the command's own."""
        return self.words or self.command.words


@dataclass
class FoundCall:
    """A command that runs tests without pytest, or hands control to something that
    may (``runners.py``), and what the walk knew where it stands."""

    command: Simple
    callee: Callee
    cwd: str | None
    in_loop: bool
    function: str | None = None  # the function it is written in (None: the top level)


@dataclass
class FoundExport:
    """A variable the text sets for later commands; ``offset`` is where it is written."""

    name: str
    value: str
    offset: int
    via: ExportVia
    dynamic: bool


def resolve(word: Word, variables: dict[str, str]) -> tuple[str, bool]:
    """A word's value with ``$NAME``/``${NAME}`` replaced by values the text
    assigned literally earlier; the flag says whether anything stays unknown."""
    if not word.dynamic:
        return word.value, False
    if word.subs or "`" in word.value or "$(" in word.value:
        return word.value, True
    unknown = False

    def substitute(match: re.Match[str]) -> str:
        nonlocal unknown
        name = match.group(1) or match.group(2)
        if name in variables:
            return variables[name]
        unknown = True
        return match.group(0)

    value = _VARIABLE.sub(substitute, word.value)
    return value, unknown or "$" in _VARIABLE.sub("", value)


def _held_words(words: list[Word], variables: dict[str, str]) -> list[Word] | None:
    """The words a command held in a variable runs (``$CMD -k fast`` after
    ``CMD="pytest -x"``), each placed where the variable is written; None when its value
    is not known."""
    head, unknown = resolve(words[0], variables)
    parts = head.split()
    if unknown or not parts:
        return None
    first = words[0]
    held = [Word(part, part, first.start, first.end, False, []) for part in parts]
    return [*held, *words[1:]]


def _collects_only(launch: Launch) -> bool:
    """Whether pytest only collects: ``pytest --collect-only -q`` runs no test, so no
    knob around it can hide a test's failure."""
    return any(word in _COLLECT_ONLY for word, _ in launch.args)


def _targets_github_env(redirects: Sequence[Redirect]) -> bool:
    return any(
        op.op in (">", ">>", ">|") and target is not None and "GITHUB_ENV" in target.value
        for op, target in redirects
    )


class Walker:
    """Visits the script in text order, collecting pytest invocations and exports."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: list[Found] = []
        self.calls: list[FoundCall] = []
        self.exports: list[FoundExport] = []
        self.functions: set[str] = set()  # defined so far, in text order
        # The first word of each command, by the function it is written in (None: the
        # top level): which functions a function calls, for ``function_calls``.
        self.invoked: dict[str | None, set[str]] = {}
        self.trapped: list[str] = []  # the commands `trap` is handed (their first word)

    def function_calls(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Each function the script defines, with the functions its body calls; the top
        level (``_prelude``, ``trap _epilogue EXIT``) as the name ``""``."""
        top = self.invoked.get(None, set()) | set(self.trapped)
        each = [(name, self.invoked.get(name, set())) for name in sorted(self.functions)]
        return tuple(
            (name, tuple(sorted(called & self.functions))) for name, called in [("", top), *each]
        )

    def walk(self, body: CommandList, state: WalkState) -> None:
        for node, background in body.items:
            self.node(node, state.copy() if background is not None else state)

    def node(self, node: Node, state: WalkState) -> None:
        if isinstance(node, Simple):
            self.simple(node, state)
        elif isinstance(node, Pipeline):
            self.pipeline(node, state)
        elif isinstance(node, AndOr):
            self.node(node.first, state)
            for _, member in node.rest:
                self.node(member, state)
        elif isinstance(node, Subshell):
            inner = state.copy()
            inner.github_env = state.github_env or _targets_github_env(node.redirects)
            self.walk(node.body, inner)
        elif isinstance(node, Group):
            saved = state.github_env
            state.github_env = saved or _targets_github_env(node.redirects)
            self.walk(node.body, state)
            state.github_env = saved
        elif isinstance(node, If):
            for condition, body, _ in node.clauses:
                self.walk(condition, state)
                self.walk(body, state)
            if node.orelse is not None:
                self.walk(node.orelse, state)
        elif isinstance(node, Loop):
            if node.condition is not None:
                self.walk(node.condition, state)
            state.loops += 1
            self.walk(node.body, state)
            state.loops -= 1
        elif isinstance(node, Case):
            for _, body in node.arms:
                self.walk(body, state)
        else:
            self.functions.add(node.name)
            inner = state.copy()
            inner.function = node.name
            self.node(node.body, inner)

    def pipeline(self, node: Pipeline, state: WalkState) -> None:
        if len(node.commands) == 1:
            self.node(node.commands[0], state)
            return
        last = node.commands[-1]
        tee_to_env = (
            isinstance(last, Simple)
            and bool(last.words)
            and last.words[0].value == "tee"
            and any("GITHUB_ENV" in word.value for word in last.words[1:])
        )
        for index, command in enumerate(node.commands):
            inner = state.copy()
            inner.github_env = state.github_env or (tee_to_env and index == 0)
            self.node(command, inner)

    def simple(self, command: Simple, state: WalkState) -> None:
        for sub in command.subs:
            self.walk(sub, state.copy())
        if command.nested is not None:
            self.walk(command.nested, state.copy() if command.nested_shell else state)
        words = command.words
        if not words:
            for word in command.assigns:
                self.assign(word, state, "assignment")
            return
        self.invoked.setdefault(state.function, set()).add(words[0].value)
        if words[0].value == "trap" and len(words) > 1:
            self.trapped += words[1].value.split()[:1]
        held = _held_words(words, state.variables) if words[0].dynamic else None
        run = held or words
        values = [word.value for word in run]
        if has_launcher_hint(" ".join(values)):
            launch = launcher_of(values, [word.dynamic for word in run])
            if launch is not None and _collects_only(launch):
                return  # lists tests (``pytest --co | grep -q gpu``): runs none
            if launch is not None:
                env = launch.env
                if command.assigns:
                    env = (*(split_assignment(word) for word in command.assigns), *env)
                cwd = state.cwd if launch.chdir is None else join_dir(state.cwd, launch.chdir)
                in_loop = state.loops > 0
                variables = dict(state.variables)
                found = Found(command, launch, env, cwd, in_loop, variables, held, state.function)
                self.found.append(found)
                return
        callee = callee_of(values) if values else None
        if callee is None and values and values[0] not in self.functions:
            callee = test_command(values[0])  # a function of a sourced file: run_tests
        if callee is not None:
            call = FoundCall(command, callee, state.cwd, state.loops > 0, state.function)
            self.calls.append(call)
        self.builtin(command, state)

    def builtin(self, command: Simple, state: WalkState) -> None:
        words = command.words
        name = words[0].value
        args = words[1:]
        if name in DECLARATIONS:
            exported = name == "export" or any(
                w.value.startswith("-") and "x" in w.value for w in args
            )
            for word in args:
                if ASSIGNMENT.match(word.value):
                    self.assign(word, state, "export" if exported else None)
        elif name == "unset":
            for word in args:
                state.variables.pop(word.value, None)
        elif name in ("cd", "pushd"):
            operands = [w for w in args if not w.value.startswith("-") or w.value == "-"]
            if name == "pushd":
                state.directories.append(state.cwd)
            if not operands:
                state.cwd = "~" if name == "cd" else state.cwd
            elif operands[0].value != "-":
                directory, _ = resolve(operands[0], state.variables)
                state.cwd = join_dir(state.cwd, directory)
        elif name == "popd":
            if state.directories:
                state.cwd = state.directories.pop()
        elif name in ("echo", "printf", "cat") and (
            state.github_env or _targets_github_env(command.redirects)
        ):
            self.github_env(command)

    def assign(self, word: Word, state: WalkState, via: ExportVia | None) -> None:
        name, value = split_assignment(word)
        resolved, unknown = resolve(Word(value, value, 0, 0, word.dynamic, []), state.variables)
        if word.value.startswith(f"{name}+="):  # CMD+=" -v": appended to what it held
            unknown = unknown or name not in state.variables
            resolved = state.variables.get(name, "") + resolved
        if unknown:
            state.variables.pop(name, None)
        else:
            state.variables[name] = resolved
        if via is not None:
            self.exports.append(FoundExport(name, value, word.start, via, word.dynamic))

    def github_env(self, command: Simple) -> None:
        """``echo NAME=value >> $GITHUB_ENV`` (also printf, and a here-doc to cat)."""
        words = command.words
        for op, _ in command.redirects:
            if op.heredoc is not None:
                start, end = op.heredoc
                offset = start
                for line in self.text[start:end].split("\n"):
                    self.env_line(line, offset)
                    offset += len(line) + 1
        if words[0].value == "cat" or len(words) < 2:
            return
        args = words[1:]
        if words[0].value == "echo":
            while args and re.fullmatch(r"-[neE]+", args[0].value):
                args = args[1:]
            text = " ".join(word.value for word in args)
        else:
            fmt = args[0].value
            values = iter(word.value for word in args[1:])
            text = re.sub(r"%[sdb]", lambda _: next(values, ""), fmt)
        if not args:
            return
        for line in text.replace("\\n", "\n").split("\n"):
            self.env_line(line, args[0].start)

    def env_line(self, line: str, offset: int) -> None:
        match = _ENV_LINE.fullmatch(line.strip())
        if match:
            value = match.group(2)
            self.exports.append(
                FoundExport(match.group(1), value, offset, "github-env", "$" in value)
            )
