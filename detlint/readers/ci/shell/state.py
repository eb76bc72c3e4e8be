"""What the exit-status interpreter knows while it runs a script.

``simulation.py`` runs a script with one pytest invocation failing; these
are the values it computes with: exit statuses that remember whether they are
(a copy of) that failure, the reasons a failure stopped counting, and the
shell's options and variables. The builtins that only read or change that state
(``set``, assignments, ``exit N``, ``[ "$rc" -ne 0 ]``) are here too; the ones
that change the flow of the run (``exit`` itself, ``break``, function calls)
are the interpreter's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from detlint.readers.ci.shell.arithmetic import evaluate, expansion
from detlint.readers.ci.shell.lexer import Word, split_assignment
from detlint.readers.ci.shell.nodes import CommandList, Node, Simple
from detlint.readers.ci.shell.wrappers import read_flags

# The phrase of a "mask" that is a retry: the tests run again on every path that hid the
# failure (``masking.masking_verdict``), so the later run's status decides.
RETRIED = "run again when it fails"


@dataclass(frozen=True)
class Reason:
    """A construct that kept the failure out of the exit status: a phrase for
    findings (``"`|| true`"``) and the offsets of the text it names."""

    phrase: str
    start: int
    end: int
    # A failure a loop caught and ran the tests again for, until its last round failed
    # the step: how many times they ran (the phrase names the loop).
    rounds: int | None = None


@dataclass(frozen=True)
class Status:
    """An exit status as the simulation knows it.

    ``tainted``: it is (a copy of) the failure of the invocation under study.
    ``exempt``: a failure errexit ignored where it happened (left of ``&&``,
    under ``!``); bash does not exit when such a status comes out of a group,
    ``if`` or loop either, only a subshell's status counts afresh.
    """

    code: int | None  # None: not known statically
    tainted: bool = False
    exempt: Reason | None = None


OK = Status(0)


@dataclass
class Shell:
    """The state of one (sub)shell during the simulation."""

    errexit: bool
    errexit_off: Reason | None  # the `set +e` that turned errexit off, if one did
    pipefail: bool
    variables: dict[str, str | Status] = field(default_factory=dict)
    functions: dict[str, Node] = field(default_factory=dict)
    last: Status = OK  # $?
    background: Status = OK  # status of the last background job
    err_trap: CommandList | None = None  # trap '...' ERR: run where errexit would exit

    def copy(self) -> Shell:
        return Shell(
            self.errexit,
            self.errexit_off,
            self.pipefail,
            dict(self.variables),
            dict(self.functions),
            self.last,
            self.background,
            self.err_trap,
        )


def _integer(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def _known_value(text: str, shell: Shell) -> str | Status | None:
    """What ``$?``, ``$name`` or ``${name}`` holds, when the simulation knows."""
    match = re.fullmatch(r"\$\{?(\?|[A-Za-z_][A-Za-z0-9_]*)\}?", text)
    if match is None:
        return None
    name = match.group(1)
    if name == "?":
        return shell.last
    return shell.variables.get(name)


def literal(word: Word, shell: Shell) -> str | None:
    """A word's text for a test or ``case``, None when unknown."""
    if not word.dynamic:
        return word.value
    known = _known_value(word.value, shell)
    if isinstance(known, Status):
        return None if known.code is None else str(known.code)
    return known


_NUMERIC_TESTS = {
    "-eq": lambda a, b: a == b,
    "-ne": lambda a, b: a != b,
    "-lt": lambda a, b: a < b,
    "-le": lambda a, b: a <= b,
    "-gt": lambda a, b: a > b,
    "-ge": lambda a, b: a >= b,
}


def evaluate_test(args: Sequence[Word], shell: Shell) -> bool | None:
    """``[ ... ]`` for the forms that decide on an exit status; None when unknown."""
    negate = False
    while args and args[0].value == "!" and not args[0].dynamic:
        negate = not negate
        args = args[1:]
    result: bool | None = None
    if len(args) == 3 and args[1].value in _NUMERIC_TESTS:
        left, right = literal(args[0], shell), literal(args[2], shell)
        a = _integer(left) if left is not None else None
        b = _integer(right) if right is not None else None
        if a is not None and b is not None:
            result = bool(_NUMERIC_TESTS[args[1].value](a, b))
    elif len(args) == 3 and args[1].value in ("=", "==", "!="):
        left, right = literal(args[0], shell), literal(args[2], shell)
        if left is not None and right is not None:
            result = (left == right) == (args[1].value != "!=")
    elif len(args) == 2 and args[0].value in ("-z", "-n"):
        operand = literal(args[1], shell)
        if operand is not None:
            result = (operand == "") == (args[0].value == "-z")
    elif len(args) == 1:
        operand = literal(args[0], shell)
        if operand is not None:
            result = operand != ""
    return None if result is None else result != negate


def assign(assigns: Sequence[Word], shell: Shell, substituted: Status | None) -> Status:
    """Run assignments (``rc=$?``); ``substituted`` is the status of the command
    substitution in them, which becomes the command's status."""
    for word in assigns:
        name, value = split_assignment(word)
        if not word.dynamic:
            shell.variables[name] = value
            continue
        known = _known_value(value, shell)
        counted = expansion(value)  # i=$((i+1))
        if counted is not None:
            number = evaluate(counted, shell.variables)
            known = None if number is None else str(number)
        elif known is None and substituted is not None and value.startswith(("$(", "`")):
            known = substituted
        if known is None:
            shell.variables.pop(name, None)
        else:
            shell.variables[name] = known
    return substituted if substituted is not None else OK


def exit_status(args: Sequence[Word], shell: Shell) -> Status:
    """The status ``exit``/``return`` give: their argument, or ``$?``."""
    if not args:
        return shell.last
    known = _known_value(args[0].value, shell) if args[0].dynamic else args[0].value
    if isinstance(known, Status):
        return known
    if known is None:
        return Status(None)
    number = _integer(known)
    return Status(2 if number is None else number & 255)


def set_options(args: Sequence[Word], command: Simple, shell: Shell) -> None:
    """What ``set`` (``command``, with arguments ``args``) does to errexit and pipefail."""
    values = [arg.value for arg in args]
    index = 0
    while index < len(values):
        flags = values[index]
        if flags == "--" or len(flags) < 2 or flags[0] not in "-+":
            return
        settings, _, index = read_flags(values, index)
        if "errexit" in settings:
            shell.errexit = settings["errexit"]
            off = Reason("`set +e`", command.start, command.end)
            shell.errexit_off = None if shell.errexit else off
        if "pipefail" in settings:
            shell.pipefail = settings["pipefail"]
        index += 1
