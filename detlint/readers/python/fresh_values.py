"""What one iteration of a loop computes afresh, and what it only looks at again.

A trial re-runs the code under test: ``out = kernel(x)`` in the loop body, a call
in the check itself (``assert run() == 1``), or a statement between the checks that
runs code (``with pool:`` starting and stopping a pool, ``pool.restart()``, ``await
client.reconnect()``), after which the same names hold what this iteration made.
An iteration that only reads values computed before the loop (``assert out[i] ==
reloaded[i]``), directly or through names it derives from them (``a = out[i]``),
or inspects them with functions that compute nothing new (``len``, ``torch.equal``,
``np.allclose``), checks one result again, however many times the loop turns.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from detlint.readers.python.walk import SCOPES as _NESTED

# Functions and methods that look at a value rather than run code under test.
_INSPECTING = frozenset(
    {
        "len",
        "str",
        "repr",
        "int",
        "float",
        "bool",
        "isinstance",
        "type",
        "sorted",
        "list",
        "set",
        "tuple",
        "dict",
        "abs",
        "min",
        "max",
        "sum",
        "all",
        "any",
        "round",
        "zip",
        "enumerate",
        "range",
        "reversed",
        "getattr",
        "hasattr",
        "callable",
    }
)
_INSPECTING_METHODS = frozenset(
    {
        "count",
        "index",
        "find",
        "startswith",
        "endswith",
        "get",
        "keys",
        "values",
        "items",
        "lower",
        "upper",
        "strip",
        "lstrip",
        "rstrip",
        "split",
        "rsplit",
        "partition",
        "rpartition",
        "removeprefix",
        "removesuffix",
        "casefold",
        "encode",
        "decode",
        "isdigit",
        "isspace",
        "join",
        "format",
        "splitlines",
        "replace",
        # a record as a dict or JSON (pydantic, pandas, dataclass-like models)
        "dict",
        "json",
        "model_dump",
        "to_dict",
        # a pattern searched for in a text, a path looked up
        "search",
        "match",
        "fullmatch",
        "findall",
        "exists",
        "isfile",
        "isdir",
        # comparisons and conversions of numbers, arrays and tensors
        "equal",
        "allclose",
        "isclose",
        "array_equal",
        "item",
        "tolist",
        "numpy",
        "cpu",
        "detach",
        "all",
        "any",
        "abs",
        "sum",
        "mean",
        "max",
        "min",
        "std",
        "numel",
        "size",
        "dim",
        "eq",
        "ne",
        "isfinite",
        "isnan",
        "isinf",
        # the parts of one model or module
        "parameters",
        "named_parameters",
        "buffers",
        "named_buffers",
        "modules",
        "named_modules",
        "children",
        "named_children",
        "state_dict",
    }
)
# Calls whose statement runs no code under test: output, and the collections a test
# builds for itself (``seen.append(x)``).
_QUIET = frozenset(
    {
        "print",
        "pprint",
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "exception",
        "critical",
        "log",
        "append",
        "extend",
        "add",
        "insert",
    }
)
# Context managers that check or scope a block (``pytest.raises``, ``self.subTest``,
# ``torch.no_grad``) rather than run code under test on entry and exit.
_SCOPES = frozenset(
    {
        "raises",
        "warns",
        "deprecated_call",
        "assertRaises",
        "assertRaisesRegex",
        "assertWarns",
        "assertWarnsRegex",
        "assertLogs",
        "assertNoLogs",
        "subTest",
        "test",
        "no_grad",
        "inference_mode",
        "enable_grad",
        "catch_warnings",
        "suppress",
        "nullcontext",
    }
)
_CHECK_PREFIXES = ("assert", "fail")
# What starts a worker that runs a function passed to it, outside the test's own code.
_WORKERS = frozenset({"Process", "Thread", "Timer"})
# Names of functions that only look values up (``looks_up``), called by name.
Lookups = frozenset[str]


def computes(call: ast.Call) -> bool:
    """Whether a call computes something new (``kernel(x)``, ``llm.generate(p)``,
    ``random.random()``) rather than look at a value already there (``len(out)``,
    ``out.count("x")``, ``torch.equal(a, b)``)."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id not in _INSPECTING
    if isinstance(func, ast.Attribute):
        return func.attr not in _INSPECTING_METHODS
    return True


def computed(check: ast.AST, fresh: set[str], lookups: Lookups = frozenset()) -> bool:
    """Whether a check (or a value) looks at something its iteration computed: a name
    bound afresh, an awaited result, or what a call returns (``assert run() == 1``).
    ``for n in range(k): assert out.count(str(n)) == 1`` inspects one result k ways:
    one trial, not k. ``lookups`` are functions the test defines that only look values
    up (``expected(row.ref)``): calling one computes nothing new."""
    if isinstance(check, ast.Raise):
        return True  # outside any `if` of the loop's: the test decides what failed
    if (
        isinstance(check, ast.Call)
        and isinstance(check.func, ast.Name)
        and not check.func.id.startswith(_CHECK_PREFIXES)
        and check.func.id not in _INSPECTING
        and check.func.id not in lookups
    ):
        return True  # a helper of this module that asserts: it runs the trial itself
    return any(
        _afresh(node, fresh, lookups) and not (node is check and isinstance(node, ast.Call))
        for node in ast.walk(check)
    )


def checked_conditions(body: list[ast.stmt]) -> dict[int, tuple[ast.expr, ...]]:
    """The ``if`` tests each ``raise`` or ``fail(...)`` of a loop body is under, by the
    id of the node: ``if not isinstance(col, Quiver): raise AssertionError(...)`` checks
    what ``assert isinstance(col, Quiver)`` does, so the tests are what it looks at (its
    message, ``type(col)``, is no part of the check)."""
    found: dict[int, tuple[ast.expr, ...]] = {}
    stack: list[tuple[ast.AST, tuple[ast.expr, ...]]] = [(node, ()) for node in body]
    while stack:
        node, tests = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, ast.If):
            stack.append((node.test, tests))
            inner = (*tests, node.test)
            stack.extend((child, inner) for child in (*node.body, *node.orelse))
            continue
        failing = isinstance(node, ast.Raise) or (
            isinstance(node, ast.Call) and _called_name(node).startswith("fail")
        )
        if failing and tests:
            found[id(node)] = tests
        stack.extend((child, tests) for child in ast.iter_child_nodes(node))
    return found


def starts_workers(nodes: Sequence[ast.AST]) -> bool:
    """Whether a loop body (its own nodes) starts a process or thread
    (``mp.Process(target=self._child, args=(i,)).start()``): the function it passes
    runs in the worker, where a failing check cannot fail the test, and what the loop
    keeps (queues, handles) holds no result yet; a later loop that reads them is the
    one that checks. An executor's ``submit(f, x)`` is no such start: a test that
    calls ``.result()`` on its future gets the function's exception."""
    return any(
        isinstance(node, ast.Call)
        and (
            _called_name(node) in _WORKERS
            or any(keyword.arg == "target" for keyword in node.keywords)
        )
        for node in nodes
    )


def looks_up(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function only looks values up: its body reads its parameters, the
    names around it, subscripts, attributes and literals, loops and compares, and calls
    nothing that computes (an error it raises is no value it makes). Arithmetic makes a
    value (``return seed % 7 != 3`` may stand for the code under test): no look-up."""
    raised = {
        id(node.exc)
        for node in ast.walk(function)
        if isinstance(node, ast.Raise) and node.exc is not None
    }
    for statement in function.body:
        for node in ast.walk(statement):
            if isinstance(node, (*_NESTED, ast.Await, ast.Yield, ast.YieldFrom, ast.BinOp)):
                return False
            if isinstance(node, ast.Call) and id(node) not in raised and computes(node):
                return False
    return True


def _acting_call(call: ast.Call) -> bool:
    """A call made as a statement of its own that runs code: not an inspection, a
    check, output or a list the test fills."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return computes(call) and not name.startswith(_CHECK_PREFIXES) and name not in _QUIET


def _enters(context: ast.expr) -> bool:
    """Whether entering a ``with`` item runs code: an object's own context (``with
    pool:``) or a call of one (``with server.running():``), not a scope that checks."""
    if isinstance(context, ast.Call):
        func = context.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name not in _SCOPES and not name.startswith(_CHECK_PREFIXES)
    return isinstance(context, ast.Name | ast.Attribute)


def acts(nodes: Sequence[ast.AST]) -> bool:
    """Whether a loop body (its own nodes) runs code between its checks: a call made
    as a statement (``pool.restart()``), an ``await``, a ``with`` that enters an
    object's context, or a name bound to what a call computes. After such a
    statement the values the next check reads (``pool.status``,
    ``proc.children()``) are this iteration's, even when they belong to an object
    made before the loop: the iteration is a trial, not a re-check of one result."""
    return any(_acting(node) for node in nodes)


def _acting(node: ast.AST) -> bool:
    if isinstance(node, ast.Expr):
        value = node.value
        return isinstance(value, ast.Await) or (isinstance(value, ast.Call) and _acting_call(value))
    if isinstance(node, ast.With | ast.AsyncWith):
        return any(_enters(item.context_expr) for item in node.items)
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        return node.value is not None and _value_computed(node.value, set())
    return False


def _afresh(node: ast.AST, fresh: set[str], lookups: Lookups = frozenset()) -> bool:
    if isinstance(node, ast.Name):
        return node.id in fresh
    if isinstance(node, ast.Call):
        return computes(node) and _called_name(node) not in lookups
    return isinstance(node, ast.Await)


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _value_computed(value: ast.AST, fresh: set[str], lookups: Lookups = frozenset()) -> bool:
    """Whether a value bound in the loop body is computed afresh: it reads a fresh name,
    awaits, or calls something that computes."""
    return any(_afresh(node, fresh, lookups) for node in ast.walk(value))


def _bindings(node: ast.AST) -> tuple[list[ast.AST], ast.AST | None]:
    """(targets, the value they are bound from) of a binding node; no targets for others."""
    if isinstance(node, ast.Assign):
        return list(node.targets), node.value
    if isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
        return [node.target], node.value
    if isinstance(node, ast.For | ast.AsyncFor):
        return [node.target], node.iter
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [node.optional_vars], node.context_expr
    return [], None


def fresh_names(nodes: Sequence[ast.AST], lookups: Lookups = frozenset()) -> set[str]:
    """The names a loop body binds to what its iteration computed: a name bound from
    values computed before the loop (``a = out[i]``) is not one, the loop's own
    variable neither. An object changed in place (``counter.shift()`` before ``assert
    counter.total == 1``) binds no name: ``acts`` says that such an iteration runs
    code before its checks. A counter the body
    raises (``fails += 1``, under an ``if`` that runs the code) counts what this
    iteration saw: it is fresh whatever it is raised by."""
    fresh = {
        node.target.id
        for node in nodes
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)
    }
    bindings = [_bindings(node) for node in nodes]
    grew = True
    while grew:
        grew = False
        for targets, value in bindings:
            if value is None or not _value_computed(value, fresh, lookups):
                continue
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and name.id not in fresh:
                        fresh.add(name.id)
                        grew = True
    return fresh
