"""What one statement at the start of a test, fixture or helper does to a random source.

It seeds one (``torch.manual_seed(0)``, ``rng = np.random.default_rng(42)``), plays
back a recording (``with vcr.use_cassette(...)``), or is harmless: it cannot have
drawn yet (an import, an assignment of literals, a skip guard). ``replays.py`` walks
the leading statements with these; anything else may draw, and ends the walk.
"""

from __future__ import annotations

import ast

from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.names import dotted, literal

# Calls that set a random source to the value they are given, by qualified name.
SEED_CALLS = frozenset(
    {
        "random.seed",
        "random.Random",
        "numpy.random.seed",
        "numpy.random.default_rng",
        "numpy.random.RandomState",
        "cupy.random.seed",
        "torch.manual_seed",
        "torch.random.manual_seed",
        "torch.cuda.manual_seed",
        "torch.cuda.manual_seed_all",
        "tensorflow.random.set_seed",
        "tensorflow.keras.utils.set_random_seed",
        "keras.utils.set_random_seed",
        "jax.random.PRNGKey",
        "jax.random.key",
        "paddle.seed",
        "mxnet.random.seed",
    }
)
# The last name of a seeding call reached through a name detlint does not qualify: a
# library's (transformers' and accelerate's `set_seed`, lightning's `seed_everything`),
# a generator's method (`torch.Generator().manual_seed(0)`) or a project's own helper.
SEED_NAMES = frozenset(
    {
        "manual_seed",
        "manual_seed_all",
        "set_seed",
        "set_random_seed",
        "seed_everything",
        "PRNGKey",
        "default_rng",
    }
)
# What plays back recorded HTTP responses: pytest-recording's (or pytest-vcr's) mark, and
# the fixtures betamax's pytest plugin gives a test.
RECORDING_MARKS = frozenset({"pytest.mark.vcr"})
RECORDING_FIXTURES = frozenset({"betamax_session", "betamax_recorder"})
# Record modes that send the requests again: nothing is replayed.
RECORDING_ANEW = frozenset({"all", "new_episodes", "rewrite"})


def int_literal(node: ast.expr) -> bool:
    value = literal(node)
    return isinstance(value, int) and not isinstance(value, bool)


def seed_argument(call: ast.Call) -> ast.expr | None:
    """The seed a call is given: its first argument or its ``seed=`` keyword; None when
    it is given none (``random.seed()`` seeds from the clock)."""
    if call.args:
        first = call.args[0]
        return None if isinstance(first, ast.Starred) else first
    for keyword in call.keywords:
        if keyword.arg in ("seed", "a", "x"):
            return keyword.value
    return None


def called(statement: ast.stmt) -> ast.Call | None:
    """The call a statement makes at its top: ``f(...)``, ``x = f(...)``, ``return f(...)``
    or ``yield f(...)``."""
    value: ast.expr | None = None
    if isinstance(statement, ast.Expr | ast.Return | ast.Assign | ast.AnnAssign):
        value = statement.value
    if isinstance(value, ast.Yield):
        value = value.value
    return value if isinstance(value, ast.Call) else None


def harmless(index: ModuleIndex, statement: ast.stmt) -> bool:
    """Whether a statement before a seed cannot have drawn from a random source: a
    docstring, ``pass``, an import, an assignment without calls, a call of pytest's own
    or of a skip guard, or an ``if`` whose body only skips or returns."""
    if isinstance(statement, ast.Pass | ast.Import | ast.ImportFrom | ast.Global):
        return True
    if isinstance(statement, ast.If):
        return not statement.orelse and all(
            isinstance(inner, ast.Return | ast.Raise) or guard_call(index, inner)
            for inner in statement.body
        )
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return True
    if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
        return statement.value is not None and not any(
            isinstance(node, ast.Call) for node in ast.walk(statement.value)
        )
    return guard_call(index, statement)


def guard_call(index: ModuleIndex, statement: ast.stmt) -> bool:
    """``pytest.skip(...)``, ``pytest.importorskip(...)``, a ``skip_if_no_gpu()`` guard."""
    value = statement.value if isinstance(statement, ast.Expr | ast.Assign) else None
    if not isinstance(value, ast.Call):
        return False
    name = index.imports.qualify(value.func) or dotted(value.func) or ""
    return name.startswith("pytest.") or "skip" in name.rsplit(".", 1)[-1].lower()


def parameters(function: Function) -> list[str]:
    arguments = function.args
    names = [arg.arg for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    names += [arg.arg for arg in (arguments.vararg, arguments.kwarg) if arg is not None]
    return names


def note_literals(statement: ast.stmt, local: dict[str, ast.expr | None]) -> None:
    """What a leading assignment binds: ``seed = 0`` then ``manual_seed(seed)``."""
    if isinstance(statement, ast.Assign):
        for target in statement.targets:
            if isinstance(target, ast.Name):
                local[target.id] = statement.value
    elif isinstance(statement, ast.AugAssign | ast.AnnAssign) and isinstance(
        statement.target, ast.Name
    ):
        value = statement.value if isinstance(statement, ast.AnnAssign) else None
        local[statement.target.id] = value


def records_anew(call: ast.Call) -> bool:
    for keyword in call.keywords:
        if keyword.arg == "record_mode":
            mode = literal(keyword.value)
            return not isinstance(mode, str) or mode in RECORDING_ANEW
    return False
