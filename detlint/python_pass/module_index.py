"""One parsed module, indexed for the questions the Python pass asks.

The pass needs the module's imports, its module-level assignments (aliases,
trial constants, ``pytestmark``), its functions (tests, fixtures, helpers,
mark wrappers) and its classes, plus the position of any node it reports.
Parsing once and indexing the top level keeps every later lookup a dict
access instead of another tree walk.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import libcst as cst

from detlint.python_pass.names import ImportMap
from detlint.python_pass.narrowing import Narrowed
from detlint.python_pass.positions import Range, node_positions
from detlint.span import Span


@dataclass
class ModuleIndex:
    """The top level of one module, with positions for every node."""

    path: str
    lines: list[str]
    module: cst.Module
    positions: Mapping[cst.CSTNode, Range]
    narrowed: Narrowed | None = None
    imports: ImportMap = field(default_factory=ImportMap)
    assignments: dict[str, cst.BaseExpression] = field(default_factory=dict)
    pytestmark: list[cst.BaseExpression] = field(default_factory=list)
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    classes: list[cst.ClassDef] = field(default_factory=list)

    def span(self, node: cst.CSTNode) -> Span:
        (line, column), (end_line, end_column) = self.positions[node]
        if self.narrowed is not None:
            line = self.narrowed.original_line(line)
            end_line = self.narrowed.original_line(end_line)
        return Span(self.path, line, column + 1, end_line, end_column + 1)

    def comment_on(self, line: int) -> str:
        """The ``#`` comment on a 1-based line, if any (a rough read: enough for reasons)."""
        if not 1 <= line <= len(self.lines):
            return ""
        return line_comment(self.lines[line - 1])


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


def _assign_targets(statement: cst.BaseSmallStatement) -> list[tuple[str, cst.BaseExpression]]:
    if isinstance(statement, cst.Assign):
        names = [t.target.value for t in statement.targets if isinstance(t.target, cst.Name)]
        return [(name, statement.value) for name in names]
    if (
        isinstance(statement, cst.AnnAssign)
        and isinstance(statement.target, cst.Name)
        and statement.value is not None
    ):
        return [(statement.target.value, statement.value)]
    return []


def _index_statement(index: ModuleIndex, statement: cst.BaseStatement) -> None:
    if isinstance(statement, cst.FunctionDef):
        index.functions[statement.name.value] = statement
    elif isinstance(statement, cst.ClassDef):
        index.classes.append(statement)
    elif isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, cst.Import | cst.ImportFrom):
                index.imports.add(small)
            elif (
                isinstance(small, cst.AugAssign)
                and isinstance(small.target, cst.Name)
                and small.target.value == "pytestmark"
                and isinstance(small.operator, cst.AddAssign)
            ):
                index.pytestmark.append(small.value)
            for name, value in _assign_targets(small):
                if name == "pytestmark":
                    index.pytestmark = [value]
                index.assignments[name] = value
    elif isinstance(statement, cst.If | cst.Try | cst.With):
        # Imports and definitions guarded by `if`/`try` (e.g. optional plugins)
        # still define names; read every branch.
        for block in _blocks(statement):
            for inner in block:
                _index_statement(index, inner)


def _blocks(statement: cst.If | cst.Try | cst.With) -> list[list[cst.BaseStatement]]:
    blocks: list[list[cst.BaseStatement]] = []
    if isinstance(statement.body, cst.IndentedBlock):
        blocks.append(list(statement.body.body))
    if isinstance(statement, cst.If) and statement.orelse is not None:
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            blocks += _blocks(orelse)
        elif isinstance(orelse.body, cst.IndentedBlock):
            blocks.append(list(orelse.body.body))
    if isinstance(statement, cst.Try):
        for handler in statement.handlers:
            if isinstance(handler.body, cst.IndentedBlock):
                blocks.append(list(handler.body.body))
    return blocks


def index_module(path: str, text: str, narrowed: Narrowed | None = None) -> ModuleIndex:
    """Parse ``text`` (or only its kept blocks) and index the top level.

    Raises ``cst.ParserSyntaxError``.
    """
    module = cst.parse_module(narrowed.text if narrowed is not None else text)
    index = ModuleIndex(
        path=path,
        lines=text.splitlines(),
        module=module,
        positions=node_positions(module),
        narrowed=narrowed,
    )
    for statement in module.body:
        _index_statement(index, statement)
    return index
