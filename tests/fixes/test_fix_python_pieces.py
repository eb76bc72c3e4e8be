"""Python fixes parse the top-level statements they edit, not the whole module.

Each piece (a top-level statement with the comments and decorators above it) is
parsed once and shared by the fixes in it; the edits are those of a whole-module
parse, and an edit is checked on its piece only where that decides the same as a
check of the whole file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_fix_python import CASE_NAMES, build_plan, load_case, reader

import detlint.fixes.python_pieces as pieces
from detlint.base.span import Span
from detlint.fixes.build import Sources, build_fixes
from detlint.fixes.edits import Declined, Edit, Fix, apply_edits
from detlint.fixes.python_edits import python_edits
from detlint.fixes.python_locate import Parsed, Piece
from detlint.fixes.python_pieces import PythonFile
from detlint.fixes.source_text import SourceText
from detlint.rules.finding import Finding
from detlint.rules.plans import DropMark, QuarantineMark

MODULE = """\
\"\"\"Docs.\"\"\"
import pytest

a = 1; b = 2


# why it reruns
@pytest.mark.flaky(reruns=2)
def test_one():
    assert a


@(
    pytest.mark.flaky(reruns=3)
)
def test_two():
    assert b


class TestThree:
    @pytest.mark.flaky(reruns=4)
    def test_a(self):
        pass

    @pytest.mark.flaky(reruns=5)
    def test_b(self):
        pass
# the end
"""


def source_of(text: str, path: str = "test_m.py") -> SourceText:
    return SourceText.decode(path, text.encode())


def lines(text: str, first: int, last: int) -> str:
    return "".join(text.splitlines(keepends=True)[first - 1 : last])


def blanked(text: str, *bodies: str) -> str:
    """``text`` with each of ``bodies`` (whole lines) made ``pass`` and empty lines."""
    for body in bodies:
        indent = body[: len(body) - len(body.lstrip())]
        text = text.replace(body, indent + "pass" + "\n" * body.count("\n"))
    return text


@pytest.mark.parametrize(
    ("line", "first", "last", "bodies"),
    [
        (1, 1, 1, ()),  # the docstring
        (4, 3, 4, ()),  # two statements on one line are one piece
        (8, 5, 10, ("    assert a\n",)),  # a decorated function, the comment above it
        (10, 5, 10, ()),  # a line in the body: the body kept
        (14, 11, 17, ("    assert b\n",)),  # `@(` a line above the marker
        (21, 18, 27, ("        pass\n",)),  # a class: its methods' bodies blanked
        (23, 18, 27, ()),  # in one method: the other's blanked
    ],
)
def test_a_piece_is_a_top_level_statement_with_what_precedes_it(
    line: int, first: int, last: int, bodies: tuple[str, ...]
) -> None:
    parsed = PythonFile(source_of(MODULE)).at_line(line)
    assert parsed.module.code == blanked(lines(MODULE, first, last), *bodies)
    assert parsed.line_shift == first - 1
    assert parsed.imports_pytest


def test_bodies_are_blanked_with_their_line_ends_and_indentation() -> None:
    text = (
        "import pytest\r\n"
        "@pytest.mark.flaky\r\n"
        "def test_a():\r\n"
        "\t# comment\r\n"
        '\tx = """\r\n'
        'two lines"""\r\n'
        "\tdef inner(): return x\r\n"
        "def test_b(): return 1\r\n"
    )
    file = PythonFile(source_of(text))
    assert file.at_line(2).module.code == (
        "@pytest.mark.flaky\r\ndef test_a():\r\n\t# comment\r\n\tpass\r\n\r\n\r\n"
    )
    assert file.at_line(8).module.code == "def test_b(): return 1\r\n"
    assert file.at_line(7).module.code == "".join(text.splitlines(keepends=True)[1:7])


def test_a_line_after_the_last_statement_parses_the_whole_file() -> None:
    parsed = PythonFile(source_of(MODULE)).at_line(28)
    assert parsed.module.code == MODULE
    assert parsed.line_shift == 0


def test_a_file_ast_cannot_parse_is_one_piece() -> None:
    file = PythonFile(source_of(MODULE + "def broken(:\n    pass\n"))
    with pytest.raises(Declined, match=r"test_m\.py does not parse"):
        file.at_line(8)


def fixes_of(tmp_path: Path, marks: list[tuple[int, int, int, int]]) -> list[Fix | str | None]:
    (tmp_path / "test_m.py").write_text(MODULE, encoding="utf-8")
    findings = []
    for line, column, end_line, end_column in marks:
        span = Span("test_m.py", line, column, end_line, end_column)
        plan = QuarantineMark("quarantine", "unsafe", None, mark=span, reason="gh-1")
        findings.append(Finding("DET101", "rerun-mark", "warning", span, "m", "h", fix=plan))
    return list(build_fixes(findings, Sources(tmp_path)))


def test_fixes_in_one_piece_share_its_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[int | None] = []
    real = pieces.parse

    def counted(source: SourceText, piece: Piece | None = None) -> Parsed:
        parsed.append(piece.first if piece is not None else None)
        return real(source, piece)

    monkeypatch.setattr(pieces, "parse", counted)
    marks = [(8, 2, 8, 29), (14, 5, 14, 32), (21, 6, 21, 33), (25, 6, 25, 33)]
    fixes = fixes_of(tmp_path, marks)
    assert parsed == [5, 11, 18]  # one parse for the two methods of the class
    contents = [fix.edits[0].content for fix in fixes if isinstance(fix, Fix)]
    assert contents == ['pytest.mark.xfail(strict=False, reason="gh-1")'] * 4
    where = [(fix.where[0].line, fix.where[0].column) for fix in fixes if isinstance(fix, Fix)]
    assert where == [(8, 2), (14, 5), (21, 6), (25, 6)]


@pytest.mark.parametrize("name", CASE_NAMES)
def test_pieces_give_the_edits_of_the_whole_module(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, files = load_case(name)
    plan = build_plan(config, files)
    try:
        by_piece: tuple[Edit, ...] | str = python_edits(plan, reader(files))
    except Declined as declined:
        by_piece = str(declined)
    monkeypatch.setattr(pieces, "_pieces", lambda body: ([], []))
    try:
        whole: tuple[Edit, ...] | str = python_edits(plan, reader(files))
    except Declined as declined:
        whole = str(declined)
    assert by_piece == whole


def test_an_edit_that_breaks_its_piece_is_declined() -> None:
    source = source_of(MODULE)
    start = MODULE.index("assert b")
    with pytest.raises(Declined, match=r"test_m\.py would not parse after the fix"):
        PythonFile(source).check([Edit("test_m.py", start, start, "(")])


def test_an_edit_joining_two_pieces_is_checked_on_the_whole_file() -> None:
    """``import pytest`` without its line end parses alone, not before ``a = 1``."""
    text = MODULE.replace("import pytest\n\n", "import pytest\n")
    source = source_of(text)
    end = text.index("\na = 1")
    edit = Edit("test_m.py", end, end + 1, "")
    assert "import pytesta = 1" in apply_edits(text, [edit])
    with pytest.raises(Declined, match="would not parse after the fix"):
        PythonFile(source).check([edit])


def test_an_edit_after_the_last_statement_is_checked_on_the_whole_file() -> None:
    source = source_of(MODULE)
    end = len(MODULE)
    with pytest.raises(Declined, match="would not parse after the fix"):
        PythonFile(source).check([Edit("test_m.py", end, end, "x = (\n")])
    PythonFile(source).check([Edit("test_m.py", end, end, "x = 1\n")])


def test_a_drop_edits_its_piece_and_parses() -> None:
    source = source_of(MODULE)
    plan = DropMark("drop", "unsafe", None, mark=Span("test_m.py", 25, 6, 25, 33))
    edits = python_edits(plan, {"test_m.py": source}.__getitem__)
    text = apply_edits(MODULE, list(edits))
    assert text == MODULE.replace("    @pytest.mark.flaky(reruns=5)\n", "")
