"""How much each part of a parsed script can matter to the exit-status interpreter.

The interpreter (``simulation.py``) follows both branches of every condition
it cannot decide, which doubles the paths per condition; CI scripts are full of
``if [ -n "$CI" ]; then echo ...; fi`` that cannot change whether pytest's
failure reaches the exit status. ``Analysis`` grades every subtree once per
script (``kind``), so that a simulation can step over the ones that cannot
matter, and records what every simulation of the script reuses: the parent
links (to find what encloses the run under study) and the names of the
functions the script defines.
"""

from __future__ import annotations

from detlint.readers.ci.shell.lexer import DECLARATIONS
from detlint.readers.ci.shell.nodes import (
    AndOr,
    Case,
    CommandList,
    Function,
    Group,
    If,
    Loop,
    Node,
    Parent,
    Pipeline,
    Simple,
    Subshell,
    children,
)

# How much running a subtree can matter to the simulation, from least to most.
QUIET = 0  # always status 0, changes nothing
SAFE = 1  # status 0 or a failure errexit ignores (``[ -n "$X" ] && echo x``), changes nothing
PURE = 2  # any status, changes nothing (``[ -f x ]``)
EFFECT = 3  # may exit, return, break, set options, assign, define or call functions...

_EFFECT_COMMANDS = frozenset(
    (
        *("exit", "return", "break", "continue", "set", "exec", "eval", "wait", "trap"),
        *("source", ".", "unset", "read", "shift", "shopt", "alias", "let", "command"),
        *("builtin", *DECLARATIONS),
    )
)
_STATUS_COMMANDS = frozenset({"[", "test", "[[", "false"})


class Analysis:
    """Facts about a parsed script that every simulation of it reuses: parents
    (to find what encloses a run), the functions it defines, and how much each
    subtree can matter (so a simulation can step over an ``if [ -n "$X" ];
    then echo ...; fi`` instead of following both of its branches)."""

    def __init__(self, program: CommandList) -> None:
        self.parents: dict[int, Parent] = {}
        self.functions: set[str] = set()
        self.kinds: dict[int, int] = {}
        stack: list[Parent] = [program]
        while stack:
            parent = stack.pop()
            if isinstance(parent, Function):
                self.functions.add(parent.name)
            for child in children(parent):
                self.parents[id(child)] = parent
                stack.append(child)

    def enclosing(self, target: Simple) -> set[int]:
        """The ids of ``target`` and of every node and list around it."""
        found = {id(target)}
        current: Parent = target
        while id(current) in self.parents:
            current = self.parents[id(current)]
            found.add(id(current))
        return found

    def kind(self, node: Node | CommandList) -> int:
        known = self.kinds.get(id(node))
        if known is None:
            known = self.kinds[id(node)] = self._kind(node)
        return known

    def _kind(self, node: Node | CommandList) -> int:
        if isinstance(node, CommandList):
            kinds = [
                min(self.kind(item), PURE) if background is not None else self.kind(item)
                for item, background in node.items
            ]
            if any(kind > SAFE for kind in kinds[:-1]) or (kinds and kinds[-1] == EFFECT):
                return EFFECT
            return kinds[-1] if kinds else QUIET
        if isinstance(node, Simple):
            return self._simple_kind(node)
        if isinstance(node, Pipeline):
            worst = max(self.kind(command) for command in node.commands)
            if worst == EFFECT:
                return EFFECT
            if node.bang is not None:
                return SAFE
            return QUIET if worst == QUIET else PURE
        if isinstance(node, AndOr):
            members = [node.first, *(member for _, member in node.rest)]
            if any(self.kind(member) == EFFECT for member in members):
                return EFFECT
            final = self.kind(members[-1])
            if final == QUIET and all(op.op == "||" for op, _ in node.rest):
                return QUIET
            return SAFE if final <= SAFE else PURE
        if isinstance(node, Subshell):
            body = self.kind(node.body)
            return body if body in (QUIET, EFFECT) else PURE
        if isinstance(node, Group):
            return self.kind(node.body)
        if isinstance(node, If):
            parts = [self.kind(condition) for condition, _, _ in node.clauses]
            if EFFECT in parts:
                return EFFECT
            bodies = [body for _, body, _ in node.clauses]
            if node.orelse is not None:
                bodies.append(node.orelse)
            return max(self.kind(body) for body in bodies)
        if isinstance(node, Loop):
            if node.condition is not None and self.kind(node.condition) == EFFECT:
                return EFFECT
            return self.kind(node.body)
        if isinstance(node, Case):
            return max((self.kind(body) for _, body in node.arms), default=QUIET)
        return EFFECT  # a function definition

    def _simple_kind(self, command: Simple) -> int:
        if command.nested is not None or not command.words:
            return EFFECT
        name = command.words[0].value
        if name in _EFFECT_COMMANDS or name in self.functions or command.words[0].dynamic:
            return EFFECT
        if any(self.kind(sub) == EFFECT for sub in command.subs):
            return EFFECT
        return PURE if name in _STATUS_COMMANDS else QUIET
