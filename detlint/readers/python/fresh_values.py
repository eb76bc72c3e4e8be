"""What one iteration of a loop computes afresh, and what it only looks at again.

A trial re-runs the code under test: ``out = kernel(x)`` in the loop body, a call
in the check itself (``assert run() == 1``). An
iteration that only reads values computed before the loop (``assert out[i] ==
reloaded[i]``), directly or through names it derives from them (``a = out[i]``),
or inspects them with functions that compute nothing new (``len``, ``torch.equal``,
``np.allclose``), checks one result again, however many times the loop turns.
"""

from __future__ import annotations

import ast

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
        "split",
        "join",
        "format",
        "splitlines",
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
_CHECK_PREFIXES = ("assert", "fail")
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


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


def computed(check: ast.AST, fresh: set[str]) -> bool:
    """Whether a check (or a value) looks at something its iteration computed: a name
    bound afresh, an awaited result, or what a call returns (``assert run() == 1``).
    ``for n in range(k): assert out.count(str(n)) == 1`` inspects one result k ways:
    one trial, not k."""
    if isinstance(check, ast.Raise):
        return True  # under the loop's own `if`: the test decides what failed
    if (
        isinstance(check, ast.Call)
        and isinstance(check.func, ast.Name)
        and not check.func.id.startswith(_CHECK_PREFIXES)
    ):
        return True  # a helper of this module that asserts: it runs the trial itself
    return any(
        _afresh(node, fresh) and not (node is check and isinstance(node, ast.Call))
        for node in ast.walk(check)
    )


def _afresh(node: ast.AST, fresh: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in fresh
    if isinstance(node, ast.Call):
        return computes(node)
    return isinstance(node, ast.Await)


def _value_computed(value: ast.AST, fresh: set[str]) -> bool:
    """Whether a value bound in the loop body is computed afresh: it reads a fresh name,
    awaits, or calls something that computes."""
    return any(_afresh(node, fresh) for node in ast.walk(value))


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


def fresh_names(nodes: list[ast.AST]) -> set[str]:
    """The names a loop body binds to what its iteration computed: a name bound from
    values computed before the loop (``a = out[i]``) is not one, the loop's own
    variable neither. An object changed in place (``counter.shift()`` before ``assert
    counter.total == 1``) is not followed: such a loop walks one object through its
    states, and counting it one trial says less rather than more. A counter the body
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
            if value is None or not _value_computed(value, fresh):
                continue
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and name.id not in fresh:
                        fresh.add(name.id)
                        grew = True
    return fresh
