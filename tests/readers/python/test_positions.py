"""Every span the Python pass reports must be the range libcst gives the same code.

The pass parses with ``ast``, which counts columns in UTF-8 bytes, leaves the
parentheses of a call argument out and keeps those of a tuple, and has no
node for a function's name. libcst's ``PositionProvider`` is the reference
for what a span covers (its ranges are what editors and fixers expect), so
each reported span is looked up among the ranges libcst gives nodes of the
same kind, and each argument's value among the values libcst reads, for
every Python file of the fixtures and examples and for generated modules
that stress the conversions: non-ASCII text, tabs, CRLF line ends,
decorators, ``async def``, multi-line and parenthesized calls.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from detlint.base.source import decode_python
from detlint.base.span import Span
from detlint.readers.python.facts import Argument, Dynamic, Mark, ModuleFacts
from detlint.readers.python.module_scan import scan_module
from detlint.readers.python.narrowing import narrow
from detlint.readers.python.options import ScanOptions
from detlint.readers.python.prefilter import Prefilter

ROOT = Path(__file__).resolve().parents[3]
FILES = sorted([*ROOT.glob("tests/fixtures/**/*.py"), *ROOT.glob("examples/**/*.py")])
# Every file is read as a test module, so that helpers and conftest files count too.
OPTIONS = ScanOptions(python_files=("*.py",), retry_names=frozenset({"retry_test"}))
WANTED = Prefilter(trials=True).wants_block

GENERATED = {
    "non_ascii": """import os
import pytest

ÉTAT = "é"
N = int(os.getenv("NÉ", "3"))  # ünïcode comment


@pytest.mark.skipif(ÉTAT == "é" and "日本" != "😀", reason="não é")
@pytest.mark.flaky(reruns=2, reason="😀 emoji" )
def test_naïve_é(x="é"):
    for _ in range(N):
        assert "😀" in "😀😀"
    pytest.skip("dé" + ÉTAT)


class TestÜber:
    pytestmark = [pytest.mark.xfail(reason="ü"), pytest.mark.skip("ß")]

    def test_ok_日本(self):
        pass
""",
    "tabs": """import os
import pytest as pt

if True:
\timport pytest
else:
\tpytest = None


class TestTabs:
\t@pt.mark.xfail(reason="tab",\tstrict=(True))
\tdef\ttest_tab(self):
\t\tif os.environ.get("X"):
\t\t\tpt.xfail("because"
\t\t\t\t"tabs")
\t\tfor _ in range(int(os.environ.get("TABS", "4"))):
\t\t\tpass
""",
    "decorators_async": """import os
import pytest
from pytest import mark as m
from tenacity import retry, stop_after_attempt

TRIALS = int(os.getenv("TRIALS", "5"))
gpu_flaky = pytest.mark.flaky(reruns=2)


def wrapper(fn):
    return pytest.mark.flaky(reruns=4)(fn)


@gpu_flaky
@m.flaky (reruns = (3) , reruns_delay=( 1 + 2 ), )
@(pytest.mark.xfail)
async   def   test_async(request):
    request.applymarker(pytest.mark.xfail(reason="late"))
    pytest.skip( ( "x" ) )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (1, 2),
        pytest.param(3, 4, marks=(pytest.mark.xfail, pytest.mark.skip)),
        pytest.param(5, 6, marks=[pytest.mark.flaky(reruns=1)], id="five"),
    ],
)
@retry(stop=stop_after_attempt(3))
@wrapper
def test_param(a, b, n=TRIALS):
    for _ in range(n):
        pass


@pytest.mark.xfail(*ARGS, reason="star", **KW)
@pytest.mark.skipif(any(x for x in []), reason=f"{TRIALS}")
@pytest.mark.xfail((1, 2), (), ( a ), b ,)
def test_odd_arguments():
    [pytest.skip(str(x)) for x in range(TRIALS)]
""",
    "multi_line": '''import sys
import pytest

pytestmark = (
    pytest.mark.flaky(reruns=1),  # module-wide
    pytest.mark.xfail ,
)


class TestMultiLine:
    @pytest.mark.skipif(
        sys.platform == "win32" and
  # a comment less indented than the block
        # a comment
        sys.version_info < (3, 12),
        reason=("a"
                "b"),
    )
    def test_skipif(self):
        if sys:
            pytest.xfail(
                "reason " +
                sys.platform + \\
                    "continued" + """x
            y"""
            )

    @pytest.mark.flaky(
        reruns=(
            2
        ),
    )
    def test_reruns(self):
        pass
''',
}
GENERATED["crlf"] = GENERATED["multi_line"].replace("\n", "\r\n")
GENERATED["crlf_tabs"] = GENERATED["tabs"].replace("\n", "\r\n")
GENERATED["mixed_line_ends"] = GENERATED["decorators_async"].replace("\n", "\r\n", 3)


@dataclass
class Reference:
    """What libcst says about one module: ranges by kind, values of arguments."""

    names: dict[str, set[tuple[int, int, int, int]]] = field(default_factory=dict)
    expressions: set[tuple[int, int, int, int]] = field(default_factory=set)
    arguments: dict[tuple[int, int, int, int], tuple[str | None, str]] = field(default_factory=dict)
    # The module's names bound to a plain literal at the top level.
    constants: dict[str, object] = field(default_factory=dict)


def reference(text: str) -> Reference:
    module = cst.parse_module(text)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    found = Reference()
    for node, where in positions.items():
        key = (where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        if isinstance(node, cst.FunctionDef):
            name = positions[node.name]
            found.names.setdefault(node.name.value, set()).add(
                (name.start.line, name.start.column + 1, name.end.line, name.end.column + 1)
            )
        elif isinstance(node, cst.Arg):
            keyword = node.keyword.value if node.keyword is not None else None
            found.arguments[key] = (keyword, cst.Module(body=[]).code_for_node(node.value))
        elif isinstance(node, cst.BaseExpression):
            found.expressions.add(key)
    for statement in ast.parse(text).body:
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    found.constants[target.id] = statement.value.value
    return found


def where(span: Span) -> tuple[int, int, int, int]:
    return (span.line, span.column, span.end_line, span.end_column)


def as_written(value: object) -> object:
    """A literal argument value as detlint reports it (lists and tuples as tuples)."""
    if isinstance(value, list | tuple):
        return tuple(as_written(item) for item in value)
    return value


def check_argument(expected: Reference, argument: Argument) -> None:
    assert where(argument.span) in expected.arguments, argument
    keyword, code = expected.arguments[where(argument.span)]
    assert argument.name == keyword
    if isinstance(argument.value, Dynamic):
        assert argument.value.source == code
    elif code.lstrip().startswith(("f'", 'f"')):
        # An f-string reads as its text, each replacement field as written in it.
        assert argument.value == code.lstrip()[2:-1]
    else:
        try:
            written = ast.literal_eval(f"(\n{code}\n)")
        except ValueError:
            # Code over the module's literal constants (`ÉTAT == "é"`) reads as its value.
            written = eval(code, dict(expected.constants))
        assert as_written(written) == argument.value


def check_mark(expected: Reference, mark: Mark) -> None:
    assert where(mark.span) in expected.expressions, mark
    if mark.definition is not None:
        assert where(mark.definition) in expected.expressions, mark
    for argument in mark.arguments:
        check_argument(expected, argument)


def check(text: str, facts: ModuleFacts, expected: Reference) -> int:
    """Check every span of ``facts``; the number of spans checked."""
    checked = 0
    for mark in facts.hook_marks:
        check_mark(expected, mark)
        checked += 1
    for test in facts.tests:
        assert where(test.span) in expected.names.get(test.name, set()), test
        checked += 1
        for mark in (*test.marks, *(mark for _, mark in test.param_marks)):
            check_mark(expected, mark)
            checked += 1 + len(mark.arguments)
        if test.trials.span is not None:
            assert where(test.trials.span) in expected.expressions, test.trials
            checked += 1
    return checked


def scans(text: str) -> list[ModuleFacts]:
    """The facts of the whole text, and of the narrowed text when narrowing cuts
    (its spans are mapped back to the file's lines)."""
    whole, _ = scan_module("t.py", text, OPTIONS)
    narrowed = narrow(text, WANTED)
    if narrowed is None:
        return [whole]
    cut, _ = scan_module("t.py", text, OPTIONS, narrowed=narrowed)
    return [whole, cut]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_spans_of_every_fixture_match_libcst(path):
    text = decode_python(path.read_bytes(), "t.py")
    if not isinstance(text, str):
        assert "broken" in path.parts  # the deliberately unreadable fixtures
        return
    try:
        expected = reference(text)
    except cst.ParserSyntaxError:
        assert "broken" in path.parts  # the deliberately invalid fixtures
        return
    for facts in scans(text):
        check(text, facts, expected)


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_spans_of_generated_modules_match_libcst(name):
    text = GENERATED[name]
    expected = reference(text)
    for facts in scans(text):
        assert check(text, facts, expected) >= 5


def test_the_generated_modules_exercise_what_they_claim():
    facts, _ = scan_module("t.py", GENERATED["multi_line"], OPTIONS)
    sources = [
        argument.value.source
        for test in facts.tests
        for mark in test.marks
        for argument in mark.arguments
        if isinstance(argument.value, Dynamic)
    ]
    assert 'sys.platform == "win32" and\n  # a comment' in sources[0]
    assert "\n    # a comment\n    sys.version_info" in sources[0]  # the block's indent is gone
    crlf, _ = scan_module("t.py", GENERATED["crlf"], OPTIONS)
    assert facts.tests[0].span == crlf.tests[0].span
    non_ascii, _ = scan_module("t.py", GENERATED["non_ascii"], OPTIONS)
    flaky = non_ascii.tests[0].marks[1]
    assert flaky.arguments[1].span.end_column - flaky.arguments[1].span.column == len(
        'reason="😀 emoji"'
    )
