"""Reading a decorator as a program, with a test that fails every time it is called.

A decorator of the repository's own that retries the test it wraps does so in a
``for attempt in range(max_runs)`` loop around ``try: return f(*args, **kwargs)``, a
``while`` with a counter, by calling itself again, or through tenacity inside it, in
as many spellings as there are projects. Rather than match each, detlint applies the
decorator to a stand-in test that raises an AssertionError whenever it is called,
calls what it returns once, and counts the calls of the stand-in until the failure
leaves the wrapper (the test fails) or the wrapper returns (the failure was
swallowed). Only a small part of Python is followed (``wrapper_expressions``):
integers, names, comparisons, ``if``, ``for`` over ``range``, ``while``, ``try``,
``raise``, ``return``, nested functions, lambdas, recursion, ``functools.partial``,
classes and their objects (``wrapper_classes``) and unittest's runner
(``wrapper_unittest``). A call whose result is not known (``time.sleep``, a log line)
is taken to do nothing, and one given the test is noted (``handed``: code not followed
may run it); other constructs end the read. Nothing of the scanned code is imported or
executed. A run can also have the stand-in pass, always or as a sequence says
(``Outcomes``), to see what the decorator does to a test that passes.

A condition on code detlint does not evaluate (``os.environ.get("CI")``) is decided
one way by a run and kept so for the rest of it, since an environment does not change
between attempts; ``retry_wrappers`` runs the decorator once per way of deciding
them, and the runs together say where the retry applies.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.retry_libraries import (
    ASSERTION,
    LIBRARY_DECORATORS,
    catches_assertion,
)
from detlint.readers.python.wrapper_classes import carries_test, holds_test
from detlint.readers.python.wrapper_expressions import is_callable, plain, truth
from detlint.readers.python.wrapper_unittest import RUNNER_NAMES, UnitTests
from detlint.readers.python.wrapper_values import (
    IDENTITY,
    TEST,
    TEST_ARGUMENTS,
    Case,
    Caught,
    ClassValue,
    Closure,
    ExceptionClass,
    GiveUp,
    Instance,
    Library,
    LibraryCalled,
    Member,
    Number,
    Partial,
    Qualified,
    Raised,
    Returned,
    Scope,
    Suite,
    Unknown,
    Value,
)

MAX_STEPS = 20_000
MAX_CALLS = 1_000  # calls of the test past which a retry is taken as one without a limit
MAX_DEPTH = 40
# Calls that end the test with a failure, as a `raise` does.
_FAILING = frozenset({"pytest.fail", "sys.exit", "builtins.exit", "builtins.quit"})
# What the test is, asked of it: a function, not a class (a decorator for both takes
# the function's path). A coroutine function or not is not known.
_KINDS: dict[str, Callable[[Value], Value]] = {
    "inspect.isclass": lambda value: False if is_callable(value) else Unknown("isclass"),
    "inspect.isfunction": lambda value: True if value is TEST else Unknown("isfunction"),
    "builtins.callable": lambda value: True if is_callable(value) else Unknown("callable"),
}
# Functions that look at a function given them and do not run it, and pytest's marks
# (``pytest.mark.parametrize(...)(f)``: a mark that is a knob is read as a mark).
_LOOKS_AT = (
    "builtins.",
    "inspect.",
    "functools.",
    "typing.",
    "asyncio.iscoroutinefunction",
    "pytest.mark.",
)
# Calls after which detlint cannot tell what happens to the test.
_OPAQUE = frozenset({"os.fork", "os._exit", "pytest.skip", "pytest.xfail", "pytest.exit"})


@dataclass(frozen=True)
class Outcomes:
    """Whether each call of the stand-in test passes: ``first`` in order, then ``then``."""

    first: tuple[bool, ...] = ()
    then: bool = False

    def passes(self, call: int) -> bool:
        return self.first[call] if call < len(self.first) else self.then


FAILING = Outcomes()
PASSING = Outcomes(then=True)


@dataclass(frozen=True)
class Met:
    """A condition on code not evaluated, as one run decided it."""

    key: int
    text: str
    value: bool
    filters: bool  # it reads the caught exception: it decides what is retried


class Run(UnitTests):
    """One read of a decorator, with each unknown condition decided as ``decisions`` say
    (True for one not among them), and the stand-in test's calls passing as ``outcomes``
    say."""

    def __init__(
        self,
        index: ModuleIndex,
        decisions: dict[int, bool],
        failure: str,
        outcomes: Outcomes = FAILING,
    ) -> None:
        super().__init__(index, failure)
        self.outcomes = outcomes
        self.decisions = decisions
        self.met: list[Met] = []
        self.calls = 0
        self.steps = 0
        self.active: list[Function] = []
        self.shapes: list[str] = []  # how each call of the test after the first was reached
        self.handed: list[str] = []  # calls not followed that were given the test

    # -- decisions and limits ----------------------------------------------

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise GiveUp("it runs longer than detlint follows", loop=self.calls > 1)

    def decide(self, expression: ast.expr, scope: Scope, filters: bool = False) -> bool:
        key = id(expression)
        for met in self.met:
            if met.key == key:
                return met.value
        value = self.decisions.get(key, True)
        filters = filters or self.reads_caught(expression, scope)
        self.met.append(Met(key, self.text(expression), value, filters))
        return value

    # -- calls -------------------------------------------------------------

    def call(self, expression: ast.Call, scope: Scope) -> Value:
        function = self.value(expression.func, scope)
        args: list[Value] = []
        for argument in expression.args:
            if isinstance(argument, ast.Starred):
                self.value(argument.value, scope)  # passed on, bound to no parameter here
            else:
                args.append(self.value(argument, scope))
        keywords: dict[str, Value] = {}
        for keyword in expression.keywords:
            found = self.value(keyword.value, scope)
            if keyword.arg is not None:
                keywords[keyword.arg] = found
        if isinstance(function, Qualified) and function.name in LIBRARY_DECORATORS:
            if len(args) == 1 and not keywords and is_callable(args[0]):
                return Library(function.name, None, scope, args[0])  # `tenacity.retry(f)`
            return Library(function.name, expression, scope)
        found = self.invoke(function, tuple(args), keywords, expression)
        called = function.name if isinstance(function, Qualified) else ""
        called = function.text if isinstance(function, Unknown) else called
        looks = called.startswith(_LOOKS_AT)
        if (
            isinstance(found, Unknown)
            and not looks
            and any(map(holds_test, (*args, *keywords.values())))
        ):
            self.handed.append(self.text(expression))  # the test given to code not followed
        return found

    def invoke(
        self,
        function: Value,
        args: tuple[Value, ...],
        keywords: dict[str, Value],
        expression: ast.AST | None = None,
    ) -> Value:
        if function is TEST:
            return self.fail()
        if isinstance(function, Closure):
            if not self.follows(function, args, keywords):
                return Unknown(self.text(expression) if expression is not None else "a call")
            return self.enter(function, args, keywords)
        if isinstance(function, Partial):
            merged = {**function.keywords, **keywords}
            return self.invoke(function.target, function.args + args, merged, expression)
        if isinstance(function, ClassValue):
            return self.instantiate(function, args, keywords)
        if isinstance(function, Member):
            return self.call_member(function, args)
        if isinstance(function, Suite | Case | Instance):
            return self.call_object(function, args, keywords)
        if isinstance(function, Library):
            if function.wrapped is None and args:
                return Library(function.name, function.call, function.scope, args[0])
            raise LibraryCalled(function)
        if function is IDENTITY:
            return args[0] if args else IDENTITY
        if isinstance(function, ExceptionClass):
            return function
        if isinstance(function, Qualified):
            return self.imported(function.name, args, keywords)
        if isinstance(function, Unknown) and function.text.endswith(".fail"):
            raise Raised("Failed")  # `self.fail(...)`: unittest's failure
        return Unknown(self.text(expression) if expression is not None else "a call")

    def fail(self) -> Value:
        """A call of the test: it fails, or returns where ``outcomes`` says it passes. A
        second call in a loop whose bound is code not evaluated ends the read: how often
        the test runs is then that code's to say."""
        self.calls += 1
        if self.calls > MAX_CALLS:
            raise GiveUp(f"it calls the test more than {MAX_CALLS} times", loop=True)
        passes = self.outcomes.passes(self.calls - 1)
        if self.calls > 1:
            if not passes:
                recursion = len(self.active) != len(set(map(id, self.active)))
                shape = self.loops[-1] if self.loops else "recursion" if recursion else ""
                self.shapes.append(shape)
            unknown = [bound for bound in self.bounds if bound]
            if unknown:
                raise GiveUp(unknown[-1], loop=True)  # a retry whose limit is that code
        if passes:
            return Unknown("the test's result")
        raise Raised(self.failure)

    def follows(
        self, closure: Closure, args: tuple[Value, ...], keywords: dict[str, Value]
    ) -> bool:
        """Whether a call is followed into the function: one the decorator defines, the
        decorator itself (again: recursion), or a module function given the test or a
        function to wrap, or one that defines functions: a decorator factory the
        decorator hands its arguments on to (``def retry(times): return
        repeat(times, 1)``). Other helpers of the module (a check, a log, a sync with
        other processes) are taken to do nothing, as calls of imported functions are."""
        if closure.scope is not self.module or closure.top:
            return True
        if closure.function in self.active:
            return True
        if any(isinstance(node, Function) for node in closure.function.body):
            return True
        return any(carries_test(value) for value in (*args, *keywords.values()))

    def call_object(
        self, target: Suite | Case | Instance, args: tuple[Value, ...], keywords: dict[str, Value]
    ) -> Value:
        """A suite, a case or an object called: a test case runs, ``__call__`` is followed."""
        if isinstance(target, Instance):
            method = self.member(target, "__call__", "__call__")
            if not isinstance(method, Unknown):
                return self.invoke(method, args, keywords)
        return self.call_member(Member(target, "__call__"), args)

    def imported(self, name: str, args: tuple[Value, ...], keywords: dict[str, Value]) -> Value:
        if name in _KINDS:
            return _KINDS[name](args[0]) if len(args) == 1 else Unknown(f"{name}(...)")
        if name in _FAILING:
            raise Raised(name)
        if name in _OPAQUE:
            raise GiveUp(f"`{name}()`")
        if name in RUNNER_NAMES:
            return self.construct(name, args, keywords)
        if name in ("builtins.setattr", "builtins.getattr") and len(args) >= 2:
            return self.attribute_call(name, args)
        if name in ("functools.wraps", "functools.update_wrapper"):
            return IDENTITY if name.endswith("wraps") else (args[0] if args else IDENTITY)
        if name == "functools.partial" and args:
            return Partial(args[0], args[1:], keywords)
        if name.startswith("builtins."):
            return self.builtin(name[len("builtins.") :], args)
        return Unknown(f"{name}(...)")

    def builtin(self, name: str, args: tuple[Value, ...]) -> Value:
        values = [plain(arg) for arg in args]
        integers = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
        numbers = len(integers) == len(values) > 0
        if name == "range" and numbers and len(integers) <= 3:
            bounds = range(*integers)
            if len(bounds) > MAX_CALLS * 10:
                raise GiveUp("a range too long to follow", loop=True)
            return tuple(bounds)
        if name in ("int", "min", "max") and numbers:
            result = {"int": integers[0], "min": min(integers), "max": max(integers)}[name]
            where: frozenset[str] = frozenset()
            where = where.union(*(a.origins for a in args if isinstance(a, Number)))
            return Number(result, where) if where else result
        if name == "len" and len(args) == 1 and isinstance(args[0], tuple):
            return len(args[0])
        if name == "enumerate" and args and isinstance(args[0], tuple):
            return tuple((place, item) for place, item in enumerate(args[0]))
        if name == "isinstance" and len(args) == 2:
            return self.is_instance(*args)
        if name in ("tuple", "list", "set", "frozenset") and len(args) == 1:
            return args[0] if isinstance(args[0], tuple) else Unknown(f"{name}(...)")
        if name in ("any", "all") and len(args) == 1 and isinstance(args[0], tuple):
            decided = [truth(item) for item in args[0]]
            if None not in decided:
                return any(decided) if name == "any" else all(decided)
        return Unknown(f"{name}(...)")

    def is_instance(self, value: Value, classes: Value) -> Value:
        """``isinstance(e, errors)`` for the caught failure; an exception class listed in
        an argument is no object of a class the module defines (``ErrorCondition``)."""
        if isinstance(value, Caught):
            names = self.exception_names_of(classes)
            if names is not None and value.name == ASSERTION:
                caught = catches_assertion(names)
                return Unknown("isinstance(...)") if caught is None else caught
        if isinstance(value, ExceptionClass) and isinstance(classes, ClassValue):
            return False
        return Unknown("isinstance(...)")

    def exception_names_of(self, value: Value) -> list[str] | None:
        if isinstance(value, ExceptionClass):
            return [value.name]
        if isinstance(value, tuple) and all(isinstance(v, ExceptionClass) for v in value):
            return [v.name for v in value if isinstance(v, ExceptionClass)]
        return None

    def enter(self, closure: Closure, args: tuple[Value, ...], keywords: dict[str, Value]) -> Value:
        function = closure.function
        if len(self.active) >= MAX_DEPTH:
            raise GiveUp("it calls itself too deep to follow", loop=self.calls > 1)
        if any(isinstance(node, ast.Yield | ast.YieldFrom) for node in ast.walk(function)):
            raise GiveUp("a generator")
        scope = Scope(parent=closure.scope)
        self.bind(closure, scope, args, keywords)
        self.active.append(function)
        try:
            self.statements(function.body, scope)
        except Returned as returned:
            return returned.value
        finally:
            self.active.pop()
        return None

    def bind(
        self, closure: Closure, scope: Scope, args: tuple[Value, ...], keywords: dict[str, Value]
    ) -> None:
        """Parameters from the arguments, else their defaults; the decorator the test
        names keeps where each of its integers came from, to quote the count."""
        parameters = closure.function.args
        positional = [*parameters.posonlyargs, *parameters.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(parameters.defaults))
        defaults += parameters.defaults
        pairs = [*zip(positional, defaults, strict=True)]
        pairs += zip(parameters.kwonlyargs, parameters.kw_defaults, strict=True)
        for place, (parameter, default) in enumerate(pairs):
            name = parameter.arg
            value: Value = Unknown(name)
            origin = f"{name}={{}} at the call"
            if place < len(positional) and place < len(args):
                value = args[place]
            elif args and args[-1] is TEST_ARGUMENTS and place < len(positional):
                value = Unknown(name)
            elif name in keywords:
                value = keywords[name]
            elif default is not None:
                value, origin = self.value(default, closure.scope), f"the default {name}={{}}"
            if closure.top and isinstance(value, int) and not isinstance(value, bool):
                value = Number(value, frozenset({origin.format(value)}))
            scope.names[name] = value
        if parameters.vararg is not None:
            rest: Value = tuple(args[len(positional) :])
            if args and args[-1] is TEST_ARGUMENTS:
                rest = TEST_ARGUMENTS
            scope.names[parameters.vararg.arg] = rest
        if parameters.kwarg is not None:
            scope.names[parameters.kwarg.arg] = Unknown(parameters.kwarg.arg)

    def define(self, function: Function, scope: Scope) -> Value:
        """A nested function, with its decorators applied (``@tenacity.retry(...)``
        makes it a library retry; ``@functools.wraps(f)`` changes nothing)."""
        made: Value = Closure(function, scope)
        for decorator in reversed(function.decorator_list):
            applied = self.value(decorator, scope)
            if isinstance(applied, Library) and applied.wrapped is None:
                made = Library(applied.name, applied.call, applied.scope, made)
            elif isinstance(applied, Closure):
                made = self.enter(applied, (made,), {})
        return made
