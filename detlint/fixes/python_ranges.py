"""Each node's range and parent in a libcst module, from one pass over it.

libcst's metadata wrapper resolves positions (a code-generating walk) and
parents (a visitor walk) in two passes, each with a fixed cost of tens of
milliseconds that a report with hundreds of fixes pays per module parsed. The
code-generating walk enters every node inside its parent's, so it can note the
parent as it goes: the ranges are exactly ``PositionProvider``'s, the parents
``ParentNodeProvider``'s (the tests compare them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState


@dataclass(frozen=False)
class _State(PositionProvidingCodegenState):
    """``PositionProvider``'s code generation, noting each node's parent on entry."""

    parents: dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict)
    open_nodes: list[cst.CSTNode] = field(default_factory=list)

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self.open_nodes:
            self.parents[node] = self.open_nodes[-1]
        self.open_nodes.append(node)
        super().before_codegen(node)

    def after_codegen(self, node: cst.CSTNode) -> None:
        super().after_codegen(node)
        self.open_nodes.pop()


def ranges_and_parents(
    module: cst.Module,
) -> tuple[dict[cst.CSTNode, CodeRange], dict[cst.CSTNode, cst.CSTNode]]:
    """Every node's range (as ``PositionProvider`` gives it) and parent."""
    provider = PositionProvider()
    state = _State(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        provider=provider,
    )
    module._codegen(state)
    # the provider's table holds what its code generation computed: CodeRanges
    return cast(dict[cst.CSTNode, CodeRange], provider._computed), state.parents
