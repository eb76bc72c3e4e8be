"""The facts the Python pass reads out of test code.

Plain frozen values with exact spans: the link step and the rules work on
these alone and never see a syntax tree, so they are cheap to pass between
processes and to compare in tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from detlint.base.span import Span
from detlint.model.threshold import Threshold
from detlint.readers.python.options import HOOK_TEST


@dataclass(frozen=True)
class Dynamic:
    """An argument whose value cannot be known statically; keeps its source text."""

    source: str


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
]

Scope = Literal["function", "class", "module", "param", "body", "fixture", "hook"]


@dataclass(frozen=True)
class Mark:
    """A knob applied to tests: which one, with which arguments, where, and how.

    ``via`` names the alias or wrapper the mark was reached through (with the
    place it is defined), so a finding can point at both.
    """

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

    @property
    def fails_at(self) -> int:
        """How many failing trials fail the test (1 without a threshold)."""
        return 1 if self.threshold is None else self.threshold.fails_at(self.count)

    def describe(self) -> str:
        plural = "s" if self.count != 1 else ""
        if self.env is not None:
            text = f"{self.count} trial{plural} from {self.env}"
        elif self.span is None:
            return "1 attempt, no trial loop recognised"
        else:
            text = f"{self.count} trial{plural} ({self.origin})"
        if self.threshold is not None and self.fails_at != 1:
            text += f", {self.threshold.describe(self.count)}"
        return text


NO_TRIALS = TrialCount(count=1, span=None, origin="no trial loop recognised")


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

    @property
    def nodeid(self) -> str:
        parts = [self.path, *([self.class_name] if self.class_name else []), self.name]
        return "::".join(parts)


@dataclass(frozen=True)
class ModuleFacts:
    """What one Python file holds: its tests, and marks that apply elsewhere."""

    path: str
    tests: tuple[TestFunction, ...]
    hook_marks: tuple[Mark, ...]  # marks added by item.add_marker() in hooks (conftest.py)


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
