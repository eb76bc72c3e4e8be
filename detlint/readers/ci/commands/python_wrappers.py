"""Python scripts CI runs in place of pytest: whether they run pytest, and how often.

A project may wrap pytest in a script of its own (``tools/pytest_wrapper.py src
-v``, ``python ci/run_tests.py``): it runs ``python -m pytest`` in a subprocess, or
``pytest.main(...)``, often with a retry written in Python (run once, and when that
fails, again with ``--lf``). The script is parsed, never run: a call that hands
pytest a literal program (``subprocess.run([sys.executable, "-m", "pytest", ...])``,
``subprocess.run("pytest ...", shell=True)``, ``os.system("pytest ...")``,
``pytest.main(...)``) is a pytest run, and a later one written with ``--lf`` or
``--last-failed`` (or inside a loop over a literal range) is a retry of the first:
a test failure is then reported only when every attempt fails.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

_SUBPROCESS = frozenset({"run", "call", "check_call", "check_output", "Popen", "system"})
_LAST_FAILED = frozenset({"--lf", "--last-failed"})
_MAX_LOOP = 20  # rounds of a literal range a retry loop may have to be counted


@dataclass(frozen=True)
class PythonWrapper:
    """What a Python script does with pytest: ``runs`` pytest at all, and ``attempts``
    (the first included) when it runs pytest again after a failure."""

    runs: bool
    attempts: int | None = None
    line: int = 0  # where the first pytest call is written (1-based)
    # Every pytest call's result is thrown away (``pytest.main([...])`` as a statement,
    # ``subprocess.run`` without ``check=True``), and the script never exits with a
    # status of its own: it ends with 0 whatever the tests did.
    drops_status: bool = False


def read_wrapper(text: str) -> PythonWrapper:
    """How the Python script ``text`` runs pytest; ``runs`` False when it does not."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return PythonWrapper(False)
    calls = [(call, loop) for call, loop in _pytest_calls(module, None)]
    if not calls:
        return PythonWrapper(False)
    first, loop = calls[0]
    attempts = None
    again = [call for call, _ in calls[1:] if _words(call) & _LAST_FAILED]
    if again:
        attempts = 1 + len(again)
    elif loop is not None:
        attempts = loop
    drops = _drops_status(module, [call for call, _ in calls])
    return PythonWrapper(True, attempts, first.lineno, drops)


# Calls that fail the script, or may: their presence means the script chooses a status.
_EXITS = frozenset({"exit", "_exit", "abort"})


def _drops_status(module: ast.Module, calls: list[ast.Call]) -> bool:
    """Whether each pytest call's status is discarded and nothing in the script exits
    with a status or raises: then no test outcome reaches the caller. A result that is
    kept (assigned, returned, passed on) may be used; detlint does not guess how."""
    discarded = {
        id(node.value)
        for node in ast.walk(module)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
    }
    for call in calls:
        if id(call) not in discarded or _checked(call):
            return False
    for node in ast.walk(module):
        if isinstance(node, (ast.Raise, ast.Assert)):
            return False
        if isinstance(node, ast.Call):
            name = _called(node)
            if name in _EXITS or name == "SystemExit":
                return False
    return True


def _called(call: ast.Call) -> str:
    """The name a call is made by: ``run`` of ``subprocess.run(...)``, ``main`` of
    ``pytest.main(...)``, ``exit`` of ``exit(...)``."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _checked(call: ast.Call) -> bool:
    """``check_call``/``check_output``, or ``check=True``: a failure raises."""
    if _called(call) in ("check_call", "check_output"):
        return True
    return any(
        keyword.arg == "check"
        and not (isinstance(keyword.value, ast.Constant) and keyword.value.value is False)
        for keyword in call.keywords
    )


def _pytest_calls(node: ast.AST, loop: int | None) -> Iterator[tuple[ast.Call, int | None]]:
    """The calls that run pytest, in text order, each with the rounds of the literal
    ``for _ in range(N)`` around it (None outside such a loop)."""
    for child in ast.iter_child_nodes(node):
        rounds = loop
        if isinstance(child, ast.For):
            rounds = _range_rounds(child.iter) or loop
        if isinstance(child, ast.Call) and _runs_pytest(child):
            yield child, loop
        yield from _pytest_calls(child, rounds)


def _range_rounds(node: ast.AST) -> int | None:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "range"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, int)
        and 1 < node.args[0].value <= _MAX_LOOP
    ):
        return node.args[0].value
    return None


def _runs_pytest(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "main":
        return isinstance(func.value, ast.Name) and func.value.id == "pytest"
    name = _called(call)
    if name not in _SUBPROCESS or not call.args:
        return False
    words = _words(call)
    return "pytest" in words or "py.test" in words


def _words(call: ast.Call) -> set[str]:
    """The literal words of a call's first argument: a list's strings (``[sys.executable,
    "-m", "pytest"] + args`` too), or a command string split on spaces."""
    found: set[str] = set()
    for node in ast.walk(call.args[0]) if call.args else ():
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(node.value.split())
    return {word.rsplit("/", 1)[-1] for word in found}
