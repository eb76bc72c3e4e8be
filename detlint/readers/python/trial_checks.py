"""Whether a loop is a trial loop: each iteration can fail the test on what it computed.

A nondeterminism test runs T trials per attempt and fails if any of them shows a
violation; a loop that only builds inputs, waits, looks at one result several
ways, or collects values that one check after it reads in aggregate is no trial
loop, and taking its bound for T would overstate what one attempt detects. A loop
whose passes are counted against a threshold (``assert passes >= 3``) is one, with
that threshold. When unsure, detlint counts one trial (and says "no trial loop
recognised").
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from detlint.model.threshold import Threshold
from detlint.readers.python.count_bounds import CountBounds
from detlint.readers.python.fresh_checks import FreshChecks
from detlint.readers.python.fresh_values import acts, starts_workers
from detlint.readers.python.loop_tallies import tallies
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.retry_loops import retry_reason
from detlint.readers.python.tally_checks import AT_LEAST_ONE, EACH, Reading, TallyChecks
from detlint.readers.python.walk import SCOPES as _NESTED

# Calls that check a value: assertion helpers of pytest, unittest, numpy and torch.
_CHECK_PREFIXES = ("assert", "fail")
# What a polling loop waits with; a loop that sleeps waits for something, it does not try.
_SLEEPS = frozenset({"sleep", "wait_for", "wait"})
_TIMERS = frozenset({"time", "monotonic", "perf_counter", "process_time"})
# Calls and exceptions that end a test as skipped (or expected to fail): no check.
_SKIP_CALLS = frozenset({"skip", "xfail", "importorskip", "skipTest"})
_SKIP_ERRORS = frozenset({"SkipTest", "Skipped", "SkipException", "XFailed"})
# unittest and numpy assertions, as the comparison they require.
_ASSERT_CALLS: dict[str, type[ast.cmpop] | None] = {
    "assertEqual": ast.Eq,
    "assertEquals": ast.Eq,
    "assertListEqual": ast.Eq,
    "assertSequenceEqual": ast.Eq,
    "assertSetEqual": ast.Eq,
    "assertDictEqual": ast.Eq,
    "assertTupleEqual": ast.Eq,
    "assert_equal": ast.Eq,
    "assert_array_equal": ast.Eq,
    "assertNotEqual": ast.NotEq,
    "assertGreater": ast.Gt,
    "assertGreaterEqual": ast.GtE,
    "assertLess": ast.Lt,
    "assertLessEqual": ast.LtE,
    "assertTrue": None,
}


@dataclass(frozen=True)
class LoopVerdict:
    """Whether a loop is a trial loop, with the pass threshold its checks set (None:
    any failing iteration fails the test), or why it is not one."""

    trial: bool
    threshold: Threshold | None = None
    reason: str = ""


CallCheck = Callable[[ast.Call], bool]  # a check through a function beyond the module's
NOT_CHECKED = LoopVerdict(False, reason="no iteration checks what it computed")
EACH_ITERATION = LoopVerdict(True)


def called(node: ast.AST) -> str:
    """The last name a call calls: ``np.testing.assert_allclose(...)`` -> ``assert_allclose``."""
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def own_nodes(statements: list[ast.stmt]) -> tuple[ast.AST, ...]:
    """The nodes of some statements, without those of functions defined in them.

    Loops are read level by level, each level asking for the nodes of the bodies
    around it again, so the walk is kept on the first statement (the tree is never
    changed while a module is read)."""
    if not statements:
        return ()
    memo: dict[tuple[int, int], tuple[ast.AST, ...]] = statements[0].__dict__.setdefault(
        "_detlint_own_nodes", {}
    )
    key = (len(statements), id(statements[-1]))
    cached = memo.get(key)
    if cached is None:
        cached = memo[key] = tuple(_walk_own(statements))
    return cached


def _walk_own(statements: list[ast.stmt]) -> list[ast.AST]:
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(
            child for child in ast.iter_child_nodes(node) if not isinstance(child, _NESTED)
        )
    return found


def _indexes_by(target: ast.expr, nodes: Sequence[ast.AST]) -> bool:
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


def _raises_skip(node: ast.Raise) -> bool:
    """``raise unittest.SkipTest(...)``: the test ends skipped, it does not fail."""
    error = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    name = error.attr if isinstance(error, ast.Attribute) else getattr(error, "id", "")
    return isinstance(name, str) and name in _SKIP_ERRORS


def skips(node: ast.AST) -> bool:
    """Whether a node ends the test as skipped: ``pytest.skip(...)``, ``pytest.xfail(...)``,
    ``pytest.importorskip(...)``, ``self.skipTest(...)``, ``raise SkipTest``."""
    if isinstance(node, ast.Raise):
        return _raises_skip(node)
    return called(node) in _SKIP_CALLS


def _is_timer_check(node: ast.Assert) -> bool:
    """``assert time() < start + 5``: a deadline, not a check of what a trial computed."""
    return any(called(inner) in _TIMERS for inner in ast.walk(node.test))


def _fails(statements: list[ast.stmt]) -> bool:
    """Whether a block fails the test outright: ``raise``, ``pytest.fail(...)``,
    ``self.fail(...)``, ``assert False``."""
    for statement in statements:
        if isinstance(statement, ast.Raise):
            return not _raises_skip(statement)
        if isinstance(statement, ast.Expr) and called(statement.value) == "fail":
            return True
        if isinstance(statement, ast.Assert) and isinstance(statement.test, ast.Constant):
            return not statement.test.value
    return False


def holds_checks(index: ModuleIndex, function: Function) -> bool:
    """Whether a function checks something itself: an ``assert``, a ``raise``, an
    assertion helper, or a helper of its module that asserts (one level down)."""
    checks = TrialChecks(index, function)
    return any(checks.checks(node) for node in own_nodes(function.body))


def required(node: ast.AST) -> ast.expr | None:
    """What a statement requires to be true for the test to pass, when it is a check:
    an ``assert``'s test, ``not X`` for ``if X: pytest.fail(...)``, the comparison an
    assertion method makes (``self.assertEqual(errors, [])``)."""
    if isinstance(node, ast.Assert):
        return node.test
    if isinstance(node, ast.If) and _fails(node.body) and not node.orelse:
        return ast.UnaryOp(op=ast.Not(), operand=node.test)
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return None
    call = node.value
    name = called(call)
    args = call.args
    if name == "assertFalse" and args:
        return ast.UnaryOp(op=ast.Not(), operand=args[0])
    if name not in _ASSERT_CALLS or not args:
        return None
    operator = _ASSERT_CALLS[name]
    if operator is None:
        return args[0]
    if len(args) < 2:
        return None
    return ast.Compare(left=args[0], ops=[operator()], comparators=[args[1]])


class TrialChecks:
    """Whether a loop is a trial loop: each iteration can fail the test on its own.

    A trial loop checks what each iteration computed (or checks after running code
    that changes what it reads, ``with pool: assert pool.status == STARTED``): an
    ``assert``, a ``raise``, ``pytest.fail``, an assertion helper (``assert_close``,
    ``self.assertEqual``) or a helper of this module that asserts; or it keeps a
    count or list that a check after the loop reads so that any failing iteration
    fails it (``mismatches += 1`` then ``if mismatches: pytest.fail(...)``), or
    enough of them do (``passes += 1`` then ``assert passes >= 3``). A loop that
    builds inputs (``append``, ``submit``), collects values one check reads in
    aggregate (``assert mean(losses) < x``), a comprehension outside
    ``all``/``any``, a loop whose variable picks the item it checks
    (``expected[i]``), one that re-checks values computed before it and runs
    nothing between its checks, a polling loop that sleeps before it checks, or a
    retry that stops at its first success or swallows a failing check
    (``retry_loops``), is not: one attempt
    of such a test is one trial, however many times the loop turns.
    """

    def __init__(
        self, index: ModuleIndex, function: Function, elsewhere: CallCheck | None = None
    ) -> None:
        self.index = index
        self.function = function
        self.elsewhere = elsewhere
        self._asserting: dict[str, bool] = {}
        self._fresh = FreshChecks(index, function)
        self._nodes: Sequence[ast.AST] | None = None

    def each_iteration(
        self,
        loop: ast.For | ast.AsyncFor | ast.comprehension,
        bound: ast.expr,
        cases: bool = False,
    ) -> LoopVerdict:
        """``cases``: each iteration runs a case whole (``(20, 50) * 3``): it cannot poll."""
        if isinstance(loop, ast.comprehension):
            return self._in_assert(loop)
        retry = retry_reason(loop, self.checks)
        if retry:
            return LoopVerdict(False, reason=retry)
        nodes = own_nodes(loop.body)
        if not cases and self._waits(loop):
            return LoopVerdict(False, reason="the loop waits (it sleeps), it does not try")
        if _indexes_by(loop.target, nodes):
            return LoopVerdict(
                False, reason="the loop variable picks the case each iteration checks"
            )
        checking = [node for node in nodes if self.checks(node)]
        if self._fresh.any_fresh(loop, nodes, checking) or (checking and acts(nodes)):
            return EACH_ITERATION
        if checking:
            return LoopVerdict(
                False, reason="each iteration re-checks values computed before the loop"
            )
        if starts_workers(nodes):
            return LoopVerdict(False, reason="the loop starts workers, whose checks run apart")
        return self._checked_after(loop, bound)

    def _waits(self, loop: ast.For | ast.AsyncFor) -> bool:
        """Whether a loop that sleeps waits: it sleeps before it checks (it waits for
        something to happen, then looks), or its passes read their index (each a step
        of one sequence, ``assert str(i) in text`` after the i-th re-entry, paced by
        the sleep). One that repeats the same check and then sleeps (``await
        m.refresh(); assert m.beat > t; await asyncio.sleep(0.1)``) spaces its trials
        out: each pass can fail the test on what it just read."""
        nodes = own_nodes(loop.body)
        if not any(called(node) in _SLEEPS for node in nodes):
            return False
        index = {name.id for name in ast.walk(loop.target) if isinstance(name, ast.Name)}
        if any(isinstance(node, ast.Name) and node.id in index for node in nodes):
            return True
        for statement in loop.body:
            nodes = own_nodes([statement])
            if any(called(node) in _SLEEPS for node in nodes):
                return True
            if any(self.checks(node) for node in nodes):
                return False
        return False

    def checks(self, node: ast.AST, depth: int = 0) -> bool:
        if isinstance(node, ast.Assert):
            return not _is_timer_check(node)
        if isinstance(node, ast.Raise):
            return not _raises_skip(node)
        name = called(node)
        if not name:
            return False
        if name.startswith(_CHECK_PREFIXES):
            return True
        if depth == 0 and isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and self._helper_asserts(name):
                return True
            return self.elsewhere is not None and self.elsewhere(node)
        return False

    def _helper_asserts(self, name: str) -> bool:
        found = self._asserting.get(name)
        if found is None:
            helper = self.index.functions.get(name)
            found = helper is not None and any(
                self.checks(node, 1) for node in own_nodes(helper.body)
            )
            self._asserting[name] = found
        return found

    def _checked_after(self, loop: ast.For | ast.AsyncFor, bound: ast.expr) -> LoopVerdict:
        """The counting pattern: what the loop kept, read by the checks after it."""
        kept = tallies(loop.body)
        if not kept:
            return NOT_CHECKED
        checks = TallyChecks(kept, CountBounds(bound, self._assigned_once, kept))
        inside = {id(node) for node in own_nodes(loop.body)}
        readings: list[Reading] = []
        for node in self._function_nodes():
            if id(node) in inside or getattr(node, "lineno", 0) <= loop.lineno:
                continue
            if isinstance(node, ast.For | ast.AsyncFor) and self._checks_items(node, checks):
                readings.append(EACH)
                continue
            expression = required(node)
            if expression is not None:
                readings += checks.readings(expression)
        return _verdict(readings)

    def _checks_items(self, loop: ast.For | ast.AsyncFor, checks: TallyChecks) -> bool:
        """``for x in errors: assert x < tol`` or ``for i in range(1, len(outs)): assert
        outs[i] == outs[0]`` after the loop: each kept value is checked on its own. A
        loop after it that computes what it checks (``assert func(x) == expected(x)``,
        ``reply = kc.get_shell_msg()``) runs trials of its own on what the first one
        built: the first loop's count is not theirs."""
        nodes = own_nodes(loop.body)
        checks_found = [node for node in nodes if self.checks(node)]
        if not checks_found or self._fresh.any_fresh(loop, nodes, checks_found):
            return False
        if checks.reads(loop.iter):
            return True
        return any(isinstance(node, ast.Subscript) and checks.reads(node.value) for node in nodes)

    def _assigned_once(self, name: str) -> ast.expr | None:
        """The value of a name the function assigns once (else the module's), for bounds."""
        values = [
            node.value
            for node in self._function_nodes()
            if isinstance(node, ast.Assign)
            and any(isinstance(target, ast.Name) and target.id == name for target in node.targets)
        ]
        if len(values) == 1:
            return values[0]
        if not values:
            return self.index.assignments.get(name)
        return None

    def _function_nodes(self) -> Sequence[ast.AST]:
        if self._nodes is None:
            self._nodes = own_nodes(self.function.body)
        return self._nodes

    def _in_assert(self, loop: ast.comprehension) -> LoopVerdict:
        """A comprehension is a trial loop inside ``assert all(...)`` (or ``not any``) when
        its element computes afresh; ``assert any(...)`` passes on one passing trial."""
        for node in self._function_nodes():
            if not isinstance(node, ast.Assert):
                continue
            for required_node, negated in _conjuncts(node.test):
                if not (isinstance(required_node, ast.Call) and len(required_node.args) == 1):
                    continue
                argument = required_node.args[0]
                if not (isinstance(argument, ast.GeneratorExp | ast.ListComp)):
                    continue
                if argument.generators[0] is not loop or not self._fresh.element(argument.elt):
                    continue
                name = called(required_node)
                if (name, negated) in (("all", False), ("any", True)):
                    return EACH_ITERATION
                if (name, negated) == ("any", False):
                    return LoopVerdict(True, AT_LEAST_ONE.threshold)
        return LoopVerdict(False, reason="the comprehension builds a value, it does not try")


def _conjuncts(test: ast.expr) -> list[tuple[ast.expr, bool]]:
    """The parts an assert requires, each with whether it is negated."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [part for value in test.values for part in _conjuncts(value)]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return [(test.operand, True)]
    return [(test, False)]


def _verdict(readings: list[Reading]) -> LoopVerdict:
    """A loop with any check that fails on one failing iteration runs trials; else one
    threshold, when the checks agree on it; else (aggregates, bounds not read, two
    thresholds) no trial count."""
    if not readings:
        return NOT_CHECKED
    if any(reading.kind == "each" for reading in readings):
        return EACH_ITERATION
    thresholds = {reading.threshold for reading in readings if reading.kind == "threshold"}
    if any(reading.kind == "unresolved" for reading in readings):
        return LoopVerdict(
            False, reason="a count of trials is compared with a bound detlint does not resolve"
        )
    if len(thresholds) == 1:
        return LoopVerdict(True, thresholds.pop())
    if thresholds:
        return LoopVerdict(False, reason="the trials are counted against more than one threshold")
    return LoopVerdict(False, reason="the loop collects values that one check after it reads")
