"""Whether a loop is a trial loop: each iteration can fail the test on what it computed.

A nondeterminism test runs T trials per attempt and fails if any of them shows a
violation; a loop that only builds inputs, waits, or looks at one result several
ways is no trial loop, and taking its bound for T would overstate what one
attempt detects. When unsure, detlint counts one trial (and says "no trial loop
recognised").
"""

from __future__ import annotations

import ast

from detlint.readers.python.module_index import Function, ModuleIndex

# Calls that check a value: assertion helpers of pytest, unittest, numpy and torch.
_CHECK_PREFIXES = ("assert", "fail")
# What a polling loop waits with; a loop that sleeps waits for something, it does not try.
_SLEEPS = frozenset({"sleep", "wait_for", "wait"})
_TIMERS = frozenset({"time", "monotonic", "perf_counter", "process_time"})
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _called(node: ast.AST) -> str:
    """The last name a call calls: ``np.testing.assert_allclose(...)`` -> ``assert_allclose``."""
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _own_nodes(statements: list[ast.stmt]) -> list[ast.AST]:
    """The nodes of some statements, without those of functions defined in them."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(
            child for child in ast.iter_child_nodes(node) if not isinstance(child, _NESTED)
        )
    return found


def _indexes_by(target: ast.expr, nodes: list[ast.AST]) -> bool:
    """Whether the loop variable picks an item (``expected[i]``): each iteration checks
    a different case (spyder's ``for i in range(5): ... assert position ==
    match_positions[i]``), not the same computation again, so the loop is no trial."""
    if not isinstance(target, ast.Name):
        return False
    name = target.id
    return any(
        isinstance(node, ast.Subscript)
        and any(isinstance(inner, ast.Name) and inner.id == name for inner in ast.walk(node.slice))
        for node in nodes
    )


def _is_timer_check(node: ast.Assert) -> bool:
    """``assert time() < start + 5``: a deadline, not a check of what a trial computed."""
    return any(_called(inner) in _TIMERS for inner in ast.walk(node.test))


class TrialChecks:
    """Whether a loop is a trial loop: each iteration can fail the test on its own.

    A trial loop checks what each iteration computed: an ``assert``, a
    ``raise``, ``pytest.fail``, an assertion helper (``assert_close``,
    ``self.assertEqual``) or a helper of this module that asserts; or it counts
    the mismatches it sees in a name that a check after the loop reads
    (``mismatches += 1`` then ``if mismatches: pytest.fail(...)``). A loop that
    builds inputs (``append``, ``submit``), a comprehension outside an assert,
    a loop whose variable picks the item it checks (``expected[i]``), or a polling
    loop that sleeps, is not: one attempt of such a test is one
    trial, however many times the loop turns.
    """

    def __init__(self, index: ModuleIndex, function: Function) -> None:
        self.index = index
        self.function = function
        self._asserting: dict[str, bool] = {}
        self._nodes: list[ast.AST] | None = None

    def each_iteration(self, loop: ast.For | ast.AsyncFor | ast.comprehension) -> bool:
        if isinstance(loop, ast.comprehension):
            return self._in_assert(loop)
        nodes = _own_nodes(loop.body)
        if any(_called(node) in _SLEEPS for node in nodes):
            return False
        if _indexes_by(loop.target, nodes):
            return False
        fresh = _assigned(nodes)
        if any(self._checks(node) and _computed(node, fresh) for node in nodes):
            return True
        return self._checked_after(loop, nodes)

    def _checks(self, node: ast.AST, depth: int = 0) -> bool:
        if isinstance(node, ast.Assert):
            return not _is_timer_check(node)
        if isinstance(node, ast.Raise):
            return True
        name = _called(node)
        if not name:
            return False
        if name.startswith(_CHECK_PREFIXES):
            return True
        if depth == 0 and isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return self._helper_asserts(name)
        return False

    def _helper_asserts(self, name: str) -> bool:
        found = self._asserting.get(name)
        if found is None:
            helper = self.index.functions.get(name)
            found = helper is not None and any(
                self._checks(node, 1) for node in _own_nodes(helper.body)
            )
            self._asserting[name] = found
        return found

    def _checked_after(self, loop: ast.For | ast.AsyncFor, nodes: list[ast.AST]) -> bool:
        """The counting pattern: a name the loop updates is checked after it."""
        counted: set[str] = set()
        for node in nodes:
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                counted.add(node.target.id)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "add", "extend")
                and isinstance(node.func.value, ast.Name)
            ):
                counted.add(node.func.value.id)
        if not counted:
            return False
        inside = {id(node) for node in nodes}
        for node in self._function_nodes():
            if id(node) in inside or getattr(node, "lineno", 0) <= loop.lineno:
                continue
            if isinstance(node, ast.Assert) and _names(node.test) & counted:
                return True
            if (
                isinstance(node, ast.If)
                and _names(node.test) & counted
                and any(self._checks(inner) for inner in _own_nodes(node.body))
            ):
                return True
        return False

    def _function_nodes(self) -> list[ast.AST]:
        if self._nodes is None:
            self._nodes = _own_nodes(self.function.body)
        return self._nodes

    def _in_assert(self, loop: ast.comprehension) -> bool:
        for node in self._function_nodes():
            if isinstance(node, ast.Assert) and any(inner is loop for inner in ast.walk(node.test)):
                return True
        return False


# Calls that inspect a value rather than compute a new one.
_INSPECTING = frozenset(
    {"len", "str", "repr", "int", "float", "bool", "isinstance", "type", "sorted", "list", "set"}
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
    }
)


def _assigned(nodes: list[ast.AST]) -> set[str]:
    """The names a loop body binds: what each iteration computes afresh."""
    found: set[str] = set()
    for node in nodes:
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
            targets = [node.target]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets = [node.optional_vars]
        elif isinstance(node, ast.NamedExpr):
            targets = [node.target]
        for target in targets:
            found |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return found


def _computed(check: ast.AST, fresh: set[str]) -> bool:
    """Whether a check looks at something its iteration computed: a name the loop body
    binds, an awaited result, or what a function call returns (``assert run() == 1``).
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
    for node in ast.walk(check):
        if isinstance(node, ast.Name) and node.id in fresh:
            return True
        if isinstance(node, ast.Await):
            return True
        if node is not check and isinstance(node, ast.Call) and _computes(node):
            return True
    return False


def _computes(call: ast.Call) -> bool:
    """Whether a call computes something new (``kernel(x)``, ``llm.generate(p)``,
    ``random.random()``) rather than look at a value already there (``len(out)``,
    ``out.count("x")``)."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id not in _INSPECTING
    if isinstance(func, ast.Attribute):
        return func.attr not in _INSPECTING_METHODS
    return True


def _names(node: ast.AST) -> set[str]:
    return {inner.id for inner in ast.walk(node) if isinstance(inner, ast.Name)}
