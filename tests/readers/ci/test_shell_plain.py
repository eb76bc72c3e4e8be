"""The fast path for plain shell text (shell_plain) reads every text as the full way does.

Each text is read twice: as ``parse`` reads it (through the fast path whenever the
fast path takes it) and with the fast path declining everything, so that the
lexer and the recursive-descent parser read it. The trees, and the facts
``read_command`` builds from them, must be equal. The tables also pin which
texts take the fast path at all, so that a fast path that declined everything
could not pass unnoticed.
"""

from __future__ import annotations

import dataclasses
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detlint.readers.ci.shell import parser as shell_parser
from detlint.readers.ci.shell.commands import CommandFacts, read_command
from detlint.readers.ci.shell.parser import parse
from detlint.readers.ci.shell.plain import may_run_script, plain_commands


def tree(node: Any) -> Any:
    """A comparable form of a syntax tree: each node or word as its type and fields."""
    if dataclasses.is_dataclass(node):
        fields = dataclasses.fields(node)
        return (type(node).__name__, *(tree(getattr(node, field.name)) for field in fields))
    if isinstance(node, (list, tuple)):
        return tuple(tree(item) for item in node)
    return node


def read_both_ways(text: str, errexit: bool, pipefail: bool) -> tuple[Any, Any]:
    """(tree, facts) as read normally, and as read with the fast path declining."""

    def read() -> tuple[Any, CommandFacts]:
        return tree(parse(text)), read_command(text, errexit=errexit, pipefail=pipefail)

    normal = read()
    with mock.patch.object(shell_parser, "plain_commands", return_value=None):
        full = read()
    return normal, full


# Texts the fast path reads (and must read as the full way does).
PLAIN = [
    'pytest -k "not slow and not integration" tests/search/spelling -n 4',
    'pip install -r requirements/test.txt\nbuildkite-agent artifact download "dist/*.whl" dist/\n'
    "pytest tests --junitxml=report.xml",
    # operators, comments and braces inside quotes are literal
    'echo "--- :python: billing/invoices (property)"\npytest tests/billing -q',
    "echo 'a | b; c && d # e {f}' \"(g) <h> #i\"\npytest",
    # assignments before the command, alone, and after it (an argument)
    'FOO=1 BAR="a b" pytest --reruns=2 X=3',
    "N=2\nPYTEST_ADDOPTS='--reruns 1'\npytest --reruns $N",
    # parameters outside quotes and in double quotes; none in single quotes
    "export SHARD=${BUILDKITE_PARALLEL_JOB:-0}\npytest \"$TESTS\" '$literal' x$1y ${#} $?",
    "$PYTEST_CMD -x tests",
    # a quoted newline is part of its word, not the end of a command
    "pytest -k \"a\nb\" tests\necho 'c\nd'",
    "\n\n  pytest\t-x  \n\n\t\n",
    "cd tests/gpu\npytest .\ncd ..\npytest",
    # a quote inside a name; quotes of both kinds in one word
    'py"test" -x\n"py"\'.test\' -q a"b\'c"d\'e"f\'',
    "python -m pytest tests\npython3 -m pytest -x",
    # reserved words that are not the first word of a command are plain words
    "echo if then fi ! time [[\nA=1 time pytest\nA=1 if",
    # the scripts of bash -c and eval are parsed too (through parse again)
    "bash -c \"pytest --reruns 2\"\nsh -ec 'pytest -x'\neval pytest -q",
    "set +e\npytest\necho done",
    "set -o pipefail\npytest --count 3\nexit 0",
    "command set +e\npytest\ntrue",
    "x=1",
    "",
]

# Texts the fast path must leave to the lexer and the parser.
FULL = [
    "if true\nthen pytest\nfi",
    "for x in a b\ndo pytest\ndone",
    "while true\ndo pytest\ndone",
    "case x in\nesac",
    "! pytest",
    "time pytest -x",
    "[[ -n x ]]\npytest",
    "function f\npytest",
    "pytest\nfi",
    "pytest\n{",
    "pytest # a comment",
    "echo a#b\npytest",
    "pytest 'left open\nand on",
    'pytest "left open',
    "pytest -k x || true",
    "pytest | tee log",
    "pytest; true",
    "pytest &",
    "pytest 2>&1",
    "pytest $(cat args)",
    'pytest "$(cat args)"',
    "pytest `echo -x`",
    "pytest \\\n  -x",
    "pytest 'a\\b'",
    'echo "cost $ 5"\npytest',
    "pytest $'x'",
    "pytest ${A:-'x'}",
    "pytest ${A",
    "pytest\r\n-x",
    "pytest\xa0-x",
    "pytest\x0b-x",
    "f() { pytest; }",
    "a=(1 2)\npytest",
]


@pytest.mark.parametrize("text", PLAIN)
def test_plain_text_takes_the_fast_path_to_the_same_result(text: str) -> None:
    assert plain_commands(text) is not None
    for errexit in (True, False):
        normal, full = read_both_ways(text, errexit, pipefail=not errexit)
        assert normal == full


@pytest.mark.parametrize("text", FULL)
def test_other_text_goes_the_full_way(text: str) -> None:
    assert plain_commands(text) is None
    normal, full = read_both_ways(text, errexit=True, pipefail=False)
    assert normal == full


def test_plain_words_keep_their_offsets_and_values() -> None:
    """The fields a finding quotes, spelled out for one text."""
    text = "A='x y' pytest \"-k\" a$B\n  echo '$C'"
    first, second = plain_commands(text, shift=10) or []
    assert [(w.raw, w.value, w.start, w.end) for w in first.assigns] == [
        ("A='x y'", "A=x y", 10, 17)
    ]
    assert [(w.value, w.start, w.end, w.dynamic) for w in first.words] == [
        ("pytest", 18, 24, False),
        ("-k", 25, 29, False),
        ("a$B", 30, 33, True),
    ]
    assert (first.start, first.end, second.start, second.end) == (10, 33, 36, 45)
    assert [(w.value, w.dynamic) for w in second.words] == [("echo", False), ("$C", False)]


def test_only_words_ending_in_sh_or_eval_can_hold_a_script() -> None:
    assert may_run_script('ba"sh" -c x')  # the value is bash once the quotes go
    assert may_run_script("e'val' x")
    assert may_run_script("pytest tests/push_x")  # a false alarm only costs the parsing
    assert not may_run_script("pytest -k 'not slow' tests/notifications")


# Pieces of shell-like text: the words and characters that decide between the two
# ways (quotes, "=", blanks, newlines, reserved words, "$" forms, operators).
_PIECES = [
    *("pytest", "py.test", "python -m pytest", "--reruns", "2", "--reruns=3", "-k", "tests"),
    *("cd", "export", "set", "-e", "+e", "-o pipefail", "true", "false", "exit", "0", "echo"),
    *("bash -c", "sh -ec", "eval", "command", "exec", "FOO=1", "N=2", "A=", "=", "a=b=c"),
    *("if", "then", "fi", "for", "in", "do", "done", "while", "case", "esac", "!", "[[", "]]"),
    *("time", "function", "{", "}", "|| true", "| tee log", "&&", ";", "&", "#", "a#b", "2>&1"),
    *("'", '"', "'a b'", '"c d"', "''", '""', "\"(x) | 'y'\"", "'$N'", '"$N"', "x'y'z"),
    *("$N", "${N}", "${N:-1}", "$1", "$?", "$", "$(true)", "`x`", "\\", "\\\n"),
    *(" ", " ", " ", "  ", "\t", "\n", "\n", "\n\n", "\r", "\xa0"),
]


@settings(max_examples=400)
@given(st.lists(st.sampled_from(_PIECES), max_size=24).map("".join), st.booleans())
def test_both_ways_agree_on_shell_like_text(text: str, errexit: bool) -> None:
    normal, full = read_both_ways(text, errexit, pipefail=not errexit)
    assert normal == full
