"""Retries written in the shell: ``pytest || pytest --lf`` and ``for i in 1 2 3; do
pytest && break; done``.

A team that cannot use a rerun plugin writes the retry into the CI script. Each
shape runs pytest again when it failed, and the step fails only when the last
attempt fails, so for one test it acts like ``--reruns``: a violation is
reported only when every attempt fails. ``find_retries`` recognises the shapes
by their syntax; whether the last attempt's failure does reach the step is the
masking analysis's question (``masking.py``), asked by the caller. A loop
whose rounds the text does not say (``for i in $ROUNDS``) is not counted: its
attempts are unknown; a ``while``/``until`` loop that counts its attempts in a
variable and gives up with a failing ``exit`` is counted by the simulation, which
runs it round by round (``loop_retry``).

Every other way of writing it (``set +e; pytest; rc=$?; ...; if [ $rc -ne 0 ];
then pytest --lf; fi``) is found by the simulation instead: ``same_commands`` names
the runs of the same tests, and a masking verdict whose every hiding path runs one
of them again is a retry (``runs_again``, ``retried``). ``counted_retry`` says when
the model can count one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from detlint.readers.ci.pytest.arguments import Knobs
from detlint.readers.ci.shell.lexer import Word
from detlint.readers.ci.shell.nodes import (
    AndOr,
    Case,
    CommandList,
    Function,
    Group,
    If,
    Loop,
    Node,
    Pipeline,
    Simple,
    Subshell,
)
from detlint.readers.ci.shell.state import RETRIED, Reason
from detlint.readers.ci.shell.walk import Walker

_LAST_FAILED = frozenset({"--lf", "--last-failed"})


@dataclass(frozen=True)
class ShellRetry:
    """How a shell retries one pytest run: ``attempts`` in all (the first included),
    and how the retry reads (``shape`` says ``--lf`` when the later attempts rerun
    only the failed tests)."""

    attempts: int
    shape: str  # how it reads in a message: "|| pytest --lf", "for loop of 3 rounds"
    # Every attempt runs the same command: the attempts compose with the first run's
    # own reruns as a product (a later ``pytest --lf`` without them does not).
    same: bool = True


def find_retries(
    program: CommandList,
    runs: dict[int, Callable[[Word], str]],
    names: dict[int, str] | None = None,
) -> dict[int, ShellRetry]:
    """The retries of the test commands in ``program``, by the id of the one retried
    first. ``runs`` maps the ``id`` of each command's ``Simple`` (a pytest run, or a
    call that runs tests otherwise: ``hatch run test || hatch run test --lf``) to how a
    word of it reads there (``$POLICY`` as the literal value assigned before it);
    ``names`` how a call other than pytest reads in a message."""
    found: dict[int, ShellRetry] = {}
    for node in every_node(program):
        if isinstance(node, AndOr):
            _or_chain(node, runs, found, names or {})
        elif isinstance(node, Loop):
            _loop(node, runs, found)
    return found


def _or_chain(
    node: AndOr,
    runs: dict[int, Callable[[Word], str]],
    found: dict[int, ShellRetry],
    names: dict[int, str],
) -> None:
    """``pytest A || pytest B [|| pytest C]``: each later run starts when the one before
    failed, and the last one's status is the chain's."""
    parts = [node.first, *(part for _, part in node.rest)]
    if len(parts) < 2 or any(op.op != "||" for op, _ in node.rest):
        return
    if not all(isinstance(part, Simple) and id(part) in runs for part in parts):
        return
    words = [
        [value for word in part.words for value in runs[id(part)](word).split()]
        for part in parts
        if isinstance(part, Simple)
    ]
    failed_only = all(not _LAST_FAILED.isdisjoint(each) for each in words[1:])
    program = names.get(id(parts[1]), "pytest")
    shown = f"|| {program} --lf" if failed_only else f"|| {program}"
    same = all(each == words[0] for each in words)
    found[id(parts[0])] = ShellRetry(len(parts), shown, same)


def _loop(node: Loop, runs: dict[int, Callable[[Word], str]], found: dict[int, ShellRetry]) -> None:
    """``for i in 1 2 3; do pytest && break; done``: pytest runs once a round until it
    passes, and the last round's failure is the loop's status."""
    if node.kind != "for":
        return
    rounds = node.rounds  # 1 when the words do not say
    if rounds < 2:
        return
    for item, _ in node.body.items:
        run = breaks_on_success(item)
        if run is not None and id(run) in runs:
            shape = f"for loop of {rounds} rounds"
            found[id(run)] = ShellRetry(rounds, shape)
            return


def breaks_on_success(item: Node) -> Simple | None:
    """The pytest run of a round that leaves the loop when it passes: ``pytest && break``,
    ``pytest && exit 0``, or ``if pytest; then ...; exit 0; fi``. Whether the last
    round's failure then reaches the step (``if pytest; then break; fi`` with nothing
    after the loop ends it with status 0) is the masking analysis's question."""
    if isinstance(item, AndOr) and isinstance(item.first, Simple) and len(item.rest) == 1:
        op, then = item.rest[0]
        if op.op == "&&" and _leaves_loop(then):
            return item.first
    if isinstance(item, If) and item.clauses:
        condition, body, _ = item.clauses[0]
        tested = condition.items[-1][0] if condition.items else None
        last = body.items[-1][0] if body.items else None
        if isinstance(tested, Simple) and last is not None and _leaves_loop(last):
            return tested
    return None


def _leaves_loop(node: Node) -> bool:
    """``break``, or ``exit``/``return`` with status 0 (or none, after a passing run)."""
    if not isinstance(node, Simple) or not node.words:
        return False
    words = [word.value for word in node.words]
    if words[0] == "break":
        return True
    return words[0] in ("exit", "return") and words[1:] in ([], ["0"])


def every_node(program: CommandList) -> Iterator[Node]:
    """Every node of ``program``, nested scripts (``bash -c '...'``) included."""
    stack: list[CommandList] = [program]
    while stack:
        body = stack.pop()
        pending: list[Node] = [node for node, _ in body.items]
        while pending:
            node = pending.pop()
            yield node
            if isinstance(node, Simple):
                if node.nested is not None:
                    stack.append(node.nested)
                stack.extend(node.subs)
            elif isinstance(node, AndOr):
                pending += [node.first, *(part for _, part in node.rest)]
            elif isinstance(node, (Subshell, Group)):
                stack.append(node.body)
            elif isinstance(node, If):
                for condition, body_list, _ in node.clauses:
                    stack += [condition, body_list]
                if node.orelse is not None:
                    stack.append(node.orelse)
            elif isinstance(node, Loop):
                if node.condition is not None:
                    stack.append(node.condition)
                stack.append(node.body)
            elif isinstance(node, Case):
                stack += [body_list for _, body_list in node.arms]
            elif isinstance(node, Function):
                pending.append(node.body)
            elif isinstance(node, Pipeline):
                pending += node.commands


def runs_again(reason: Reason, starts: list[int]) -> bool:
    """Whether the construct that drops a failure is ``|| pytest ...`` (a second run,
    often ``--last-failed``, whose own status decides the step), or the simulation saw
    the tests run again on every path that hid the failure: a retry, not a mask."""
    return reason.phrase == RETRIED or (
        reason.phrase.startswith("`||") and any(reason.start < s < reason.end for s in starts)
    )


def retried(reason: Reason) -> ShellRetry | None:
    """A retry ``find_retries`` did not see in the syntax but the simulation saw run:
    two attempts at least, and more may run than this counts."""
    return ShellRetry(2, RETRIED, same=False) if reason.phrase == RETRIED else None


def loop_retry(retry: ShellRetry | None, caught: Reason | None) -> ShellRetry | None:
    """The retry around a run: the one the syntax shows, else a loop the simulation ran
    the failing run in again until its last round failed the step (a ``while true`` loop
    with an attempt counter, whose rounds only the counter says)."""
    if retry is None and caught is not None and caught.rounds is not None:
        return ShellRetry(caught.rounds, caught.phrase)
    return retry


def reruns_inside(knobs: Knobs) -> bool:
    """Whether a run's own options rerun failing tests inside pytest."""
    return bool(
        knobs.get("reruns")
        or knobs.get("retries")
        or knobs.get("force_reruns")
        or knobs.get("max_runs")
        or knobs.get("force_flaky")
    )


def counted_retry(
    retry: ShellRetry | None, reason: Reason | None, knobs: Knobs
) -> ShellRetry | None:
    """The shell retry around a run as the model counts it, or None when it does not
    count: the run is masked, or its attempts differ (``|| pytest --lf``) while its own
    options rerun inside pytest."""
    if retry is not None and reason is not None:
        retry = None  # the last attempt's failure does not reach the step: a mask
    if retry is not None and not retry.same and reruns_inside(knobs):
        # `pytest --reruns 2 || pytest --lf`: the attempts add up rather than multiply,
        # which the model's layers do not express; say nothing rather than overstate.
        retry = None
    return retry


def same_commands(walker: Walker) -> dict[int, frozenset[int]]:
    """For each test command of a script (by the id of its ``Simple``), the other commands
    that run the same tests: the same words, ``--lf``/``--last-failed`` aside. One of them
    run after the first failed is a retry, however the script writes the control flow."""
    keys: dict[int, tuple[str, ...]] = {}
    for found in walker.found:
        keys[id(found.command)] = ("run", *_same_words(w.value for w in found.run_words))
    for call in walker.calls:
        keys[id(call.command)] = ("call", call.callee.name, *_same_words(call.callee.words))
    by_key: dict[tuple[str, ...], set[int]] = {}
    for ident, key in keys.items():
        by_key.setdefault(key, set()).add(ident)
    return {ident: frozenset(by_key[key] - {ident}) for ident, key in keys.items()}


def _same_words(words: Iterable[str]) -> list[str]:
    return [w for w in words if w not in _LAST_FAILED and w not in ("&", "--verbose", "-v")]
