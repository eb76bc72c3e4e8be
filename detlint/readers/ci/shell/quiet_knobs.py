"""Knobs written in a CI script around commands that run no tests.

A census of a pipeline's knobs is complete only if it names every ``|| true``,
``set +e`` and retry loop in the scripts, not just those around a test run: a
maintainer who reads "every knob, with a reason" and finds ``apt-get remove ...
|| true`` missing cannot tell whether detlint judged it or never saw it. Those
around test runs are judged with the runs (``masking.py``, ``retries.py``); this
module finds the rest, by syntax alone, so the audit can list each with the
command it acts on and say that it runs no tests.

The shapes:

* a masked status: ``cmd || true``, ``|| :``, ``|| echo ...``, ``|| exit 0``,
  ``|| rc=$?`` (the status saved, maybe raised later), or a group that ends so;
* ``set +e`` in a script that runs no tests at all (where it does run one, the run's
  own verdict says what ``set +e`` did to it);
* a retry: a ``for`` loop whose round leaves on success (``cmd && break``), an
  ``until cmd`` loop, a ``while`` loop that leaves on success, ``cmd || cmd``, and a
  program's own retry option (``curl --retry 5``, ``wget --tries=3``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from detlint.readers.ci.shell.nodes import (
    AndOr,
    CommandList,
    Group,
    Loop,
    Node,
    Simple,
    Subshell,
    head,
    short,
)
from detlint.readers.ci.shell.retries import breaks_on_success, every_node
from detlint.readers.ci.shell.runner_reruns import option_value
from detlint.readers.ci.shell.wrappers import read_flags, skip_wrappers

QuietKind = Literal["masked-status", "shell-retry"]
# A text may write a knob of its own only when one of these is in it.
QUIET_HINT = re.compile(r"\|\||\bset\s+\+|\bbreak\b|\buntil\s|--retry|--tries")
# Commands that end with status 0 whatever came before them.
_SUCCEEDS = frozenset({"true", ":", "echo", "printf"})


@dataclass(frozen=True)
class QuietKnob:
    """A knob of a script that acts on a command running no tests.

    Placed as runs are (0-based line of the script, columns of that line);
    ``construct`` is how the knob reads (``|| true``, ``for loop of 3 rounds``),
    ``command`` the first word of the command it acts on, ``attempts`` a retry's runs
    in all when the text says them.
    """

    kind: QuietKind
    line: int
    column: int
    end_line: int
    end_column: int
    construct: str
    command: str
    attempts: int | None = None


Place = Callable[[int, int], tuple[int, int, int, int]]


def quiet_knobs(
    program: CommandList, tested: frozenset[int], place: Place
) -> tuple[QuietKnob, ...]:
    """The knobs of ``program`` that act on no test command. ``tested`` holds the ids of
    the ``Simple`` nodes that run tests or may (pytest runs, calls); ``place`` turns a
    start and end offset into (line, column, end line, end column)."""
    found: dict[int, QuietKnob] = {}

    def add(
        kind: QuietKind, start: int, end: int, construct: str, on: Node, attempts: int | None = None
    ) -> None:
        if start not in found:
            found[start] = QuietKnob(kind, *place(start, end), construct, _named(on), attempts)

    for node in every_node(program):
        if isinstance(node, AndOr):
            _and_or(node, tested, add)
        elif isinstance(node, Loop):
            _retry_loop(node, tested, add)
        elif isinstance(node, Simple):
            if not tested and _turns_errexit_off(node):
                add("masked-status", node.start, node.end, "set +e", node)
            elif (retry := _retry_option(node)) is not None:
                add("shell-retry", node.start, node.end, retry[0], node, retry[1])
    return tuple(sorted(found.values(), key=lambda knob: (knob.line, knob.column)))


Add = Callable[..., None]


def _and_or(node: AndOr, tested: frozenset[int], add: Add) -> None:
    """``cmd || true`` (and ``a && b || true``: the status of the chain before it), and
    ``cmd || cmd``, a retry."""
    parts = [node.first, *(part for _, part in node.rest)]
    for index, (op, right) in enumerate(node.rest, start=1):
        if op.op != "||":
            continue
        before = parts[:index]
        if any(_runs_tests(part, tested) for part in before):
            return  # the run's own verdict speaks for it
        left = before[-1]
        if _succeeds(right):
            add("masked-status", left.start, right.end, f"|| {short(right)}", left)
        elif _same(left, right) and not _runs_tests(right, tested):
            add("shell-retry", left.start, right.end, f"|| {head(right)}", left, 2)


def _retry_loop(node: Loop, tested: frozenset[int], add: Add) -> None:
    """A loop that runs a command again until it passes: ``for i in 1 2 3; do cmd &&
    break; done``, ``while true; do cmd && break; sleep 5; done``, ``until cmd; do
    sleep 5; done``."""
    if node.kind == "until" and node.condition is not None and node.condition.items:
        condition = node.condition.items[-1][0]
        if not _runs_tests(condition, tested):
            add("shell-retry", node.start, node.end, "until loop", condition)
        return
    if node.kind == "for" and node.rounds < 2:
        return  # over files or words the text does not count: a search, not a retry
    if node.kind == "while" and not _loops_until_told(node):
        return  # `while read line`: a loop over input
    if node.kind not in ("for", "while"):
        return
    for item, _ in node.body.items:
        tried = breaks_on_success(item)
        if tried is not None:
            if not _runs_tests(tried, tested):
                rounds = node.rounds if node.kind == "for" else None
                shape = f"for loop of {rounds} rounds" if rounds else "while loop"
                add("shell-retry", node.start, node.end, shape, tried, rounds)
            return


def _loops_until_told(node: Loop) -> bool:
    """``while true``, ``while :`` or a counter test (``[ $i -lt 5 ]``, ``(( i < 5 ))``)."""
    if node.condition is None or not node.condition.items:
        return False
    last = node.condition.items[-1][0]
    if not isinstance(last, Simple) or not last.words:
        return False
    return last.words[0].value in ("true", ":", "[", "[[", "test", "((")


def _named(node: Node) -> str:
    """The program a command runs, past ``sudo``, ``env``, ``timeout`` and their like."""
    if isinstance(node, Simple) and node.words:
        values = [word.value for word in node.words]
        index = skip_wrappers(values)
        if index is not None and 0 < index < len(values):
            return values[index][:30]
    return head(node)


# Programs with a retry option of their own, and how it is spelled.
_RETRY_OPTIONS = {"curl": ("--retry",), "wget": ("--tries", "-t")}


def _retry_option(node: Simple) -> tuple[str, int | None] | None:
    """``curl --retry 5``, ``wget --tries=3``: the option as written and the attempts in
    all, when the program is one that retries by itself (it never runs tests)."""
    program = _named(node).rsplit("/", 1)[-1]
    names = _RETRY_OPTIONS.get(program)
    if names is None:
        return None
    found = option_value([word.value for word in node.words], names)
    if found is None:
        return None
    value, written = found
    count = int(value) if value.isdigit() else None
    attempts = count + 1 if count is not None and program == "curl" else count
    return f"{program} {written.replace('=', ' ')}", attempts


def _succeeds(node: Node) -> bool:
    """Whether ``node`` ends with status 0 whatever ran before it."""
    if isinstance(node, Simple):
        if not node.words:
            return bool(node.assigns)  # `|| rc=$?`: the status is kept, not returned
        first = node.words[0].value
        if first in ("exit", "return"):
            return [word.value for word in node.words[1:]] == ["0"]
        return first in _SUCCEEDS
    if isinstance(node, (Group, Subshell)) and node.body.items:
        return _succeeds(node.body.items[-1][0])
    return False


def _turns_errexit_off(node: Simple) -> bool:
    """``set +e``, ``set +eu``, ``set +o errexit``: read as ``set`` reads its flags."""
    words = [word.value for word in node.words]
    if not words or words[0] != "set":
        return False
    i = 1
    while i < len(words):
        if len(words[i]) > 1 and words[i][0] in "-+":
            settings, _, i = read_flags(words, i)
            if settings.get("errexit") is False:
                return True
        i += 1
    return False


def _runs_tests(node: Node, tested: frozenset[int]) -> bool:
    if not tested:
        return False
    return any(id(inner) in tested for inner in _simples(node))


def _simples(node: Node) -> list[Simple]:
    if isinstance(node, Simple):
        return [node]
    return [inner for inner in every_node(CommandList([(node, None)])) if isinstance(inner, Simple)]


def _same(left: Node, right: Node) -> bool:
    return (
        isinstance(left, Simple)
        and isinstance(right, Simple)
        and bool(left.words)
        and [w.value for w in left.words] == [w.value for w in right.words]
    )
