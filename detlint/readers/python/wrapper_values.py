"""The values a decorator's code is read with, and how a read ends early.

``wrapper_runs`` reads a decorator as a small program over these: Python's own
numbers, strings, booleans, None and tuples; ``Number``, an integer that came from
the decorator's arguments or a module constant and remembers where; ``TEST``, the
stand-in for the wrapped test, which fails whenever it is called; functions the
decorator defines (``Closure``); names it imports (``Qualified``); exception
classes; classes of its code and their objects (``ClassValue``, ``Instance``);
unittest's suites, cases, results and runners; and ``Unknown``, code detlint does not
evaluate, kept as written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    import ast

    from detlint.readers.python.module_index import Function


@dataclass(frozen=True)
class Unknown:
    """A value detlint does not evaluate: ``os.environ.get("CI")``, ``self.runs``."""

    text: str


@dataclass(frozen=True)
class Number:
    """An integer from the decorator's arguments, its defaults or a module constant;
    ``origins`` say where ("max_runs=5 at the call"), so that a count can name them."""

    value: int
    origins: frozenset[str]


class _Test:
    """The wrapped test: every call of it fails with an AssertionError."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "TEST"


TEST = _Test()


@dataclass(frozen=True)
class Qualified:
    """A name imported from elsewhere, as qualified: ``tenacity.retry``, ``time.sleep``."""

    name: str


@dataclass(frozen=True)
class ExceptionClass:
    """An exception class (or an instance of it), by name: ``ConnectionError``."""

    name: str


@dataclass(frozen=True)
class Caught:
    """The exception an ``except`` clause holds: the test's failure, or another."""

    name: str


class Missing:
    """No binding: a name the running functions do not define (None is a value)."""

    __slots__ = ()


MISSING = Missing()


@dataclass(eq=False)
class Scope:
    """The names of one running function, and of the functions around it."""

    names: dict[str, Value] = field(default_factory=dict)
    parent: Scope | None = None
    shared: set[str] = field(default_factory=set)  # declared nonlocal or global

    def lookup(self, name: str) -> Value | Missing:
        """The value bound to ``name`` here or around, or ``MISSING``."""
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return MISSING

    def assign(self, name: str, value: Value) -> None:
        """Bind ``name`` here, or where it lives when it is declared nonlocal or global."""
        scope: Scope = self
        if name in self.shared and self.parent is not None:
            scope = self.parent
            while name not in scope.names and scope.parent is not None:
                scope = scope.parent
        scope.names[name] = value


@dataclass(eq=False)
class Closure:
    """A function of the decorator's code, with the scope it was defined in."""

    function: Function
    scope: Scope
    top: bool = False  # the decorator the test names: its defaults are counts to quote


@dataclass(eq=False)
class Library:
    """A retry library's decorator (``tenacity.retry(stop=...)``), with the scope its
    arguments are read in, and what it wraps once applied."""

    name: str
    call: ast.Call | None
    scope: Scope
    wrapped: Value | None = None


@dataclass(eq=False)
class Partial:
    """``functools.partial(flaky, max_runs=5)``: a callable with arguments bound."""

    target: Value
    args: tuple[Value, ...]
    keywords: dict[str, Value]


class Identity:
    """A decorator that returns what it is given (``functools.wraps(f)``)."""

    __slots__ = ()


IDENTITY = Identity()

# What the runner calls the wrapper with: the test's arguments, not known (``self`` for
# a method, fixtures for a function). Given last, it leaves the parameters it reaches,
# and ``*args``, unknown.
TEST_ARGUMENTS = Unknown("the test's arguments")


@dataclass(eq=False)
class ClassValue:
    """A class the decorator's module or code defines; ``bases`` as evaluated
    (``Qualified("unittest.TestCase")``, another ``ClassValue``)."""

    node: ast.ClassDef
    scope: Scope
    bases: tuple[Value, ...]
    names: dict[str, Value] = field(default_factory=dict)  # its simple assignments


@dataclass(eq=False)
class Instance:
    """An object of a ``ClassValue``, with the attributes set on it; ``method`` is the
    test method a ``unittest.TestCase`` was made for (``runTest`` by default)."""

    klass: ClassValue
    attributes: dict[str, Value] = field(default_factory=dict)
    method: str = "runTest"


@dataclass(eq=False)
class Suite:
    """``unittest.TestSuite()``: the cases it runs, in order."""

    cases: list[Value] = field(default_factory=list)


@dataclass(eq=False)
class Case:
    """``unittest.FunctionTestCase(test, setUp=..., tearDown=...)``."""

    test: Value
    set_up: Value = None
    tear_down: Value = None


@dataclass(eq=False)
class Outcome:
    """``unittest.TestResult()``: what the cases run with it did."""

    runs: int = 0
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


@dataclass(eq=False)
class Runner:
    """``unittest.TextTestRunner(...)``: ``run(suite)`` runs it with a fresh result."""


@dataclass(eq=False)
class Member:
    """A method of a unittest object, not yet called: ``suite.addTest``."""

    owner: Suite | Case | Outcome | Runner | Instance
    name: str


Value = Union[  # noqa: UP007 (a runtime alias: `|` of a string annotation does not evaluate)
    int,
    float,
    str,
    bool,
    None,
    tuple["Value", ...],
    Unknown,
    Number,
    _Test,
    Qualified,
    ExceptionClass,
    Caught,
    Closure,
    Library,
    Partial,
    Identity,
    ClassValue,
    Instance,
    Suite,
    Case,
    Outcome,
    Runner,
    Member,
]


class GiveUp(Exception):
    """The code goes where detlint does not follow; ``reason`` quotes it. ``loop`` is
    set when that is a retry loop's bound or condition (the count is then unknown)."""

    def __init__(self, reason: str, loop: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.loop = loop


class Raised(Exception):
    """An exception leaving a statement: the test's failure, or one the code raises."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class Returned(Exception):
    def __init__(self, value: Value) -> None:
        super().__init__()
        self.value = value


class LibraryCalled(Exception):
    """The code calls a function a retry library wraps: the library decides from there."""

    def __init__(self, library: Library) -> None:
        super().__init__()
        self.library = library


class Break(Exception):
    pass


class Continue(Exception):
    pass
