"""One parsed module, indexed for the questions the Python pass asks.

The pass needs the module's imports, its module-level assignments (aliases,
trial constants, ``pytestmark``), its functions (tests, fixtures, helpers,
mark wrappers) and its classes, plus the position of any node it reports.
Parsing once and indexing the top level keeps every later lookup a dict
access instead of another tree walk.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field

from detlint.base.span import Span
from detlint.readers.python.constants import Constants
from detlint.readers.python.facts import ArgValue, Dynamic
from detlint.readers.python.guards import negated, quoted
from detlint.readers.python.locations import Arg, Code, call_args
from detlint.readers.python.names import NOT_LITERAL, ImportMap, NotLiteral, literal
from detlint.readers.python.narrowed import Narrowed
from detlint.readers.python.parse import parse
from detlint.readers.python.walk import NodeT, of_kind, walk

Function = ast.FunctionDef | ast.AsyncFunctionDef


# A function definition in a module's text, by name.
_DEF = re.compile(r"\bdef\s+(\w+)\s*\(")


@dataclass
class ModuleIndex:
    """The top level of one module, and where its nodes sit in the file."""

    path: str
    source: str  # the whole file, also when only its narrowed text was parsed
    module: ast.Module
    code: Code
    narrowed: Narrowed | None = None
    imports: ImportMap = field(default_factory=ImportMap)
    assignments: dict[str, ast.expr] = field(default_factory=dict)
    pytestmark: list[ast.expr] = field(default_factory=list)
    functions: dict[str, Function] = field(default_factory=dict)
    classes: list[ast.ClassDef] = field(default_factory=list)
    # A name defined in more than one branch of an ``if``/``try`` at the top level
    # (``skip_rocm = pytest.mark.skip(...)`` in one, ``lambda f: f`` in the other):
    # each definition with the guard of its branch. A name defined in one branch
    # only is not here: a module that uses it fails to import where it is missing.
    alternatives: dict[str, list[tuple[ast.expr | Function, str]]] = field(default_factory=dict)
    # Imported names the module binds again at its top level: what each was imported as,
    # which is what the name means inside its own new value (``flaky = flaky(...)``).
    shadowed: dict[str, str] = field(default_factory=dict)
    # The guard of each module-level ``pytestmark`` assignment, when it sits in a branch.
    pytestmark_guards: dict[int, str] = field(default_factory=dict)
    _bodies: dict[int, list[ast.AST]] = field(default_factory=dict)
    # The module's own fixtures, found once (``fixtures.fixtures_of`` asks for each test).
    fixtures: list[tuple[str, Function]] | None = None

    def _span(self, start: int, end: int) -> Span:
        line, column = self.code.position(start)
        end_line, end_column = self.code.position(end)
        if self.narrowed is not None:
            line = self.narrowed.original_line(line)
            end_line = self.narrowed.original_line(end_line)
        return Span(self.path, line, column + 1, end_line, end_column + 1)

    def span(self, node: ast.expr) -> Span:
        """The span of an expression, without the parentheses around it."""
        return self._span(*self.code.expression(node))

    def original_line(self, line: int) -> int:
        """A line of the parsed text as a line of the file (narrowing drops lines)."""
        return self.narrowed.original_line(line) if self.narrowed is not None else line

    def text(self, node: ast.AST) -> str:
        """The code of an expression (or a statement's first line) as written."""
        if isinstance(node, ast.expr):
            start, end = self.code.expression(node)
        elif isinstance(node, ast.stmt | ast.pattern):
            start, end = self.code.start(node), self.code.end(node)  # type: ignore[arg-type]
        else:
            return ast.unparse(node)
        return self.code.text[start:end]

    def name_span(self, function: Function) -> Span:
        return self._span(*self.code.name(function))

    def arguments(self, call: ast.Call) -> list[tuple[Arg, Span, ArgValue]]:
        """Each argument of ``call`` but star arguments, with its span and its
        value: the literal, or ``Dynamic`` with the code as written."""
        args = call_args(call)
        found: list[tuple[Arg, Span, ArgValue]] = []
        for arg, (start, value_start, end) in zip(
            args, self.code.arguments(call, args), strict=True
        ):
            if arg.star:
                continue
            value = literal(arg.value)
            if isinstance(value, NotLiteral):
                value = self._constant(arg.value)
            if isinstance(value, NotLiteral):
                source = self.code.source(value_start, end, self.module)
                value = Dynamic(source, self._returned(arg.value))
            found.append((arg, self._span(start, end), value))
        return found

    def _returned(self, node: ast.expr) -> str:
        """A module-level function named by ``node``, as the lambda it amounts to when
        its body is one ``return`` after calls made for their effect (a ``time.sleep``
        before rerunning, a log line); "" otherwise, or when the name is defined in
        branches."""
        if not isinstance(node, ast.Name) or node.id in self.alternatives:
            return ""
        function = self.functions.get(node.id)
        if function is None or not function.body:
            return ""
        *effects, last = function.body
        if not isinstance(last, ast.Return) or last.value is None:
            return ""
        for statement in effects:
            if not isinstance(statement, ast.Expr) or not isinstance(
                statement.value, ast.Call | ast.Constant
            ):
                return ""
        return ast.unparse(ast.Lambda(args=function.args, body=last.value))

    def _constant(self, node: ast.expr) -> ArgValue | NotLiteral:
        """The value of an argument written with module constants (``RERUNS = 3`` then
        ``reruns=RERUNS``; ``_IS_SYNC = False`` then ``skipif(not _IS_SYNC)``)."""
        if not self.constants.names_constant(node):
            return NOT_LITERAL
        return self.constants.evaluate(node)

    @functools.cached_property
    def constants(self) -> Constants:
        return Constants(self.source, self.assignments, self.alternatives)

    def body(self, function: Function, kinds: type[NodeT] | tuple[type[NodeT], ...]) -> list[NodeT]:
        """The nodes of ``kinds`` in a function's body, in walk order.

        A test's body is searched for loops, calls and returns, and a helper's
        for every test that calls it: the walk is made once per function.
        """
        nodes = self._bodies.get(id(function))
        if nodes is None:
            nodes = self._bodies[id(function)] = walk(function.body)
        return of_kind(nodes, kinds)

    @functools.cached_property
    def lines(self) -> list[str]:
        return self.source.splitlines()

    @functools.cached_property
    def defined_names(self) -> frozenset[str]:
        """The names of every ``def`` in the module's text, also those a narrowed parse
        left out: one search of the text, however many names are asked about."""
        return frozenset(_DEF.findall(self.source))

    def comment_on(self, line: int) -> str:
        """The ``#`` comment on a 1-based line, if any (a rough read: enough for reasons)."""
        if not 1 <= line <= len(self.lines):
            return ""
        return line_comment(self.lines[line - 1])

    def is_block(self, body: list[ast.stmt]) -> bool:
        """Whether a body is an indented block, not statements after the colon
        (``class TestA: pass``), which hold no tests or marks worth reading."""
        if not body:
            return False
        first = body[0]
        line = self.code.line_text(first.lineno)
        if line.encode("utf-8", "surrogatepass")[: first.col_offset].strip(b" \t\x0c"):
            return False
        previous = self.code.line_text(first.lineno - 1) if first.lineno > 1 else ""
        return not previous.rstrip("\r\n").endswith("\\")


def line_comment(text: str) -> str:
    """The comment at the end of one line of code, skipping ``#`` inside string literals."""
    quote = ""
    escaped = False
    for position, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            return text[position + 1 :].strip()
    return ""


def _assign_targets(statement: ast.stmt) -> list[tuple[str, ast.expr]]:
    if isinstance(statement, ast.Assign):
        names = [target.id for target in statement.targets if isinstance(target, ast.Name)]
        return [(name, statement.value) for name in names]
    if (
        isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and statement.value is not None
    ):
        return [(statement.target.id, statement.value)]
    return []


Guarded = ast.If | ast.Try | ast.With | ast.AsyncWith


def _index_statement(
    index: ModuleIndex, statement: ast.stmt, guard: str | None = None, marks: str | None = None
) -> None:
    """Index one top-level statement (or one in a branch, under ``guard``); ``marks`` is
    the guard on a module ``pytestmark`` assigned there (see ``_mark_branches``)."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
        index.functions[statement.name] = statement
        _note_definition(index, statement.name, statement, guard)
        _shadow_import(index, statement.name, None, guard)
    elif isinstance(statement, ast.ClassDef):
        index.classes.append(statement)
    elif isinstance(statement, ast.Import | ast.ImportFrom):
        index.imports.add(statement)
    elif isinstance(statement, Guarded):
        # Imports and definitions guarded by `if`/`try` (e.g. optional plugins)
        # still define names; read every branch, noting which one each is in.
        blocks = _blocks(index, statement)
        for (block, branch), mark_branch in zip(
            blocks, _mark_branches(statement, blocks), strict=True
        ):
            for inner in block:
                _index_statement(index, inner, _and(guard, branch), _and(marks, mark_branch))
    else:
        if (
            isinstance(statement, ast.AugAssign)
            and isinstance(statement.target, ast.Name)
            and statement.target.id == "pytestmark"
            and isinstance(statement.op, ast.Add)
        ):
            _add_pytestmark(index, statement.value, marks, replace=False)
        for name, value in _assign_targets(statement):
            if name == "pytestmark":
                _add_pytestmark(index, value, marks, replace=True)
            index.assignments[name] = value
            _note_definition(index, name, value, guard)
            _shadow_import(index, name, value, guard)
            index.imports.add_assignment(name, value)


def _and(guard: str | None, branch: str | None) -> str | None:
    return guard if branch is None else branch if guard is None else f"{guard} and {branch}"


def _mark_branches(
    statement: Guarded, blocks: list[tuple[list[ast.stmt], str | None]]
) -> list[str | None]:
    """The guard on a ``pytestmark`` in each block: its branch's, but for the body of a
    ``try:`` none of whose handlers assign one. That body is taken to run, as in a test
    body (``guards``): ``try: import numpy; pytestmark = ...`` marks wherever the
    module's tests run at all."""
    branches = [branch for _, branch in blocks]
    if not isinstance(statement, ast.Try) or not blocks or blocks[0][0] is not statement.body:
        return branches
    handlers = [inner for handler in statement.handlers for inner in handler.body]
    if not any(_binds_pytestmark(inner) for inner in handlers):
        branches[0] = None
    return branches


def _binds_pytestmark(statement: ast.stmt) -> bool:
    return any(
        isinstance(node, ast.Name) and node.id == "pytestmark" and isinstance(node.ctx, ast.Store)
        for node in ast.walk(statement)
    )


def _add_pytestmark(index: ModuleIndex, value: ast.expr, guard: str | None, replace: bool) -> None:
    """A module ``pytestmark`` assigned (``replace``) or extended (``+=``) under ``guard``.

    An assignment at the top level replaces every earlier one; one in a branch of an
    ``if`` or ``try`` replaces only what an earlier statement of that same branch
    assigned, so that each branch's marks apply under its own condition (``if win:
    pytestmark = skip`` then ``else: pytestmark = flaky``).
    """
    if replace:
        if guard is None:
            index.pytestmark = []
        else:
            index.pytestmark = [
                kept for kept in index.pytestmark if index.pytestmark_guards.get(id(kept)) != guard
            ]
    index.pytestmark.append(value)
    if guard is not None:
        index.pytestmark_guards[id(value)] = guard


def _shadow_import(
    index: ModuleIndex, name: str, value: ast.expr | None, guard: str | None
) -> None:
    """A name the module binds at its top level after importing it is its own from
    there on (``from .util import cases`` then ``cases = pytest.mark.parametrize(...)``):
    the import no longer says what it stands for, but inside the new value it still
    does (``flaky = flaky(max_runs=3)``). A binding in one branch leaves the import to
    the others."""
    if guard is None and name in index.imports.names:
        index.shadowed[name] = index.imports.names.pop(name)


def _note_definition(
    index: ModuleIndex, name: str, value: ast.expr | Function, guard: str | None
) -> None:
    """Keep every branch's definition of a name defined under a guard."""
    found = index.alternatives.get(name)
    if guard is None:
        if found is not None:
            del index.alternatives[name]  # redefined unconditionally: the last one wins
        return
    if found is None:
        found = index.alternatives[name] = []
    found.append((value, guard))


def _blocks(index: ModuleIndex, statement: Guarded) -> list[tuple[list[ast.stmt], str | None]]:
    """The indented blocks of an ``if`` (with its ``elif``s and ``else``), a
    ``try`` (with its ``except`` clauses) or a ``with``, each with the guard
    under which it runs (None for the ones that always run)."""
    blocks: list[tuple[list[ast.stmt], str | None]] = []
    if isinstance(statement, ast.If):
        return _if_blocks(index, statement)
    if isinstance(statement, ast.Try):
        if index.is_block(statement.body):
            blocks.append(
                (
                    statement.body,
                    f"the `try:` on line {index.original_line(statement.lineno)} succeeds",
                )
            )
        for handler in statement.handlers:
            if index.is_block(handler.body):
                raised = (
                    f"{quoted(index.text(handler.type))} is raised"
                    if handler.type is not None
                    else "an exception is raised"
                )
                blocks.append(
                    (handler.body, f"{raised} on line {index.original_line(statement.lineno)}")
                )
        return blocks
    if index.is_block(statement.body):
        blocks.append((statement.body, None))
    return blocks


def _if_blocks(index: ModuleIndex, statement: ast.If) -> list[tuple[list[ast.stmt], str | None]]:
    """The blocks of an ``if`` and its ``elif``s and ``else``, each under its condition;
    a condition the module's constants decide leaves only the branch that runs, with
    no guard (``IS_CI = True`` then ``if IS_CI: skip_here = pytest.mark.skip``)."""
    blocks: list[tuple[list[ast.stmt], str | None]] = []
    known = index.constants.truth(statement.test)
    condition = index.text(statement.test)
    if known is not False and index.is_block(statement.body):
        blocks.append((statement.body, None if known else quoted(condition)))
    orelse = statement.orelse
    if not orelse or known is True:
        return blocks
    otherwise = None if known is False else negated(condition)
    first = orelse[0]
    if (
        len(orelse) == 1
        and isinstance(first, ast.If)
        and index.code.text.startswith("elif", index.code.start(first))
    ):
        blocks += [(block, _and(otherwise, guard)) for block, guard in _blocks(index, first)]
    elif index.is_block(orelse):
        blocks.append((orelse, otherwise))
    return blocks


def index_module(path: str, text: str, narrowed: Narrowed | None = None) -> ModuleIndex:
    """Parse ``text`` (or only its kept blocks) and index the top level.

    Raises what :func:`~detlint.readers.python.parse.parse` raises.
    """
    parsed = narrowed.text if narrowed is not None else text
    module = parse(parsed)
    index = ModuleIndex(
        path=path,
        source=text,
        module=module,
        code=Code(parsed),
        narrowed=narrowed,
    )
    for statement in module.body:
        _index_statement(index, statement)
    return index
