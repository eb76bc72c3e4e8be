"""Code that does not parse becomes one DET901 problem, never a traceback.

The Python pass parses with the running interpreter's ``ast``: invalid code,
code written for a newer Python, null bytes and absurdly deep nesting each get
a one-line problem at the place the parser stopped. A run never imports
libcst, whose import alone costs more than parsing a large test suite.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from detlint.base.span import Problem, Span
from detlint.readers.python.facts import ModuleFacts
from detlint.readers.python.options import ScanOptions
from detlint.readers.python.parse import TOO_DEEP, parse, syntax_problem
from detlint.readers.python.prefilter import Prefilter
from detlint.readers.python.repository import PythonRepository

RUNNING = "{}.{}".format(*sys.version_info[:2])
REPOS = Path(__file__).parents[2] / "fixtures" / "repos"
KNOB = "import pytest\n\n\n@pytest.mark.flaky(reruns=2)\ndef test_knob():\n    pass\n"


def kept(code: str) -> str:
    """``code`` with a knob word on its first line, so that narrowing keeps its block."""
    first, _, rest = code.partition("\n")
    return f"{first}  # flaky\n{rest}"


def scan(tmp_path: Path, text: str) -> ModuleFacts | Problem | None:
    path = tmp_path / "test_module.py"
    path.write_text(text, encoding="utf-8")
    repository = PythonRepository(tmp_path, tmp_path, ScanOptions(), Prefilter())
    return repository.scan(path)


def test_invalid_code_is_reported_where_python_stops(tmp_path):
    problem = scan(tmp_path, KNOB + "\n\n" + kept("def broken(:\n    pass\n"))
    assert problem == Problem(
        Span("test_module.py", 9, 12, 9, 12), "invalid Python, not analysed: invalid syntax"
    )


NEWER = [
    ((3, 12), "a type alias statement", "type Reruns = int\n"),
    ((3, 12), "type parameters", "def first[T](items: list[T]) -> T:\n    return items[0]\n"),
    ((3, 12), "type parameters", "class Box[T]:\n    pass\n"),
    ((3, 12), "an f-string", 'NAME = f"{\'a\' + "b"}"\n'),
    ((3, 13), "a type parameter default", "def first[T = int](items: list[T]) -> T:\n    pass\n"),
    ((3, 14), "a template string", "NAME = t'hello {name}'\n"),
    ((3, 14), "an except clause without parentheses", "try:\n    pass\nexcept A, B:\n    pass\n"),
]


@pytest.mark.parametrize(("version", "what", "code"), NEWER, ids=[n[2][:16] for n in NEWER])
def test_syntax_of_a_newer_python_says_so(tmp_path, version, what, code):
    if sys.version_info[:2] >= version:
        pytest.skip(f"Python {RUNNING} parses this")
    problem = scan(tmp_path, KNOB + kept(code))
    assert isinstance(problem, Problem)
    wanted = "{}.{}".format(*version)
    assert problem.message == (
        f"uses {what}, syntax of Python {wanted} that this Python ({RUNNING}) cannot parse; "
        f"not analysed (run detlint with Python {wanted} or newer)"
    )
    assert problem.span.line > KNOB.count("\n")


def test_an_ordinary_error_on_a_line_like_new_syntax_stays_an_error(tmp_path):
    problem = scan(tmp_path, KNOB + kept("type = (\n"))
    assert isinstance(problem, Problem)
    assert problem.message.startswith("invalid Python, not analysed: ")


def test_null_bytes_are_a_syntax_problem():
    with pytest.raises(SyntaxError) as caught:
        parse("x = 1\0\n")
    problem = syntax_problem("t.py", "x = 1\0\n", caught.value)
    assert problem.span.line == 1
    assert problem.message.startswith("invalid Python, not analysed: ")
    assert "null bytes" in problem.message


@pytest.mark.parametrize(
    "code",
    ["x = a" + ".b" * 100_000, "x = " + "-" * 100_000 + "1", "x = " + "+".join("1" * 100_000)],
    ids=["attributes", "unary", "binary"],
)
def test_code_too_deep_for_the_parser_is_skipped(tmp_path, code):
    too_deep = Problem(Span.file("test_module.py"), TOO_DEEP)
    assert scan(tmp_path, KNOB + kept(code + "\n")) == too_deep


def test_parser_warnings_are_not_shown(tmp_path):
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        facts = scan(tmp_path, KNOB.replace("reruns=2", "reruns=2, reason='\\d'"))
    assert isinstance(facts, ModuleFacts)
    assert not shown


def test_a_run_on_knobs_never_imports_libcst():
    code = (
        "import sys\n"
        "from detlint.cli.main import main\n"
        "sys.argv = ['detlint', 'audit', sys.argv[1]]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('libcst' in sys.modules, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(REPOS / "retry_plugin")],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert '"knobs"' in result.stdout or "flaky" in result.stdout, result.stdout + result.stderr
    assert result.stderr.strip().splitlines()[-1] == "False", result.stderr
