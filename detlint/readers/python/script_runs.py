"""The ``pytest.main(...)`` a test module makes on itself when it is run as a script.

Many test files end with::

    if __name__ == "__main__":
        sys.exit(pytest.main(["-v", "--reruns", "3", __file__]))

so that ``python test_x.py`` runs their tests, and Bazel's ``py_test`` runs a test
file exactly so. The arguments of that call then act on every test of the file as a
command line would. They are read here, never run: a list written in the call, a name
bound to one in the same function or at the module's top level, lists joined with
``+`` or unpacked with ``*``. An element detlint cannot read is kept as written and
marked; a joined part it cannot read at all (``sys.argv[1:]``, a parameter) is kept
as written too, never guessed.

Only the ``__main__`` block counts, with the module's own functions it calls (a
``main()`` that builds the list): a ``pytest.main`` anywhere else (in a test, a
fixture or a helper the tests call) starts another pytest session inside the test run,
on tests of its own. A call whose arguments name neither ``__file__`` nor the
module's own file name runs other tests, and is not this file's run either.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from detlint.readers.python.facts import ScriptRun
from detlint.readers.python.module_index import ModuleIndex
from detlint.readers.python.names import dotted, literal

_MAIN = "__main__"
_DEPTH = 4  # names followed to the list they are bound to, at most
# Methods that change a list in place: a name changed so is not the list it was bound to.
_MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "clear"})


def may_run_itself(source: str) -> bool:
    """Whether the module may run pytest on itself (cheap, before any tree is walked)."""
    return _MAIN in source


def script_runs(index: ModuleIndex) -> tuple[ScriptRun, ...]:
    """The ``pytest.main`` calls of the module's ``__main__`` block (and of the module's
    functions it calls) whose arguments name the module itself."""
    if not may_run_itself(index.source):
        return ()
    filename = index.path.rsplit("/", 1)[-1]
    found: list[ScriptRun] = []
    for block in _main_blocks(index.module):
        for call, scope in _pytest_calls(index, block):
            argument = _args_of(call)
            if argument is None:
                continue  # pytest.main() reads sys.argv: whatever the caller passes
            words = _Reader(index, scope, call.lineno, filename).read(argument)
            if words.names_file:
                found.append(
                    ScriptRun(
                        index.span(call),
                        tuple(words.words),
                        tuple(words.dynamic),
                        tuple(dict.fromkeys(words.unread)),
                    )
                )
    return tuple(found)


def _main_blocks(module: ast.Module) -> Iterator[list[ast.stmt]]:
    for statement in module.body:
        if isinstance(statement, ast.If) and _is_main_test(statement.test):
            yield statement.body


def _is_main_test(test: ast.expr) -> bool:
    """``__name__ == "__main__"``, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = (test.left, test.comparators[0])
    names = [side for side in sides if isinstance(side, ast.Name) and side.id == "__name__"]
    mains = [side for side in sides if isinstance(side, ast.Constant) and side.value == _MAIN]
    return len(names) == 1 and len(mains) == 1


def _pytest_calls(
    index: ModuleIndex, block: list[ast.stmt]
) -> Iterator[tuple[ast.Call, list[ast.stmt]]]:
    """Each ``pytest.main`` call the block makes, with the statements of the body it is
    written in (to find what a name in its arguments is bound to); the module's
    functions the block calls are followed, each once."""
    pending = [block]
    seen: set[str] = set()
    while pending:
        body = pending.pop(0)
        for node in (inner for statement in body for inner in ast.walk(statement)):
            if not isinstance(node, ast.Call):
                continue
            if _is_pytest_main(index, node.func):
                yield node, body
            elif isinstance(node.func, ast.Name) and node.func.id not in seen:
                function = index.functions.get(node.func.id)
                if function is not None:
                    seen.add(node.func.id)
                    pending.append(function.body)


def _is_pytest_main(index: ModuleIndex, func: ast.expr) -> bool:
    """``pytest.main``, also through ``import pytest as pt`` or ``from pytest import main``."""
    return dotted(func) == "pytest.main" or index.imports.qualify(func) == "pytest.main"


def _args_of(call: ast.Call) -> ast.expr | None:
    if call.args:
        first = call.args[0]
        return None if isinstance(first, ast.Starred) else first
    return next((keyword.value for keyword in call.keywords if keyword.arg == "args"), None)


@dataclass
class _Words:
    """An argument list as far as it can be read."""

    words: list[str] = field(default_factory=list)
    dynamic: list[bool] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)
    names_file: bool = False

    def add(self, word: str, dynamic: bool = False) -> None:
        self.words.append(word)
        self.dynamic.append(dynamic)

    def extend(self, other: _Words) -> None:
        self.words += other.words
        self.dynamic += other.dynamic
        self.unread += other.unread
        self.names_file = self.names_file or other.names_file


@dataclass
class _Reader:
    """Reads one call's argument list; ``scope`` is the body the call is written in."""

    index: ModuleIndex
    scope: list[ast.stmt]
    line: int  # the call's line: a name is taken as last bound before it
    filename: str

    def read(self, node: ast.expr, depth: int = 0) -> _Words:
        words = _Words()
        if isinstance(node, ast.List | ast.Tuple):
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    words.extend(self.read(element.value, depth))
                else:
                    self._element(element, words)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            words.extend(self.read(node.left, depth))
            words.extend(self.read(node.right, depth))
        elif isinstance(node, ast.Name) and depth < _DEPTH:
            bound = self._bound(node.id)
            if bound is None:
                words.unread.append(node.id)
            else:
                words.extend(self.read(bound, depth + 1))
                changes = self._changes(node.id)
                words.unread += [self.index.text(change) for change in changes]
                words.names_file = words.names_file or any(map(_mentions_file, changes))
        else:
            words.unread.append(self.index.text(node))
        words.names_file = words.names_file or _mentions_file(node)
        return words

    def _element(self, node: ast.expr, words: _Words) -> None:
        value = self._string(node)
        if value is not None:
            words.add(value)
            if value == self.filename or value.endswith("/" + self.filename):
                words.names_file = True
        elif isinstance(node, ast.JoinedStr):
            # ``f"--reruns={RERUNS}"``: the option is read, its value is not.
            text = literal(node)
            words.add(text if isinstance(text, str) else self.index.text(node), dynamic=True)
        else:
            words.add(self.index.text(node), dynamic=not _mentions_file(node))

    def _string(self, node: ast.expr) -> str | None:
        """A string element's value: a literal, an f-string of constants, or a module
        constant; None for anything else."""
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.JoinedStr):
            parts = [self._string(_formatted(piece)) for piece in node.values]
            if all(part is not None for part in parts):
                return "".join(part for part in parts if part is not None)
            return None
        if isinstance(node, ast.Name) and self.index.constants.names_constant(node):
            value = self.index.constants.evaluate(node)
            return str(value) if isinstance(value, str | int) else None
        return None

    def _bound(self, name: str) -> ast.expr | None:
        """The value ``name`` was last bound to before the call: in the call's own body,
        else at the module's top level (a name bound more than once there is not read)."""
        found = None
        for statement in self.scope:
            if statement.lineno >= self.line:
                break
            for target, value in _assignments(statement):
                if target == name:
                    found = value
        if found is not None:
            return found
        bindings = [
            value
            for statement in self.index.module.body
            for target, value in _assignments(statement)
            if target == name
        ]
        return bindings[0] if len(bindings) == 1 else None

    def _changes(self, name: str) -> list[ast.AugAssign | ast.Call]:
        """Where the call's body changes the list ``name`` holds in place or adds to it
        (``args += [...]``, ``args.append(__file__)``)."""
        return [
            node
            for node in (inner for statement in self.scope for inner in ast.walk(statement))
            if (isinstance(node, ast.AugAssign) and _is_name(node.target, name))
            or (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _MUTATORS
                and _is_name(node.func.value, name)
            )
        ]


def _formatted(piece: ast.expr) -> ast.expr:
    """A piece of an f-string: a constant part, or the expression of a replacement field
    (without conversion or format spec: one with either is not read)."""
    if isinstance(piece, ast.FormattedValue):
        if piece.conversion != -1 or piece.format_spec is not None:
            return piece
        return piece.value
    return piece


def _assignments(statement: ast.stmt) -> list[tuple[str, ast.expr]]:
    if isinstance(statement, ast.Assign):
        return [
            (target.id, statement.value)
            for target in statement.targets
            if isinstance(target, ast.Name)
        ]
    if (
        isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and statement.value is not None
    ):
        return [(statement.target.id, statement.value)]
    return []


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _mentions_file(node: ast.AST) -> bool:
    """Whether ``__file__`` is part of an expression (``__file__``,
    ``os.path.basename(__file__)``, ``__file__ + "::TestA"``)."""
    return any(isinstance(inner, ast.Name) and inner.id == "__file__" for inner in ast.walk(node))
