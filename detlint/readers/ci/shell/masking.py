"""Whether a CI script hides a pytest failure from the step's exit status, and how.

A script masks a run's failure when it ends with status 0 on every path on
which that run fails: ``pytest || true`` does, ``if [ -n "$CI" ]; then pytest
|| true; fi`` does too (the path on which pytest never runs does not count),
while ``pytest || exit 1`` does not. Conditions the
text cannot decide split the paths; this module follows each of them with a
``Simulation`` and names the construct that dropped the failure, for findings
to quote. When the paths are too many it says nothing rather than guess.

Most runs need no simulation at all, and ``Masking`` skips it for them: a run
that is the whole script ends it with its failure, and so does a top-level run
met with errexit on, when nothing before it can turn errexit off (a ``set
+e``, an ``eval``...); on every path the simulation would end with the failure.
"""

from __future__ import annotations

from detlint.readers.ci.shell.effects import Analysis
from detlint.readers.ci.shell.nodes import CommandList, Node, Simple
from detlint.readers.ci.shell.retries import every_node
from detlint.readers.ci.shell.simulation import GiveUp, Simulation
from detlint.readers.ci.shell.state import RETRIED, Reason

_MAX_PATHS = 128  # paths explored per invocation before giving up (masked stays None)
# Commands that run their words as another command or as a script, which may be a
# "set +e": a top-level one ends the stretch of script known to keep errexit on.
_INDIRECT = frozenset({"command", "builtin", "exec", "eval"})


class Masking:
    """``masking_verdict`` for the runs of one script, sharing one ``Analysis``,
    which is built only when some run needs the simulation (see above)."""

    def __init__(
        self,
        program: CommandList,
        unparsed: bool,
        errexit: bool,
        pipefail: bool,
        again: dict[int, frozenset[int]] | None = None,
    ) -> None:
        self.program = program
        # For each test command, the others that run the same tests: one of them run
        # after it failed is a retry of it (``retries.same_commands``).
        self.again = again or {}
        self.unparsed = unparsed
        self.errexit = errexit
        self.pipefail = pipefail
        self.analysis: Analysis | None = None
        self.errexit_kept = -1  # leading top-level items that keep errexit on; -1: not counted

    def reason(self, command: Simple) -> Reason | None:
        """What keeps ``command``'s failure from failing the step, if anything does."""
        return self.verdict(command)[0]

    def verdict(self, command: Simple) -> tuple[Reason | None, Reason | None]:
        """(what masks ``command``'s failure, what catches it without masking it): the
        second is set when the script goes on after the failure (``|| status=$?``,
        ``set +e``) and still fails the step on every path: a deferred failure."""
        # bash stops at a syntax error with status 2, so on text that did not parse
        # the simulation's verdict would describe a script that never runs as read.
        if self.unparsed:
            return None, None
        # A script that is the run alone (no "&", substitution or nested script)
        # ends with the run's failure: the simulation would find no reason.
        items = self.program.items
        if (
            len(items) == 1
            and items[0][0] is command
            and items[0][1] is None
            and not command.subs
            and command.nested is None
        ):
            return None, None
        if self.errexit and self._stops_script(command):
            return None, None
        if self.analysis is None:
            self.analysis = Analysis(self.program)
        again = self.again.get(id(command), frozenset())
        return masking_verdict(
            self.program, self.analysis, command, self.errexit, self.pipefail, again
        )

    def _stops_script(self, command: Simple) -> bool:
        """Whether errexit surely ends the script when ``command`` fails: it is a
        top-level command of a script that starts with errexit on, and no command
        before it can turn errexit off. On every path on which it runs, the
        simulation would then end with its failure, so there is nothing to find."""
        if command.nested is not None:
            return False
        items = self.program.items
        if self.errexit_kept < 0:
            kept = 0
            for node, background in items:
                if background is not None or not _keeps_errexit(node):
                    break
                kept += 1
            self.errexit_kept = kept
        for index in range(min(self.errexit_kept + 1, len(items))):
            node, background = items[index]
            if node is command:
                return background is None
        return False


def masking_verdict(
    program: CommandList,
    analysis: Analysis,
    target: Simple,
    errexit: bool,
    pipefail: bool,
    tests: frozenset[int] = frozenset(),
) -> tuple[Reason | None, Reason | None]:
    """(why the script ends with status 0 on every path on which ``target`` fails, or
    None when some path fails the step, the target never runs, or the paths are too
    many to follow; what first caught the failure on a path that still failed the
    step, when every path was followed and none masked it)."""
    enclosing = analysis.enclosing(target)
    if tests:  # the runs that may retry it are never stepped over
        enclosing = enclosing.union(*(analysis.enclosing(t) for t in _simples(program, tests)))
    pending: list[list[int]] = [[]]
    reason = None
    paths = 0
    retried = bool(tests)
    while pending:
        if paths >= _MAX_PATHS:
            return None, None
        prefix = pending.pop()
        simulation = Simulation(target, prefix, analysis, enclosing, tests)
        try:
            status = simulation.run(program, errexit, pipefail)
        except GiveUp:
            return None, None
        paths += 1
        for index in range(len(prefix), len(simulation.taken)):
            for alternative in range(1, simulation.widths[index]):
                pending.append([*simulation.taken[:index], alternative])
        if not simulation.ran:
            continue
        if status.code != 0:
            # Not masked. A deferred failure is named only when this was the last path
            # to follow and none before it masked: following the rest would cost as
            # much again for every run, and a script that saves a status is most often
            # one path.
            deferred = not pending and reason is None and status.code is not None
            if deferred and simulation.attempts > 1 and not simulation.capped:
                return None, _retry_loop(simulation)
            return None, simulation.reason if deferred else None
        retried = retried and simulation.again
        if reason is None:
            reason = simulation.reason or Reason("exit status replaced", target.start, target.end)
    if reason is not None and retried:  # every path that hides it runs the tests again
        return Reason(RETRIED, reason.start, reason.end), None
    return reason, None


def _retry_loop(simulation: Simulation) -> Reason | None:
    """The loop that ran the failing target again and failed the step after its last
    round (``while true; do pytest && break || { [[ $i -lt 3 ]] || exit 1; ((i++)); };
    done``): a retry of that many attempts, or None when no loop did."""
    loop = simulation.retry_loop
    if loop is None:
        return simulation.reason
    phrase = f"{loop.kind} loop of {simulation.attempts} rounds"
    return Reason(phrase, loop.start, loop.end, rounds=simulation.attempts)


def _simples(program: CommandList, ids: frozenset[int]) -> list[Simple]:
    """The simple commands of ``program`` whose ids are ``ids`` (nested scripts too)."""
    return [node for node in every_node(program) if isinstance(node, Simple) and id(node) in ids]


def _keeps_errexit(node: Node) -> bool:
    """Whether running the top-level command ``node`` cannot turn errexit off: a
    simple command that is no ``set +...``, runs no script string and does not
    run its words as another command (functions are defined by other nodes)."""
    if not isinstance(node, Simple) or node.nested is not None:
        return False
    if not node.words:
        return True
    name = node.words[0]
    if name.dynamic or name.value in _INDIRECT:
        return False
    return name.value != "set" or not any(word.value.startswith("+") for word in node.words)
