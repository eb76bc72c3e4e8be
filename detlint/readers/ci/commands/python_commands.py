"""pytest command lines a Python script writes: argument lists and command strings.

A project that runs its tests by a script of its own (a GPU launcher, a release
checklist, a noxfile) writes the pytest command in Python: a list handed to
``subprocess.run`` or a function of the project's own (``cmd = ["python3", "-m",
"pytest", "--reruns", "3", path]``), ``pytest.main([...])``, a nox session's
``session.run("pytest", ...)``, or a string a shell runs (``os.system("pytest ...")``).
Each is read here as the command line it stands for, never run: literal strings are
words, anything else is a word detlint cannot read (``$ARG``), and a name is not
followed to what it is bound to.
"""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

# The options that set a rerun count (``--reruns-delay`` sets none).
RERUN_FLAG = re.compile(r"--(?:force-)?reruns(?:=|$)|--retries(?:=|$)|--force-flaky$")
# The same options somewhere in a text (a command string, a file's whole text).
RERUN_HINT = re.compile(r"--(?:force-)?reruns\b(?!-)|--retries\b(?!-)|--force-flaky\b")
_PROGRAMS = frozenset({"pytest", "py.test"})
_PROGRAM_AT = 4  # how far into a list the program may be ("uv", "run", "python", "-m")
# Calls that hand a string to a shell: ``subprocess.run("pytest ...", shell=True)``.
_SHELL_CALLS = frozenset(
    {"run", "call", "check_call", "check_output", "Popen", "system", "getoutput"}
)
UNKNOWN = "$ARG"  # a word detlint cannot read, as the shell reader sees a variable


@dataclass(frozen=True)
class PythonCommand:
    """A pytest command written in a Python file: ``text`` is the command line it
    stands for; ``line``/``column``/``end_column`` (1-based) where its first rerun option
    is written; ``unread`` that option with its count as written, when the count is not
    a literal."""

    text: str
    line: int
    column: int
    end_column: int
    unread: str | None = None


def python_commands(source: str) -> Iterator[PythonCommand]:
    """Every pytest command with a rerun option that ``source`` writes."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(module):
        if isinstance(node, ast.List | ast.Tuple):
            found = _argv(node.elts, source, program=None)
        elif isinstance(node, ast.Call):
            found = _call(node, source)
        else:
            continue
        if found is not None:
            yield found


def _call(call: ast.Call, source: str) -> PythonCommand | None:
    """``pytest.main([...])``, ``session.run("pytest", ...)`` or a shell string."""
    func = call.func
    if not call.args:
        return None
    first = call.args[0]
    if isinstance(func, ast.Attribute) and func.attr == "main" and _names_pytest(func.value):
        if isinstance(first, ast.List | ast.Tuple):
            return _argv(first.elts, source, program="pytest")
        return None
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    if _program(first.value):
        return _argv(call.args, source, program=None)
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name in _SHELL_CALLS and " " in first.value and RERUN_HINT.search(first.value):
        end = (first.end_col_offset or first.col_offset) + 1
        return PythonCommand(first.value, first.lineno, first.col_offset + 1, end)
    return None


def _names_pytest(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "pytest"


def _program(word: str) -> bool:
    return word.rsplit("/", 1)[-1] in _PROGRAMS


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _argv(elements: Sequence[ast.expr], source: str, program: str | None) -> PythonCommand | None:
    """The command an argument list stands for: pytest's words after the program (a
    ``pytest`` first, or after ``-m``), or all of them when ``program`` is given (the
    list ``pytest.main`` takes). None without a rerun option among them."""
    start = 0
    if program is None:
        words = [_literal(element) for element in elements[: _PROGRAM_AT + 1]]
        at = next(
            (
                i
                for i, word in enumerate(words)
                if word is not None and _program(word) and (i == 0 or words[i - 1] == "-m")
            ),
            None,
        )
        if at is None:
            return None
        start = at + 1
    rest = [element for element in elements[start:] if not isinstance(element, ast.Starred)]
    flags = [i for i, e in enumerate(rest) if RERUN_FLAG.match(_literal(e) or "")]
    if not flags:
        return None
    flag = rest[flags[0]]
    unread = None
    value = rest[flags[0] + 1] if flags[0] + 1 < len(rest) else None
    written = _literal(flag) or ""
    counted = "=" not in written and written != "--force-flaky"
    if counted and value is not None and _literal(value) is None:
        unread = f"{written} {ast.get_source_segment(source, value) or UNKNOWN}"
    text = " ".join(
        ["pytest", *(shlex.quote(w) if (w := _literal(e)) is not None else UNKNOWN for e in rest)]
    )
    end = (flag.end_col_offset or flag.col_offset) + 1
    return PythonCommand(text, flag.lineno, flag.col_offset + 1, end, unread)
