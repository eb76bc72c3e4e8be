"""The facts the Python pass reads out of test code.

Plain frozen values with exact spans: the link step and the rules work on these alone
and never see a syntax tree, so they are cheap to pass between processes and to compare.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from detlint.base.span import Span
from detlint.model.threshold import Threshold
from detlint.readers.python.named_loops import UncountedLoop
from detlint.readers.python.options import HOOK_TEST
from detlint.readers.python.param_facts import Covered


@dataclass(frozen=True)
class Dynamic:
    """An argument whose value cannot be known statically; keeps its source text.

    ``returns`` holds, for a name bound to a module-level function whose body comes to
    one ``return <expression>``, that function written as a lambda of the same
    parameters (``lambda err, *args: issubclass(err[0], OSError)``): a callable such as
    flaky's ``rerun_filter`` is read the same whether it is written inline or named.
    """

    source: str
    returns: str = ""


ArgValue = int | float | bool | str | None | tuple[object, ...] | Dynamic


@dataclass(frozen=True)
class Argument:
    """One argument of a marker or decorator call; ``name`` is None when positional."""

    name: str | None
    value: ArgValue
    span: Span


MarkKind = Literal[
    "flaky",  # @pytest.mark.flaky: meaning depends on the installed plugin
    "flaky-decorator",  # the flaky package's @flaky / @flaky.flaky decorator
    "xfail",
    "skip",
    "skipif",
    "xfail-call",  # imperative pytest.xfail()
    "skip-call",  # imperative pytest.skip()
    "retry-decorator",  # tenacity, backoff, configured names
    "repeat",  # pytest-repeat: raises detection
    "custom",  # a marker name the repository registered or uses (e.g. a flaky tag)
    "unittest-skip",  # @unittest.skip / skipIf / skipUnless
    "unittest-xfail",  # @unittest.expectedFailure: strict, an unexpected success fails
    # Any other pytest.mark.<name> (parametrize, usefixtures, slow): no knob, but read for
    # the instances and fixtures it gives a test. Never among a test's ``marks``.
    "marker",
]

Scope = Literal["function", "class", "module", "param", "body", "fixture", "hook"]


@dataclass(frozen=True)
class RetryReading:
    """What a decorator defined in the repository does to a test that fails every time,
    read from its code (``retry_wrappers``): how many times it calls the test, what it
    catches, where that count comes from, and how many passes it wants.

    A count detlint cannot read is None, and ``origin`` then says why.
    """

    definition: Span  # the decorator's ``def``
    attempts: int | None  # calls of the test until the failure leaves the decorator
    origin: str  # "max_runs=5 at the call", "the default max_runs=3", "a literal bound"
    shape: str  # how it calls the test again: "a loop", "recursion", "tenacity.retry"
    # The except clauses (or a library's filter) that decide what is retried, as written,
    # and whether they take an AssertionError: False (only other exceptions are retried)
    # or None (code detlint does not evaluate decides).
    catches: str = ""
    assertions: bool | None = True
    # It returns after the last failed attempt too: the test passes whatever it asserts.
    swallows: bool = False
    # Passes it wants: above 1 it behaves as flaky's ``max_runs=attempts`` with this
    # ``min_passes`` (runs until so many passed, or until too many failed to get there);
    # equal to ``attempts``, every run must pass: a repeat, no retry.
    min_passes: int = 1
    # False for a decorator detlint could not read but whose name or parameters say it
    # retries: ``origin`` then says what it could not follow, and no figure is given.
    judged: bool = True

    @property
    def repeats(self) -> bool:
        """Every run must pass: a repeat, which makes a violation show more often."""
        return self.attempts is not None and 1 < self.attempts <= self.min_passes


@dataclass(frozen=True)
class Mark:
    """A knob applied to tests: which one, with which arguments, where, and how;
    ``via`` names the alias or wrapper it was reached through, as a finding shows it."""

    kind: MarkKind
    name: str  # marker or decorator name as resolved, e.g. "flaky", "tenacity.retry"
    arguments: tuple[Argument, ...]
    bare: bool  # applied without a call: @pytest.mark.flaky
    span: Span  # the expression at the use site
    scope: Scope
    via: tuple[str, ...] = ()
    definition: Span | None = None  # where an alias's mark is written, when not at the use site
    comment: str = ""  # the comment on the use line, for skip reasons
    # Where the code that applies the mark runs only sometimes: the ``if`` around a
    # ``pytest.skip()``, the branch an alias is defined in. Each clause is a phrase
    # that quotes the code ("`sys.platform == 'win32'`", "not `HAS_GPU`"); all hold
    # where the mark applies, and none means it is applied wherever the test runs.
    guards: tuple[str, ...] = ()
    # The code at the use site of a mark a factory made from its own arguments
    # (``RunIf(min_cuda_gpus=2)``): its condition is quoted as that, since the
    # factory's inner expression (``len(reasons) > 0``) says nothing where it is used.
    written: str = ""
    # Where an imperative skip or xfail stands among the test's checks, in execution
    # order: "first" when none runs before it (where it applies the checks never run),
    # "last" when none runs after it (it hides no failure), "" otherwise or for any other
    # mark; ``checks_before``, the lines of the checks that run before it and fail the test.
    among_checks: Literal["", "first", "last"] = ""
    checks_before: tuple[int, ...] = ()
    # The exception types of the ``except`` clauses an imperative skip is reached through,
    # as written ("OSError"), when none of them takes an AssertionError: the skip then
    # runs only after another error ended the checks. "" for any other mark.
    caught: str = ""
    # A decorator of the repository's own that calls the test again, as read from its code.
    retry: RetryReading | None = None
    # What a ``pytest.mark.parametrize(...)`` makes of the tests it marks, read where the
    # call is written (a helper module that binds it to a name, for an imported alias).
    table: Parametrized | None = None
    # The instances of the test it reaches, where its guards read parametrize arguments.
    covered: Covered | None = None
    # For a skip or xfail written as an entry of a data list a decorator of the test
    # consumes (``skip("matmul")`` in ``@skipOps(...)``): the instances it names, "the
    # 'matmul' instances". How many there are is not known statically. "" otherwise.
    entry: str = ""

    def keyword(self, name: str) -> ArgValue | None:
        for argument in self.arguments:
            if argument.name == name:
                return argument.value
        return None

    def has_keyword(self, name: str) -> bool:
        return any(argument.name == name for argument in self.arguments)

    def positional(self) -> tuple[ArgValue, ...]:
        return tuple(argument.value for argument in self.arguments if argument.name is None)


@dataclass(frozen=True)
class Parametrized:
    """The table of one ``pytest.mark.parametrize(...)``: the instances it makes of each
    test it marks, the argument names it gives values to, and the marks its
    ``pytest.param(..., marks=...)`` entries put on one instance each."""

    instances: int | None  # the values its argvalues hold; None when they cannot be counted
    names: tuple[str, ...] | None  # None when the argnames cannot be read
    param_marks: tuple[Mark, ...] = ()
    rows: tuple[tuple[ArgValue, ...], ...] | None = None  # each instance's values (Dynamic: code)


@dataclass(frozen=True)
class NamedWrap:
    """A decorator applied to tests by name, not with ``@``: ``for name in FLAKY:
    setattr(cls, name, retry(getattr(cls, name)))``, or a hook that wraps ``item.obj``
    of the items whose ``nodeid`` it finds in a list.

    ``names`` is None when detlint cannot list them (code it does not evaluate gives
    them); ``source`` quotes where they come from.
    """

    names: tuple[str, ...] | None
    match: Literal["name", "nodeid", "within", "glob", "all"]
    source: str  # "`FLAKY` (tests/conftest.py:4)", or the code that picks the tests
    marks: tuple[Mark, ...]  # what the decorator applies, as resolved where it is written
    owner: str | None = None  # the class whose methods it sets ("" module functions, None any)

    def picks(self, nodeid: str, name: str, class_name: str | None) -> bool:
        """Whether a test is among those named (a node id listed matches the end of the
        test's, with no parameters: detlint's node ids do not list them)."""
        import fnmatch

        if self.owner is not None:
            owner = class_name.rsplit("::", 1)[-1] if class_name else ""
            if owner != self.owner:
                return False
        if self.match == "all":
            return True
        listed = self.names or ()
        if self.match == "name":
            return name in listed
        if self.match == "within":
            return any(part in nodeid for part in listed)
        if self.match == "glob":
            return any(fnmatch.fnmatchcase(nodeid, pattern) for pattern in listed)
        bases = [entry.split("[", 1)[0] for entry in listed]
        return any(nodeid == base or nodeid.endswith("/" + base) for base in bases)


@dataclass(frozen=True)
class TrialCount:
    """Trials per attempt and where the number comes from.

    ``env`` is the environment variable that sets it, when there is one;
    ``count`` is its default (or the literal bound). ``threshold`` is the pass
    threshold the test checks after the loop (``assert passes >= 3``), None when
    any failing trial fails the test.
    """

    count: int
    span: Span | None
    env: str | None = None
    origin: str = "no trial loop"
    threshold: Threshold | None = None
    # With no trial count: a loop that checks items detlint cannot count (the figures
    # are then those of one item checked).
    uncounted: UncountedLoop | None = None
    loops: int = 1  # loops that follow each other whose trials add up to ``count``
    nested: int = 1  # loops written one in another whose counts multiply to ``count``
    mapped: str = ""  # the checking function mapped over the range, when not a loop

    @property
    def fails_at(self) -> int:
        """How many failing trials fail the test (1 without a threshold)."""
        return 1 if self.threshold is None else self.threshold.fails_at(self.count)

    def describe(self) -> str:
        plural = "s" if self.count != 1 else ""
        if self.env is not None:
            text = f"{self.count} trial{plural} from {self.env}"
        elif self.span is None:
            if self.uncounted is not None:
                return self.uncounted.describe()
            return "1 attempt, no trial loop recognised"
        else:
            text = f"{self.count} trial{plural} ({self.origin})"
        if self.threshold is not None and self.fails_at != 1:
            text += f", {self.threshold.describe(self.count)}"
        return text


NO_TRIALS = TrialCount(count=1, span=None, origin="no trial loop recognised")

ReplayKind = Literal["seed", "recording"]
# Which retries repeat the set-up too: "body" when the test's own code makes it (a retry
# decorator repeats it as well), "setup" when a function-scoped fixture or a mark does
# (a rerun of the whole test, by a rerun plugin or a CI job, repeats it; a retry
# decorator, which repeats the body alone, does not).
ReplayReach = Literal["body", "setup"]


@dataclass(frozen=True)
class Replay:
    """What every attempt of a test draws again unchanged: a random seed set to a fixed
    value before the code under test runs, or recorded responses (a cassette).

    A rerun then replays the draw (or the responses) of the attempt before it, so a
    failure they decide fails every attempt alike: a retry cannot expose what the
    first attempt missed, and only nondeterminism beyond them (threads, timing, kernel
    scheduling) makes attempts differ. The model's independent attempts hold for that
    part alone, and a finding says so.
    """

    kind: ReplayKind
    code: str  # as written: "torch.manual_seed(0)", "@pytest.mark.vcr"
    span: Span
    reach: ReplayReach
    # How it reaches the test: "in autouse fixture `seeded`", "in `setUp`", "which runs
    # `torch.manual_seed(seed)`" (a helper called first).
    via: str = ""
    # The plugin whose fixture it is ("pytest-rng"): it holds only where the project
    # declares that plugin, which linking checks.
    plugin: str = ""

    def describe(self, test_path: str) -> str:
        """ "`torch.manual_seed(0)` on line 12", with the fixture or helper it is in and
        the file, when that is not the test's own."""
        where = f"line {self.span.line}"
        if self.span.path != test_path:
            where = f"{self.span.path}:{self.span.line}"
        text = f"`{self.code}` on {where}"
        return f"{text}, {self.via}" if self.via else text


@dataclass(frozen=True)
class SetupChecks:
    """A fixture the test requests whose code can fail a check, at setup (``setup_checks``),
    and whether the test's body can fail too: pytest-retry retries the call phase only."""

    fixture: str
    span: Span
    body: bool
    trials: TrialCount | None = None  # the trial loop of a function-scoped fixture


@dataclass(frozen=True)
class Branch:
    """A branch of an ``if`` a test class is defined in: the ``if``'s test as written,
    and whether the class is in its body (True) or its ``else`` (False)."""

    code: str
    holds: bool


@dataclass(frozen=True)
class TestFunction:
    """One test function (or method) and every mark that reaches it."""

    path: str
    name: str
    class_name: str | None
    span: Span  # the def line
    instances: int | None  # product of parametrize sizes; None when unknown
    marks: tuple[Mark, ...]  # function, class and module marks, closest first
    param_marks: tuple[tuple[int, Mark], ...]  # (instances covered, mark) from pytest.param
    trials: TrialCount
    unittest: bool = False  # a method of a unittest.TestCase, which pytest collects its own way
    replays: Replay | None = None  # a fixed seed or a recording every attempt repeats
    setup_checks: SetupChecks | None = None  # checks made in a fixture, at setup
    # Skips and xfails of some of its instances, as entries of a data list a decorator
    # consumes (``Mark.entry``); each is a gate of its own with an unknown count.
    entry_marks: tuple[Mark, ...] = ()
    # The ``if`` branches the test's class is defined in: it exists where they all hold.
    branches: tuple[Branch, ...] = ()
    # The call (``test_both``) a class inheriting it is passed to, building classes at run time.
    built_by: str = ""
    # The call that installs its class into the module at run time under a name detlint
    # cannot know (``install_tests_in_module_dict(globals(), ...)``); "" for a class written.
    installed_by: str = ""
    owner: str | None = None  # the class defining the method, "<path>::<Class>"
    more_instances: bool = False  # ``instances`` a floor: unread fixtures may add more
    markers: frozenset[str] | None = None  # its marker names for ``-m``; None: not all known

    @property
    def nodeid(self) -> str:
        parts = [self.path, *([self.class_name] if self.class_name else []), self.name]
        return "::".join(parts)


@dataclass(frozen=True)
class ScriptRun:
    """A ``pytest.main(args)`` that a test module's ``if __name__ == "__main__":`` block
    makes (itself, or through a function of the module it calls) with the module among
    its targets: when the file is run as a script (``python test_x.py``, as a Bazel
    ``py_test`` runs it), pytest runs the file's tests with these arguments.

    ``words`` is the argument list as pytest gets it where detlint can read it: each
    element it cannot read is kept as written, and ``dynamic`` marks it; ``unread``
    holds, as written, what else goes into the list that detlint cannot read at all (a
    joined ``sys.argv[1:]`` or variable, an ``args.append(...)``): it may add options
    or override them.
    """

    span: Span  # the pytest.main call
    words: tuple[str, ...]
    dynamic: tuple[bool, ...]
    unread: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModuleFacts:
    """What one Python file holds: its tests, and marks that apply elsewhere."""

    path: str
    tests: tuple[TestFunction, ...]
    hook_marks: tuple[Mark, ...]  # marks added by item.add_marker() in hooks (conftest.py)
    # Collected whatever ``python_files`` says: a CI step names it on a pytest command
    # line, or it runs ``pytest.main([__file__])``.
    named: bool = False
    # The ``pytest.main(...)`` calls its ``__main__`` block makes on the file itself.
    script_runs: tuple[ScriptRun, ...] = ()
    # ("<path>::<Class>", call) for each class along the lineage of a class the module
    # passes to a call that may build more test classes from it (``passed_classes``).
    passed_classes: tuple[tuple[str, str], ...] = ()


def hook_tests(module: ModuleFacts) -> list[TestFunction]:
    """A stand-in test for each mark a collection hook adds (``item.add_marker``):
    it reaches tests detlint cannot enumerate statically, so it is judged once."""
    return [
        TestFunction(
            path=module.path,
            name=HOOK_TEST,
            class_name=None,
            span=mark.span,
            instances=None,
            marks=(mark,),
            param_marks=(),
            trials=NO_TRIALS,
        )
        for mark in module.hook_marks
    ]
