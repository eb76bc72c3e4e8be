"""The standard library's unittest runner, as a decorator's read follows it.

Some decorators do not call the test inside ``try``: they run it as a unittest case and
count what the result says (cupy's ``repeat_with_success_at_least`` builds a
``TestSuite`` of a ``FunctionTestCase(lambda: f(...))``, runs it with a
``TestResult`` and reads ``result.wasSuccessful()``). The runner is read as unittest
runs it: a case calls its ``setUp``, its test and its ``tearDown``; an AssertionError
(or ``self.fail``) is a failure, another exception an error, ``SkipTest`` a skip, and
the run goes on; the result counts them. A result detlint does not model (a subclass
of the repository's own, whose ``addFailure`` may do anything) ends the read.
"""

from __future__ import annotations

from detlint.readers.python.retry_libraries import ASSERTION
from detlint.readers.python.wrapper_classes import Classes
from detlint.readers.python.wrapper_statements import ANY
from detlint.readers.python.wrapper_values import (
    Case,
    GiveUp,
    Instance,
    Member,
    Outcome,
    Raised,
    Runner,
    Suite,
    Unknown,
    Value,
)

# The names of the runner's parts, as imported: what makes a decorator worth reading.
SUITES = frozenset({"unittest.TestSuite", "unittest.suite.TestSuite"})
CASES = frozenset({"unittest.FunctionTestCase", "unittest.case.FunctionTestCase"})
RESULTS = frozenset(
    {"unittest.TestResult", "unittest.result.TestResult", "unittest.TextTestResult"}
)
RUNNERS = frozenset({"unittest.TextTestRunner", "unittest.runner.TextTestRunner"})
RUNNER_NAMES = SUITES | CASES | RESULTS | RUNNERS
_FAILURES = frozenset({ASSERTION, ANY, "Failed", "failureException"})
_SKIPS = frozenset({"SkipTest", "unittest.SkipTest", "unittest.case.SkipTest"})
_RESULT_LISTS = ("failures", "errors", "skipped")
_NO_LISTS = ("expectedFailures", "unexpectedSuccesses")


class UnitTests(Classes):
    """The unittest runner's objects; ``Run`` adds calls."""

    def construct(self, name: str, args: tuple[Value, ...], keywords: dict[str, Value]) -> Value:
        """A suite, a case, a result or a runner made by its unittest name."""
        if name in SUITES:
            tests = args[0] if args else keywords.get("tests", ())
            return Suite(list(tests) if isinstance(tests, tuple) else [tests])
        if name in CASES:
            test = args[0] if args else keywords.get("testFunc")
            set_up = args[1] if len(args) > 1 else keywords.get("setUp")
            tear_down = args[2] if len(args) > 2 else keywords.get("tearDown")
            return Case(test, set_up, tear_down)
        if name in RESULTS:
            return Outcome()
        return Runner()

    def member(self, base: Value, name: str, text: str) -> Value:
        found = self.unittest_member(base, name)
        return found if found is not None else super().member(base, name, text)

    def unittest_member(self, base: Value, name: str) -> Value | None:
        """An attribute of a suite, a case, a result or a runner (None: not one)."""
        if isinstance(base, Outcome):
            if name in _RESULT_LISTS:
                return tuple((Unknown("a test"), Unknown(kind)) for kind in getattr(base, name))
            if name in _NO_LISTS:
                return ()
            if name == "testsRun":
                return base.runs
            if name == "shouldStop":
                return False
            return Member(base, name)
        if isinstance(base, Suite | Case | Runner):
            return Member(base, name)
        return None

    def call_member(self, member: Member, args: tuple[Value, ...]) -> Value:
        """A method of a unittest object, called."""
        owner, name = member.owner, member.name
        if isinstance(owner, Outcome):
            if name == "wasSuccessful":
                return not owner.failures and not owner.errors
            return Unknown(f"result.{name}(...)")
        if isinstance(owner, Suite) and name in ("addTest", "addTests"):
            added = args[0] if args else ()
            if name == "addTests" and not isinstance(added, tuple):
                raise GiveUp("tests added from code detlint does not evaluate")
            several = isinstance(added, tuple) and name == "addTests"
            owner.cases += list(added) if isinstance(added, tuple) and several else [added]
            return None
        if isinstance(owner, Suite) and name == "countTestCases":
            return len(owner.cases)
        if name == "debug" and isinstance(owner, Suite | Case | Instance):
            for case in owner.cases if isinstance(owner, Suite) else [owner]:
                self.debug(case)
            return None
        if name in ("run", "__call__") and isinstance(owner, Runner):
            result = Outcome()
            self.run_test(args[0] if args else Unknown("a suite"), result)
            return result
        if name in ("run", "__call__") and isinstance(owner, Suite | Case | Instance):
            given: Value = args[0] if args else Outcome()
            self.run_test(owner, given)
            return given
        return Unknown(f"{name}(...)")

    def run_test(self, test: Value, result: Value) -> None:
        """``test(result)``: each case of a suite run in turn, its outcome counted."""
        if not isinstance(result, Outcome):
            raise GiveUp("a test result detlint does not model")
        if isinstance(test, Suite):
            for case in list(test.cases):
                self.run_test(case, result)
            return
        if not isinstance(test, Case | Instance):
            raise GiveUp("a unittest case detlint does not model")
        result.runs += 1
        set_up, body, tear_down = self._parts(test)
        try:
            if set_up is not None:
                self.invoke(set_up, (), {})
            self.invoke(body, (), {})
        except Raised as raised:
            self._count(raised, result)
        if tear_down is not None:
            try:
                self.invoke(tear_down, (), {})
            except Raised as raised:
                self._count(raised, result)

    def debug(self, test: Value) -> None:
        """``case.debug()``: the case run with its failure left to the caller."""
        if not isinstance(test, Case | Instance):
            raise GiveUp("a unittest case detlint does not model")
        set_up, body, tear_down = self._parts(test)
        for part in (set_up, body, tear_down):
            if part is not None:
                self.invoke(part, (), {})

    def _parts(self, test: Case | Instance) -> tuple[Value, Value, Value]:
        if isinstance(test, Case):
            return test.set_up, test.test, test.tear_down
        return (
            self.fixture_method(test, "setUp"),
            self.test_method(test),
            self.fixture_method(test, "tearDown"),
        )

    def _count(self, raised: Raised, result: Outcome) -> None:
        if raised.name == self.failure:
            self.caught_by.append("unittest's runner")
        if raised.name in _SKIPS:
            result.skipped.append(raised.name)
        elif raised.name in _FAILURES:
            result.failures.append(raised.name)
        else:
            result.errors.append(raised.name)
