"""Python fixes parse a module once, its function bodies cut out, and check edits on
the top-level statements they edit.

The cut is shared by the fixes of a file; the edits are those of a whole-module
parse; ranges and parents are libcst's; an edit is checked on its statement only
where that decides as a check of the whole file would.
"""

from __future__ import annotations

from pathlib import Path

import libcst
import pytest
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider
from test_fix_python import CASE_NAMES, build_plan, load_case, reader

import detlint.fixes.python_pieces as pieces
from detlint.base.span import Span
from detlint.fixes.build import Sources, build_fixes
from detlint.fixes.edits import Declined, Edit, Fix, apply_edits
from detlint.fixes.python_edits import python_edits
from detlint.fixes.python_locate import Cut, Parsed
from detlint.fixes.python_pieces import PythonFile
from detlint.fixes.python_ranges import ranges_and_parents
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


def test_the_cut_keeps_decorators_and_signatures_with_their_lines() -> None:
    parsed = PythonFile(source_of(MODULE), wanted=(1, 2, 4, 8, 14, 21)).at_line(8)
    bodies_cut = MODULE.replace("    assert a\n", "    pass\n").replace(
        "    assert b\n", "    pass\n"
    )
    assert parsed.module.code == bodies_cut.removesuffix("# the end\n")
    assert parsed.lines == tuple(range(1, 28))  # one-line bodies: no line moves
    assert parsed.imports_pytest


def test_the_cut_holds_the_statements_asked_for() -> None:
    file = PythonFile(source_of(MODULE))
    first = file.at_line(8)
    assert first.module.code == lines(MODULE, 5, 10).replace("assert a", "pass")
    assert first.lines == tuple(range(5, 11))
    assert first.imports_pytest  # of the whole file
    assert file.at_line(9) is first
    second = file.at_line(21)
    assert second.lines == (*range(5, 11), *range(18, 28))
    assert second.module.code.startswith(first.module.code + "\n\nclass TestThree:\n")
    assert file.at_line(8) is second


def test_a_body_with_a_span_in_it_is_kept() -> None:
    text = MODULE.replace("    assert a\n", "    x = 1\n    assert a\n    assert b\n")
    file = PythonFile(source_of(text), wanted=(8, 16))
    cut = file.at_line(8)
    assert "def test_one():\n    pass\n\n\n@(" in cut.module.code
    assert cut.lines == (5, 6, 7, 8, 9, 10, *range(13, 20))  # test_one's body: one line
    kept = file.at_line(11)
    assert "def test_one():\n    x = 1\n    assert a\n    assert b\n" in kept.module.code
    assert "def test_two():\n    pass\n" in kept.module.code
    assert kept.lines == tuple(range(5, 20))
    assert file.at_line(10) is kept


def test_tabs_and_one_line_bodies_are_kept_and_line_ends_too() -> None:
    text = (
        "import pytest\r\n"
        "@pytest.mark.flaky\r\n"
        "def test_a():\r\n"
        "\tx = 1\r\n"
        "\treturn x\r\n"
        "def test_b(): return 1\r\n"
        "def test_c():\r\n"
        "  # why\r\n"
        '  x = """\r\n'
        'two lines"""\r\n'
    )
    parsed = PythonFile(source_of(text), wanted=(2, 6, 7)).at_line(2)
    cut = text.removeprefix("import pytest\r\n")
    assert parsed.module.code == cut.replace('  x = """\r\ntwo lines"""\r\n', "  pass\r\n")
    assert parsed.lines == tuple(range(2, 10))
    assert parsed.imports_pytest


def test_ranges_and_parents_are_libcsts() -> None:
    texts = [MODULE, *(load_case(name)[1]["test_marked.py"].text for name in CASE_NAMES)]
    for text in texts:
        module = libcst.parse_module(text)
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        ranges, parents = ranges_and_parents(module)
        assert dict(wrapper.resolve(PositionProvider)) == ranges
        expected = wrapper.resolve(ParentNodeProvider)
        assert set(expected) == set(parents)
        assert all(parents[node] is parent for node, parent in expected.items())


def test_a_file_ast_cannot_parse_gets_no_fix() -> None:
    """libcst is never given what ``ast`` rejects (its native parser can crash on it)."""
    file = PythonFile(source_of(MODULE + "def broken(:\n    pass\n"))
    with pytest.raises(
        Declined,
        match=r"^Python's parser cannot read test_m\.py \(invalid syntax, line 29\); "
        r"no fix is made in it$",
    ):
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
    parsed: list[tuple[int, ...] | None] = []
    real = pieces.parse

    def counted(source: SourceText, cut: Cut | None = None) -> Parsed:
        parsed.append(cut.lines if cut is not None else None)
        return real(source, cut)

    monkeypatch.setattr(pieces, "parse", counted)
    marks = [(8, 2, 8, 29), (14, 5, 14, 32), (21, 6, 21, 33), (25, 6, 25, 33)]
    fixes = fixes_of(tmp_path, marks)
    assert parsed == [tuple(range(5, 28))]  # one parse for the four fixes
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
    monkeypatch.setattr(pieces, "_pieces", lambda body: [])
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
