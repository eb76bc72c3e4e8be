"""detlint's own position pass must agree with libcst's PositionProvider."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from detlint.python_pass.positions import node_positions
from detlint.python_pass.walk import find_all

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(
    [
        *ROOT.glob("tests/fixtures/repos/**/*.py"),
        *ROOT.glob("detlint/**/*.py"),
        *ROOT.glob("examples/**/*.py"),
    ]
)


def parse(path: Path) -> cst.Module | None:
    try:
        return cst.parse_module(path.read_bytes())
    except (cst.ParserSyntaxError, UnicodeDecodeError, SyntaxError):
        return None


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_positions_match_libcst(path):
    module = parse(path)
    if module is None:
        assert "broken" in path.parts  # only the deliberately broken fixtures fail to parse
        return
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ours = node_positions(module)
    for node, where in expected.items():
        if isinstance(node, cst.Module):
            continue  # the module's end differs by the trailing newline; never reported
        start, end = where.start, where.end
        assert ours[node] == ((start.line, start.column), (end.line, end.column)), node


def test_find_all_sees_what_children_see():
    module = parse(ROOT / "detlint" / "link.py")
    assert module is not None

    def by_children(root):
        stack, found = [root], []
        while stack:
            node = stack.pop()
            found.append(node)
            stack.extend(reversed(node.children))
        return found

    meaningful = (cst.BaseExpression, cst.BaseStatement, cst.BaseSmallStatement, cst.Arg)
    meaningful += (cst.Decorator, cst.Param, cst.CompFor, cst.Index)
    expected = {id(n) for n in by_children(module) if isinstance(n, meaningful)}
    assert {id(n) for n in find_all(module, meaningful)} == expected
