"""Line and column of every node, at a fraction of libcst's own cost.

``MetadataWrapper(...).resolve(PositionProvider)`` first walks the tree with a
batched visitor and then regenerates the code, splitting every token with a
regular expression; on test files that was most of the Python pass's time.
This module regenerates the code once with a codegen state that counts
newlines directly and records the same syntactic ranges PositionProvider
records (decorators and leading comments excluded from a function's range,
and so on), so spans match what libcst users expect.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import libcst as cst
from libcst._nodes.internal import CodegenState

Position = tuple[int, int]  # 1-based line, 0-based column (libcst's convention)
Range = tuple[Position, Position]


@dataclass
class _PositionState(CodegenState):
    line: int = 1
    column: int = 0
    positions: dict[cst.CSTNode, Range] = field(default_factory=dict)
    _starts: list[Position] = field(default_factory=list)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        # The text itself is not needed, only where it ends.
        if "\r" in value:
            value = value.replace("\r\n", "\n").replace("\r", "\n")
        newline = value.rfind("\n")
        if newline < 0:
            self.column += len(value)
        else:
            self.line += value.count("\n")
            self.column = len(value) - newline - 1

    def pop_trailing_newline(self) -> None:
        pass  # nothing was stored, and positions before the end are unaffected

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._starts.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._starts.pop()
        if node not in self.positions:  # a syntactic range was recorded already
            self.positions[node] = (start, (self.line, self.column))

    @contextmanager
    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> Iterator[None]:
        start = (self.line, self.column)
        try:
            yield
        finally:
            end = (self.line, self.column)
            if start_node is not None:
                start = self.positions[start_node][0]
            if end_node is not None:
                end = self.positions[end_node][1]
            self.positions[node] = (start, end)


def node_positions(module: cst.Module) -> dict[cst.CSTNode, Range]:
    """The syntactic range of every node of ``module``."""
    state = _PositionState(
        default_indent=module.default_indent, default_newline=module.default_newline
    )
    module._codegen(state)
    return state.positions
