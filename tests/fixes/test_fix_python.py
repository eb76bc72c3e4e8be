"""The Python fixes against golden files, and the contract every fix keeps.

Each case under ``tests/fixtures/fixes/python/<case>/`` holds ``before.py``, the
expected ``after.py`` (written by hand) and ``case.toml``, the plan: which marker
(a substring of ``before.py``; its span is that of the outermost expression
starting there, as the Python pass reports it), and what to do with it. A case
may edit a second file, ``conftest_before.py`` -> ``conftest_after.py``, shown as
``conftest.py``. Files are compared as bytes, so CRLF, BOMs and tabs count.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import libcst
import pytest
from hypothesis import given
from hypothesis import strategies as st

from detlint.base.span import Span
from detlint.fixes.edits import Declined, Edit, apply_edits
from detlint.fixes.python_edits import python_edits
from detlint.fixes.source_text import SourceText
from detlint.rules.plans import AddReason, DropMark, QuarantineMark

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CASES = Path(__file__).parents[1] / "fixtures" / "fixes" / "python"
CASE_NAMES = sorted(path.name for path in CASES.iterdir() if (path / "case.toml").exists())
MARKED = "test_marked.py"  # how before.py is displayed
OTHER = "conftest.py"  # how conftest_before.py is displayed


def expression_span(source: SourceText, needle: str, occurrence: int = 1) -> Span:
    """The span of the outermost expression starting at the ``occurrence``-th
    ``needle``, computed with ``ast`` (independently of the code under test)."""
    offset = -1
    for _ in range(occurrence):
        offset = source.text.index(needle, offset + 1)
    line, column = source.position(offset)

    def char_column(lineno: int, byte_column: int) -> int:
        start, end = source.line_range(lineno)
        return len(source.text[start:end].encode("utf-8")[:byte_column].decode("utf-8")) + 1

    best: tuple[int, int, int, int] | None = None
    for node in ast.walk(ast.parse(source.text)):
        if not isinstance(node, ast.expr) or node.end_lineno is None:
            continue
        if (node.lineno, char_column(node.lineno, node.col_offset)) != (line, column):
            continue
        end = (node.end_lineno, char_column(node.end_lineno, node.end_col_offset or 0))
        if best is None or end > best[2:]:
            best = (line, column, *end)
    assert best is not None, f"no expression at {needle!r}"
    return Span(source.path, *best)


def load_case(name: str) -> tuple[dict[str, Any], dict[str, SourceText]]:
    folder = CASES / name
    config = tomllib.loads((folder / "case.toml").read_text(encoding="utf-8"))
    files = {MARKED: SourceText.decode(MARKED, (folder / "before.py").read_bytes())}
    other = folder / "conftest_before.py"
    if other.exists():
        files[OTHER] = SourceText.decode(OTHER, other.read_bytes())
    return config, files


def build_plan(
    config: dict[str, Any], files: dict[str, SourceText]
) -> DropMark | QuarantineMark | AddReason:
    source = files[MARKED]
    if "span" in config:
        mark = Span(MARKED, *config["span"])
    else:
        mark = expression_span(source, config["mark"], config.get("occurrence", 1))
    kind, reason = config["plan"], config.get("reason", "")
    if kind == "quarantine":
        return QuarantineMark("fix", "unsafe", None, mark=mark, reason=reason)
    if kind == "reason":
        return AddReason("fix", "unsafe", None, mark=mark, reason=reason)
    trials = None
    if "trials" in config:
        trials = expression_span(files[config.get("trials_file", MARKED)], config["trials"])
    return DropMark(
        "fix",
        "unsafe",
        None,
        mark=mark,
        trials=trials,
        env=config.get("env"),
        count=config.get("count"),
    )


def reader(files: dict[str, SourceText]) -> Callable[[str], SourceText]:
    def read(path: str) -> SourceText:
        if path not in files:
            raise Declined(f"cannot read {path}")
        return files[path]

    return read


def assert_contract(source: SourceText, edits: list[Edit]) -> str:
    """The edited text parses, and outside the edit ranges it is the original."""
    text = apply_edits(source.text, edits)
    libcst.parse_module(text)
    ast.parse(text)
    position_old = position_new = 0
    for edit in sorted(edits):
        kept = edit.start - position_old
        assert text[position_new : position_new + kept] == source.text[position_old : edit.start]
        position_new += kept + len(edit.content)
        position_old = edit.end
    assert text[position_new:] == source.text[position_old:]
    return text


@pytest.mark.parametrize("name", CASE_NAMES)
def test_golden(name: str) -> None:
    config, files = load_case(name)
    plan = build_plan(config, files)
    if "declined" in config:
        with pytest.raises(Declined, match=str(config["declined"])):
            python_edits(plan, reader(files))
        return
    edits = python_edits(plan, reader(files))
    assert edits, "a fix makes at least one edit"
    expected = {MARKED: CASES / name / "after.py", OTHER: CASES / name / "conftest_after.py"}
    for path, source in files.items():
        own = [edit for edit in edits if edit.path == path]
        text = assert_contract(source, own)
        assert source.encode(text) == expected[path].read_bytes(), path
    assert {edit.path for edit in edits} <= set(files)


def test_every_case_has_its_files() -> None:
    assert len(CASE_NAMES) >= 30
    for name in CASE_NAMES:
        config, _ = load_case(name)
        assert ("declined" in config) != (CASES / name / "after.py").exists(), name


def test_unreadable_trials_file_is_declined() -> None:
    config, files = load_case("trials_other_file")
    plan = build_plan(config, files)
    del files[OTHER]
    with pytest.raises(Declined, match="cannot read"):
        python_edits(plan, reader(files))


# A property: any item of any pytestmark list or tuple, in any layout, is removed
# with the rest of the file untouched and the other items kept in their order.

ITEMS = ["pytest.mark.gpu", "pytest.mark.slow", 'pytest.mark.skipif(sys.platform == "win32")']
FLAKY = "pytest.mark.flaky(reruns=2)"


@st.composite
def pytestmark_modules(draw: st.DrawFn) -> tuple[str, list[str], bool]:
    others = draw(st.lists(st.sampled_from(ITEMS), min_size=0, max_size=3))
    index = draw(st.integers(0, len(others)))
    items = [*others[:index], FLAKY, *others[index:]]
    tuple_like = draw(st.booleans())
    opening, closing = ("(", ")") if tuple_like else ("[", "]")
    layout = draw(st.sampled_from(["inline", "one per line", "hanging"]))
    trailing = draw(st.booleans()) or (tuple_like and len(items) == 1)
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    comment = draw(st.sampled_from(["", "  # why"]))
    last = f"{items[-1]}{',' if trailing else ''}"
    if layout == "one per line":
        body = "".join(f"    {item},{comment}{newline}" for item in items[:-1])
        value = f"{opening}{newline}{body}    {last}{newline}{closing}"
    elif layout == "hanging":
        separator = f",{comment}{newline}{' ' * 14}"
        value = opening + separator.join([*items[:-1], last]) + closing
    else:
        value = opening + ", ".join([*items[:-1], last]) + closing
    text = newline.join(
        ["import sys", "", "import pytest", "", f"pytestmark = {value}  # marks", "", ""]
    )
    text += newline.join(["def test_it():", "    assert True", ""])
    return text, others, tuple_like


@given(pytestmark_modules())
def test_dropping_any_pytestmark_item(module: tuple[str, list[str], int]) -> None:
    text, others, tuple_like = module
    source = SourceText.decode(MARKED, text.encode())
    mark = expression_span(source, FLAKY)
    plan = DropMark("fix", "unsafe", None, mark=mark)
    edits = list(python_edits(plan, reader({MARKED: source})))
    result = assert_contract(source, edits)
    assert "flaky" not in result
    assert "def test_it():" in result
    if not others:
        assert "pytestmark" not in result
        return
    assignment = next(
        node
        for node in ast.parse(result).body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "pytestmark"
    )
    value = assignment.value
    assert isinstance(value, ast.Tuple if tuple_like else ast.List)
    assert [ast.unparse(item) for item in value.elts] == [
        ast.unparse(ast.parse(item, mode="eval").body) for item in others
    ]
    assert "# marks" in result
    assert text.count("# why") - result.count("# why") <= 1
    # Only the pytestmark statement changed, and no line was left with trailing blanks.
    head, tail = text.index("pytestmark ="), text.index("  # marks")
    assert result.startswith(text[:head])
    assert result.endswith(text[tail:])
    assert not re.search(r"[ \t](?=\r|\n|$)", result)
