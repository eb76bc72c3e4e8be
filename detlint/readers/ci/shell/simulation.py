"""One run of a CI script, simulated, in which a given pytest invocation fails.

Whether ``pytest ... || true``, ``pytest | tee log`` or ``set +e`` keeps a
failing pytest from failing the step depends on bash's errexit and pipefail
rules, which interact in ways a pattern match gets wrong (errexit is ignored
left of ``&&`` but not at the end of a script; a group keeps an ignored failure
ignored, a subshell does not). So this is a small abstract interpreter: it runs
the parsed script with the run under study failing and every other command
succeeding, and reports the status the script ends with and the first construct
that dropped the failure. ``masking.py`` runs it along every path that the
script's undecidable conditions open.

What is modelled: ``set -e``/``+e``/``-o pipefail``; errexit being ignored in
``if``/``while``/``until`` conditions, left of ``&&``/``||``, under ``!`` and
in compound commands whose status came from an ignored failure; pipelines
(status of the last command, or the rightmost failure with pipefail) with each
part in a subshell; subshells, groups, functions, ``exit``/``return`` with
literal or ``$?``-derived statuses, ``rc=$?``, ``[ "$rc" -ne 0 ]``-style tests,
background jobs and ``wait``, command substitutions (errexit off inside, as
bash does outside POSIX mode), ``bash -c`` and ``eval``, and arithmetic on
counters (``((i++))``, ``i=$((i+1))``). A ``for`` loop over literal words runs
once per word (up to ``_MAX_ROUNDS``), a ``while``/``until`` loop whose condition
is decided runs until it ends (a retry loop that gives up with ``exit 1`` after
its last attempt); other loops run their body once; an ERR trap
(``trap 'EXITCODE=1' ERR``) runs where errexit would exit, and a command held in
a variable runs as what it holds (``$OK`` after ``OK=false``).
Not modelled: other traps, ``source``d files (the follower inlines the options they
set), signals, arithmetic errors, and any command other than the target failing (a
``make`` or an upload script is taken to succeed).

The interpreter is one class whose methods recurse into each other along the
tree, which is why this module is longer than most; the values it computes with
are in ``state.py`` and the static grading of subtrees in ``effects.py``.
"""

from __future__ import annotations

import fnmatch
import functools
from dataclasses import replace

from detlint.readers.ci.shell.arithmetic import arithmetic_command, evaluate
from detlint.readers.ci.shell.effects import QUIET, SAFE, Analysis
from detlint.readers.ci.shell.lexer import ASSIGNMENT, DECLARATIONS, Word
from detlint.readers.ci.shell.nodes import (
    AndOr,
    Case,
    CommandList,
    Group,
    If,
    Loop,
    Node,
    Pipeline,
    Simple,
    Subshell,
    head,
    short,
)
from detlint.readers.ci.shell.parser import parse
from detlint.readers.ci.shell.state import (
    OK,
    Reason,
    Shell,
    Status,
    assign,
    evaluate_test,
    exit_status,
    literal,
    set_options,
)

_MAX_STEPS = 20_000  # commands run per path
_MAX_CHOICES = 48  # unknown conditions met on one path
_MAX_CALLS = 8  # nested shell-function calls
_MAX_ROUNDS = 8  # iterations of a loop that are simulated


@functools.lru_cache(maxsize=32)
def _trap_program(action: str) -> CommandList | None:
    """A trap's action parsed once, however many paths the simulation runs it on."""
    program, unparsed, _ = parse(action)
    return None if unparsed else program


def _arithmetic_status(expressions: list[str], shell: Shell) -> Status:
    """``((i++))`` or ``let i+=1``: 0 when the last value is not zero, else 1; a value
    the simulation cannot know is taken to succeed, as any unknown command is."""
    value = None
    for expression in expressions:
        value = evaluate(expression, shell.variables)
    return OK if value is None or value != 0 else Status(1)


class GiveUp(Exception):
    """The run is too long or meets too many unknown conditions to follow."""


# The control flow of the simulated script (exit, return, break, continue) is
# carried by exceptions up to the construct that ends it.
class _Stop(Exception):
    def __init__(self, status: Status) -> None:
        super().__init__()
        self.status = status


class _Exit(_Stop):
    pass


class _Return(_Stop):
    pass


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Undecided(Exception):
    """A condition that cannot be decided, met where the run must not branch."""


class Simulation:
    """One run of the script in which ``target`` fails and every other command
    succeeds, following bash's errexit and pipefail rules.

    Conditions that cannot be decided (``[ -n "$CI" ]``) are choices:
    ``choices`` fixes them in the order they are met, and ``taken``/``widths``
    record the ones this run met, so that the caller can explore every other
    combination, except inside subtrees that cannot change the outcome
    (``Analysis.kind``).
    """

    def __init__(
        self,
        target: Simple,
        choices: list[int],
        analysis: Analysis,
        enclosing: set[int],
        tests: frozenset[int] = frozenset(),
    ) -> None:
        self.target = target
        self.tests = tests  # the ids of the script's other test runs
        self.again = False  # one of them ran after the target failed: a retry
        self.analysis = analysis
        self.enclosing = enclosing  # nodes around the target: never stepped over
        self.choices = choices
        self.taken: list[int] = []
        self.widths: list[int] = []
        self.ran = False
        self.reason: Reason | None = None  # the first construct that dropped the failure
        self.ignoring: list[Reason] = []  # why errexit is ignored here, innermost last
        self.steps = 0
        self.calls = 0
        self.deciding = False  # inside run_safe: an undecidable condition ends it
        self.loops = 0  # loop bodies being run (break and continue act only inside one)
        self.loop_nodes: list[Loop] = []  # the loops being run, innermost last
        self.attempts = 0  # times the target ran on this path (a loop may run it again)
        self.retry_loop: Loop | None = None  # the innermost loop around its last run
        self.capped = False  # a while/until loop stopped at _MAX_ROUNDS or an unknown

    def run(self, program: CommandList, errexit: bool, pipefail: bool) -> Status:
        return self.run_script(program, Shell(errexit, None, pipefail))

    def run_script(self, body: Node | CommandList, shell: Shell) -> Status:
        """Run ``body`` as a script of its own in ``shell``: ``exit`` (or ``return``)
        ends it with its status, a ``break`` outside any loop of it with ``$?``."""
        try:
            return self.run_any(body, shell)
        except _Stop as stop:
            return stop.status
        except (_Break, _Continue):
            return shell.last

    def run_any(self, body: Node | CommandList, shell: Shell) -> Status:
        if isinstance(body, CommandList):
            return self.run_list(body, shell)
        return self.run_node(body, shell)

    def choose(self, width: int) -> int:
        if self.deciding:
            raise _Undecided
        index = len(self.taken)
        if index >= _MAX_CHOICES:
            raise GiveUp
        choice = self.choices[index] if index < len(self.choices) else 0
        self.taken.append(choice)
        self.widths.append(width)
        return choice

    def drop(self, reason: Reason) -> None:
        if self.reason is None:
            self.reason = reason

    def run_err_trap(self, status: Status, shell: Shell) -> None:
        """``trap 'EXITCODE=1' ERR``: bash runs the trap where a failure would end the
        script under errexit, whether errexit is on or not (``$?`` is the failure's)."""
        trap = shell.err_trap
        if trap is None or status.code == 0 or self.ignoring or status.exempt is not None:
            return
        shell.err_trap = None  # a failure inside the trap does not run it again
        try:
            shell.last = status
            self.run_list(trap, shell)
        finally:
            shell.err_trap = trap

    def check_errexit(self, status: Status, shell: Shell) -> None:
        if status.code != 0 and shell.errexit and not self.ignoring and status.exempt is None:
            raise _Exit(status)

    def ignoring_while(self, reason: Reason, node: Node | CommandList, shell: Shell) -> Status:
        self.ignoring.append(reason)
        try:
            return self.run_any(node, shell)
        finally:
            self.ignoring.pop()

    # -- lists and nodes

    def run_list(self, body: CommandList, shell: Shell) -> Status:
        status = OK
        previous: Status | None = None
        for node, background in body.items:
            if previous is not None and previous.tainted and previous.code != 0:
                self.drop(self.why_continued(previous, shell, node))
            if background is not None:
                job = self.subshell(node, shell)
                if job.tainted and job.code != 0:
                    self.drop(Reason("`&` (background job)", background.start, background.end))
                shell.background = job
                status = OK
            else:
                status = self.run_node(node, shell)
                self.run_err_trap(status, shell)
                self.check_errexit(status, shell)
            shell.last = status
            previous = status
        return status

    def why_continued(self, previous: Status, shell: Shell, following: Node) -> Reason:
        """Why the shell went on after the failure in ``previous``."""
        if not shell.errexit:
            if shell.errexit_off is not None:
                return shell.errexit_off
            phrase = f"`; {short(following)}` without errexit"
            return Reason(phrase, following.start, following.end)
        if previous.exempt is not None:
            return previous.exempt
        if self.ignoring:
            return self.ignoring[-1]
        return Reason("a later command's status", following.start, following.end)

    def run_node(self, node: Node, shell: Shell) -> Status:
        self.steps += 1
        if self.steps > _MAX_STEPS:
            raise GiveUp
        if id(node) not in self.enclosing:
            kind = self.analysis.kind(node)
            if kind == QUIET:
                shell.last = OK
                return OK
            if kind == SAFE and not self.deciding:
                return self.run_safe(node, shell)
        status = self.dispatch(node, shell)
        shell.last = status
        return status

    def run_safe(self, node: Node, shell: Shell) -> Status:
        """Run a node that changes nothing and fails only where errexit ignores it;
        if that needs an undecidable condition, its status is "0 or an ignored
        failure" rather than a branch of the exploration."""
        last, reason = shell.last, self.reason
        self.deciding = True
        try:
            status = self.dispatch(node, shell)
        except _Undecided:
            shell.last, self.reason = last, reason
            status = Status(None, exempt=Reason("", node.start, node.end))
        finally:
            self.deciding = False
        shell.last = status
        return status

    def dispatch(self, node: Node, shell: Shell) -> Status:
        if isinstance(node, Simple):
            status = self.run_simple(node, shell)
        elif isinstance(node, Pipeline):
            status = self.run_pipeline(node, shell)
        elif isinstance(node, AndOr):
            status = self.run_and_or(node, shell)
        elif isinstance(node, Subshell):
            status = self.subshell(node.body, shell)
        elif isinstance(node, Group):
            status = self.run_list(node.body, shell)
        elif isinstance(node, If):
            status = self.run_if(node, shell)
        elif isinstance(node, Loop):
            status = self.run_loop(node, shell)
        elif isinstance(node, Case):
            status = self.run_case(node, shell)
        else:
            shell.functions[node.name] = node.body
            status = OK
        return status

    def subshell(self, node: Node | CommandList, shell: Shell) -> Status:
        """Run in a copy of the shell; ``exit`` ends only the copy, and a loop
        around it is out of reach of ``break`` (bash warns and goes on)."""
        loops, self.loops = self.loops, 0
        try:
            status = self.run_script(node, shell.copy())
        finally:
            self.loops = loops
        return replace(status, exempt=None)

    def run_and_or(self, node: AndOr, shell: Shell) -> Status:
        members = [node.first, *(member for _, member in node.rest)]
        ops = [op for op, _ in node.rest]

        def exemption(index: int) -> Reason:
            op = ops[index]
            following = members[index + 1]
            return Reason(f"`{op.op} {short(following)}`", op.start, following.end)

        status = self.ignoring_while(exemption(0), members[0], shell)
        last_run = 0
        for index, op in enumerate(ops):
            if status.code is None:
                proceed = self.choose(2) == 0
            else:
                proceed = (status.code == 0) == (op.op == "&&")
            if not proceed:
                continue
            member = members[index + 1]
            if op.op == "||" and status.tainted and status.code != 0:
                self.drop(exemption(index))
            if index == len(ops) - 1:
                status = self.run_node(member, shell)
            else:
                status = self.ignoring_while(exemption(index + 1), member, shell)
            last_run = index + 1
        if last_run < len(ops) and status.code != 0 and status.exempt is None:
            status = replace(status, exempt=exemption(last_run))
        return status

    def run_pipeline(self, node: Pipeline, shell: Shell) -> Status:
        bang = None
        if node.bang is not None:
            bang = Reason(f"`! {short(node.commands[0])}`", node.bang.start, node.bang.end)
            self.ignoring.append(bang)
        try:
            if len(node.commands) == 1:
                status = self.run_node(node.commands[0], shell)
            else:
                statuses = [self.subshell(command, shell) for command in node.commands]
                status = statuses[-1]
                if shell.pipefail:
                    failures = [s for s in statuses if s.code != 0]
                    status = failures[-1] if failures else status
                if not status.tainted and any(s.tainted and s.code != 0 for s in statuses):
                    last = node.commands[-1]
                    phrase = f"`| {head(last)}` without pipefail"
                    self.drop(Reason(phrase, node.bars[-1].start, last.end))
        finally:
            if bang is not None:
                self.ignoring.pop()
        if bang is None:
            return status
        if status.tainted and status.code != 0:
            self.drop(bang)
        code = None if status.code is None else int(status.code == 0)
        return Status(code, exempt=bang if code != 0 else None)

    def condition(self, reason: Reason, body: CommandList, shell: Shell) -> tuple[bool, bool]:
        """Run the condition of an ``if``, ``while`` or ``until``, where errexit is
        ignored: whether it holds, and whether it ended with the failure under study."""
        result = self.ignoring_while(reason, body, shell)
        shell.last = result
        failed = result.tainted and result.code != 0
        return (self.choose(2) == 0 if result.code is None else result.code == 0), failed

    def run_if(self, node: If, shell: Shell) -> Status:
        dropped = None
        status = None
        for condition, body, keyword in node.clauses:
            reason = Reason(f"`{keyword.raw}` condition", keyword.start, keyword.end)
            holds, failed = self.condition(reason, condition, shell)
            if failed:
                dropped = reason
            if holds:
                status = self.run_list(body, shell)
                break
        if status is None:
            status = self.run_list(node.orelse, shell) if node.orelse is not None else OK
        if dropped is not None and not status.tainted:
            self.drop(dropped)
        return status

    def run_loop(self, node: Loop, shell: Shell) -> Status:
        """A ``for`` over literal words runs once per word; a ``while``/``until`` whose
        condition the simulation decides (``while true``, ``while [ $i -le 3 ]``) runs
        until it no longer holds, a ``break`` or an ``exit``, up to ``_MAX_ROUNDS``; one
        it cannot decide runs its body once."""
        dropped = None
        status = OK
        rounds = 0
        repeat = False
        limit = min(node.rounds, _MAX_ROUNDS) if node.condition is None else _MAX_ROUNDS
        self.loops += 1
        self.loop_nodes.append(node)
        try:
            while rounds < limit:
                if node.condition is not None:
                    reason = Reason(
                        f"`{node.kind}` condition", node.start, node.start + len(node.kind)
                    )
                    choices = len(self.taken)
                    decided = self.loop_condition(reason, node.condition, shell, rounds > 0)
                    if decided is None:  # a later round's condition depends on the unknown
                        self.capped = True
                        break
                    holds, failed = decided
                    repeat = repeat or (rounds == 0 and len(self.taken) == choices)
                    if failed:
                        dropped = reason
                    if holds != (node.kind == "while"):
                        break
                try:
                    status = self.run_list(node.body, shell)
                except _Continue:
                    status = shell.last
                rounds += 1
                if node.condition is not None and not repeat:
                    break
            else:
                self.capped = self.capped or node.condition is not None
        except _Break:
            status = OK
        finally:
            self.loops -= 1
            self.loop_nodes.pop()
        if dropped is not None and not status.tainted:
            self.drop(dropped)
        return status

    def loop_condition(
        self, reason: Reason, body: CommandList, shell: Shell, again: bool
    ) -> tuple[bool, bool] | None:
        """A loop's condition; in a later round, None when deciding it needs a choice
        (the rounds would multiply the paths)."""
        if not again or self.deciding:
            return self.condition(reason, body, shell)
        self.deciding = True
        try:
            return self.condition(reason, body, shell)
        except _Undecided:
            return None
        finally:
            self.deciding = False

    def run_case(self, node: Case, shell: Shell) -> Status:
        subject = literal(node.subject, shell) if node.subject is not None else None
        patterns_known = all(not p.dynamic for patterns, _ in node.arms for p in patterns)
        chosen: int | None
        if subject is not None and patterns_known:
            chosen = next(
                (
                    index
                    for index, (patterns, _) in enumerate(node.arms)
                    if any(fnmatch.fnmatchcase(subject, p.value) for p in patterns)
                ),
                None,
            )
        else:
            pick = self.choose(len(node.arms) + 1)
            chosen = pick if pick < len(node.arms) else None
        if chosen is None:
            return OK
        return self.run_list(node.arms[chosen][1], shell)

    # -- simple commands

    def run_simple(self, command: Simple, shell: Shell) -> Status:
        substituted = None
        for sub in command.subs:
            inner = shell.copy()
            inner.errexit = False  # bash clears -e in command substitutions
            saved, self.ignoring = self.ignoring, []
            try:
                substituted = self.subshell(sub, inner)
            finally:
                self.ignoring = saved
        words = command.words
        executes = bool(words) and words[0].value == "exec" and len(words) > 1
        if self.ran and id(command) in self.tests:
            self.again = True
        if command is self.target:
            self.ran = True
            self.attempts += 1
            self.retry_loop = self.loop_nodes[-1] if self.loop_nodes else None
            status = Status(1, tainted=True)
            if executes:
                raise _Exit(status)
            return status
        if command.nested is not None:
            status = self.run_nested(command, shell)
            if executes:
                raise _Exit(status)
        elif not words:
            status = assign(command.assigns, shell, substituted)
        else:
            status = self.builtin(command, shell)
        if (
            substituted is not None
            and substituted.tainted
            and substituted.code != 0
            and words
            and not status.tainted
        ):
            self.drop(Reason("`$(...)`", command.start, command.end))
        return status

    def run_nested(self, command: Simple, shell: Shell) -> Status:
        assert command.nested is not None
        if command.nested_shell is None:  # eval: the current shell
            return self.run_list(command.nested, shell)
        errexit, pipefail = command.nested_shell
        child = Shell(errexit, None, pipefail, dict(shell.variables))
        saved, self.ignoring = self.ignoring, []
        try:
            status = self.run_script(command.nested, child)
        finally:
            self.ignoring = saved
        return replace(status, exempt=None)

    def builtin(self, command: Simple, shell: Shell) -> Status:
        words = command.words
        index = 0
        while index < len(words) - 1 and words[index].value in ("command", "builtin", "exec"):
            index += 1
        if words[index].value in ("exec", "command", "builtin"):
            return OK  # exec with only redirections
        if words[0].value == "exec":
            raise _Exit(OK)  # the shell becomes another (succeeding) command
        name = words[index].value
        args = words[index + 1 :]
        counted = arithmetic_command(name)
        if counted is not None or name == "let":
            expressions = [counted] if counted is not None else [w.value for w in args]
            return _arithmetic_status(expressions, shell)
        if words[index].dynamic:  # a command held in a variable: OK=false; ...; $OK
            held = literal(words[index], shell)
            if held is not None and held.split():
                name = held.split()[0]
        if name in ("true", ":"):
            return OK
        if name == "false":
            return Status(1)
        if name == "exit":
            raise _Exit(exit_status(args, shell))
        if name == "return":
            if self.calls:
                raise _Return(exit_status(args, shell))
            return Status(2)  # bash: "can only `return' from a function"
        if name == "set":
            set_options(args, command, shell)
            return OK
        if name == "trap":
            self.trap(args, shell)
            return OK
        if name in ("[", "test", "[["):
            result = evaluate_test([w for w in args if w.value not in ("]", "]]")], shell)
            if result is None:
                result = self.choose(2) == 0
            return OK if result else Status(1)
        if name == "wait":
            return shell.background if args else OK
        if name in ("break", "continue") and not self.loops:
            return OK  # bash warns and goes on
        if name == "break":
            raise _Break
        if name == "continue":
            raise _Continue
        if name in DECLARATIONS:
            assign([w for w in args if ASSIGNMENT.match(w.value)], shell, None)
            return OK
        function = shell.functions.get(name)
        if function is not None:
            return self.call(function, shell)
        return OK

    def trap(self, args: list[Word], shell: Shell) -> None:
        """``trap ACTION ERR`` sets the ERR trap; ``trap - ERR`` or ``trap '' ERR`` clears it."""
        if len(args) < 2 or all(word.value != "ERR" for word in args[1:]):
            return
        action = args[0].value
        if action in ("-", ""):
            shell.err_trap = None
            return
        shell.err_trap = _trap_program(action)

    def call(self, body: Node, shell: Shell) -> Status:
        if self.calls >= _MAX_CALLS:
            return Status(None)
        self.calls += 1
        try:
            return self.run_node(body, shell)
        except _Return as stop:
            return stop.status
        finally:
            self.calls -= 1
