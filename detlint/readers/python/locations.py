"""Where the nodes of an ``ast`` tree sit in the text, counted as spans count.

``ast`` gives each node a 1-based line and a 0-based column in UTF-8 bytes;
spans count columns in characters, so columns of non-ASCII lines go through
the line's text. A span covers a construct as written, without the
parentheses that only wrap it: ``ast`` already leaves them out of most
nodes, but keeps them on a parenthesized tuple and a generator expression,
and leaves them out of a call argument, where they are part of what was
written (``f((a + b))``). What is scanned here is the text between the
tokens of a node (whitespace, comments, commas, parentheses), and, in the
code of a value that spans lines, which line breaks sit inside strings.
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass

from detlint.base.line_index import LineIndex

Position = tuple[int, int]  # 1-based line, 0-based column in characters

_NEWLINE = re.compile(r"\r\n?|\n")
_SPACE = " \t\x0c"
# String literals (any prefix) and comments, to tell a line break inside a
# string from one between tokens; neither takes the "\r" of a "\r\n".
_STRINGS = re.compile(
    r'"""(?:\\.|[^\\])*?"""'
    r"|'''(?:\\.|[^\\])*?'''"
    r'|"(?:\\.|[^"\\\r\n])*"'
    r"|'(?:\\.|[^'\\\r\n])*'"
    r"|#[^\r\n]*",
    re.DOTALL,
)
# Characters that cannot be part of a name: where a keyword or a def's name ends.
_NOT_NAME = frozenset(" \t\x0c\\\r\n#=([:,)")


# Nodes with a position.
Located = ast.expr | ast.stmt | ast.keyword


@dataclass(frozen=True)
class Arg:
    """One argument of a call, in the order written.

    ``ast`` keeps positional and keyword arguments in two lists; the order
    matters (the first argument of ``applymarker`` or ``int``), so calls are
    read through this one list. ``node`` is the ``keyword`` or ``Starred``
    node when there is one, else the value itself.
    """

    value: ast.expr
    keyword: str | None
    star: str  # "", "*" or "**"
    node: ast.expr | ast.keyword


def call_args(call: ast.Call) -> list[Arg]:
    """The arguments of ``call`` in source order."""
    args = [
        Arg(arg.value, None, "*", arg) if isinstance(arg, ast.Starred) else Arg(arg, None, "", arg)
        for arg in call.args
    ]
    if not call.keywords:
        return args
    keywords = [
        Arg(item.value, item.arg, "" if item.arg is not None else "**", item)
        for item in call.keywords
    ]
    if not any(arg.star for arg in args):
        return args + keywords  # plain positional arguments always come first
    return sorted(args + keywords, key=lambda arg: (arg.node.lineno, arg.node.col_offset))


class Code:
    """The text a tree was parsed from, with the conversions its positions need."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._ascii = text.isascii()
        # \r, \n and \r\n end a line, as for the parser (``str.splitlines``
        # knows more line ends).
        self.lines = LineIndex(text, universal=True)

    def line_text(self, line: int) -> str:
        return self.text[self.lines.line_start(line) : self.lines.line_end(line)]

    def offset(self, line: int, byte_column: int) -> int:
        """The character offset of an ``ast`` position."""
        start = self.lines.line_start(line)
        if self._ascii:
            return start + byte_column
        text = self.line_text(line)
        if text.isascii():
            return start + byte_column
        prefix = text.encode("utf-8", "surrogatepass")[:byte_column]
        return start + len(prefix.decode("utf-8", "replace"))

    def position(self, offset: int) -> Position:
        line, column = self.lines.position(offset)
        return line, column - 1

    def start(self, node: Located) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end(self, node: Located) -> int:
        """Where a node ends (the parser sets the end of every node it makes)."""
        end_line, end_column = node.end_lineno, node.end_col_offset
        return self.offset(end_line or node.lineno, end_column or 0)

    def skip(self, offset: int) -> int:
        """The offset of the next token: past whitespace, newlines, line
        continuations and comments (all that can sit between two tokens)."""
        text = self.text
        size = len(text)
        while offset < size:
            char = text[offset]
            if char in _SPACE or char in "\r\n":
                offset += 1
            elif char == "\\" and text.startswith(("\n", "\r"), offset + 1):
                offset += 2
            elif char == "#":
                while offset < size and text[offset] not in "\r\n":
                    offset += 1
            else:
                break
        return offset

    # -- ranges ------------------------------------------------------------

    def expression(self, node: ast.expr) -> tuple[int, int]:
        """(start, end) offsets of an expression without the parentheses around it."""
        start, end = self.start(node), self.end(node)
        if isinstance(node, ast.GeneratorExp):
            last = node.generators[-1]
            return self._inside(start, end, (last.ifs or [last.iter])[-1])
        if isinstance(node, ast.Tuple) and self.parenthesized(node):
            return self._inside(start, end, node.elts[-1] if node.elts else None)
        return start, end

    def parenthesized(self, node: ast.Tuple) -> bool:
        """Whether the tuple's own parentheses are part of its ``ast`` range:
        ``(a, b)`` and ``()`` have them, ``(a), (b)`` does not."""
        start = self.start(node)
        if self.text[start] != "(":
            return False
        if not node.elts:
            return True
        # Between the tuple's start and its first item there are only comments and
        # opening parentheses; those the first item closes before its comma are its own.
        first, opened = self.start(node.elts[0]), 0
        offset = self.skip(start)
        while offset < first and self.text[offset] == "(":
            opened += 1
            offset = self.skip(offset + 1)
        offset = self.end(node.elts[0])
        while True:
            offset = self.skip(offset)
            if self.text[offset] != ")":
                return opened == 1
            opened -= 1
            offset += 1

    def _inside(self, start: int, end: int, last: ast.expr | None) -> tuple[int, int]:
        """The range within the parentheses at ``start`` and ``end - 1``: from the
        first token inside to the end of ``last``, with its own parentheses and a
        trailing comma."""
        close = end - 1
        inner_start = self.skip(start + 1)
        if last is None:
            return inner_start, inner_start
        inner_end = self._past_parentheses(self.end(last), close)
        following = self.skip(inner_end)
        if following < close and self.text[following] == ",":
            inner_end = following + 1
        return inner_start, inner_end

    def _past_parentheses(self, offset: int, close: int) -> int:
        """``offset`` moved past the closing parentheses that wrap the item ending
        there, stopping before the enclosing bracket at ``close``."""
        while True:
            following = self.skip(offset)
            if following >= close or self.text[following] != ")":
                return offset
            offset = following + 1

    def name(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
        """(start, end) offsets of a function's name (``ast`` has no node for it)."""
        offset = self.start(function)
        if isinstance(function, ast.AsyncFunctionDef):
            offset = self.skip(offset + len("async"))
        start = self.skip(offset + len("def"))
        return start, self._name_end(start)

    def _name_end(self, offset: int) -> int:
        text = self.text
        while offset < len(text) and text[offset] not in _NOT_NAME:
            offset += 1
        return offset

    def arguments(self, call: ast.Call, args: list[Arg]) -> list[tuple[int, int, int]]:
        """(start, value start, end) offsets of each argument as written: a
        keyword argument with its name, a value with the parentheses around it."""
        text = self.text
        close = self.end(call) - 1
        if len(args) == 1 and isinstance(args[0].value, ast.GeneratorExp):
            value = args[0].value
            if self.end(value) == close + 1:  # f(x for x in y): the call's parentheses
                start, end = self.expression(value)
                return [(start, start, end)]
        delimiter = self.skip(self.end(call.func))
        while text[delimiter] == ")":  # the callee's own parentheses: (f)(x)
            delimiter = self.skip(delimiter + 1)
        found = []
        for arg in args:
            # After the call's "(" or the previous argument's comma.
            start = value_start = self.skip(delimiter + 1)
            if arg.node is arg.value:
                end = self._past_parentheses(self.end(arg.value), close)
            else:
                end = self.end(arg.node)
                if arg.keyword is not None:
                    value_start = self.skip(self.skip(self._name_end(start)) + 1)
            found.append((start, value_start, end))
            delimiter = self.skip(end)
        return found

    # -- source text -------------------------------------------------------

    def source(self, start: int, end: int, tree: ast.Module) -> str:
        """The code of an argument value as written, for messages.

        A value that spans lines is shown as a formatter that knows no
        enclosing block would write it: the indentation of the statement it
        sits in is removed from its continuation lines (those that start with
        it; lines inside strings and after a backslash are as written), and
        the file's usual line end becomes ``\\n``.
        """
        segment = self.text[start:end]
        if "\n" not in segment and "\r" not in segment:
            return segment
        tokens = [match.span() for match in _STRINGS.finditer(self.text, start, end)]
        indent = _leading_space(self.line_text(_statement_line(tree, self.position(start)[0])))
        first = _NEWLINE.search(self.text)
        default = first.group() if first is not None else "\n"
        parts: list[str] = []
        offset = start
        for match in _NEWLINE.finditer(self.text, start, end):
            newline_at = match.start()
            parts.append(self.text[offset:newline_at])
            offset = match.end()
            # A string token holds the line break, or a backslash outside any
            # token (a comment is one) continues the line.
            before = newline_at - 1
            quoted = any(low <= newline_at < high for low, high in tokens)
            continued = self.text[before] == "\\" and not any(
                low <= before < high for low, high in tokens
            )
            if quoted or continued:
                parts.append(match.group())
                continue
            parts.append("\n" if match.group() == default else match.group())
            if indent and self.text.startswith(indent, offset) and offset + len(indent) <= end:
                offset += len(indent)
        parts.append(self.text[offset:end])
        return "".join(parts)


def _leading_space(line: str) -> str:
    return line[: len(line) - len(line.lstrip(_SPACE))]


def _first_line(statement: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(item.lineno for item in decorators)])


def _statement_line(tree: ast.Module, line: int) -> int:
    """The first line of the innermost statement holding ``line`` (its
    indentation is that of the block the statement is in)."""
    body: list[ast.stmt] = tree.body
    found = 1
    while body:
        firsts = [_first_line(statement) for statement in body]
        index = bisect.bisect_right(firsts, line) - 1
        if index < 0:
            break
        statement = body[index]
        if (statement.end_lineno or statement.lineno) < line:
            break
        found = firsts[index]
        body = [
            inner
            for name in ("body", "orelse", "finalbody", "handlers", "cases")
            for child in getattr(statement, name, ())
            for inner in ([child] if isinstance(child, ast.stmt) else child.body)
        ]
        body.sort(key=_first_line)
    return found
