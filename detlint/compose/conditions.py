"""When a knob applies: always, never, or where code detlint does not evaluate holds.

``skipif(not torch.cuda.is_available())``, ``xfail(sys.platform == "win32")``,
``flaky(reruns=2, condition=WINDOWS)``, a ``pytest.skip()`` under an ``if``:
nearly every gate in a real suite applies somewhere and not elsewhere. detlint
never evaluates the code (it does not know the platform the test runs on), so
a condition is kept as the code it quotes, and the link step composes a test's
policy for the environment where it runs and lists the others beside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from detlint.compose.retry_condition import never_false
from detlint.compose.retry_counts import looks_boolean
from detlint.readers.python.facts import ArgValue, Dynamic, Mark
from detlint.readers.python.guards import quoted

_EXCEPTION_NAME = re.compile(r"(?:\w+\.)*\w*(?:Error|Exception|Exit|Interrupt|Warning|Failure)$")


@dataclass(frozen=True)
class Applies:
    """Where a knob applies: every clause holds (none: always), or ``never``."""

    clauses: tuple[str, ...] = ()
    never: bool = False

    @property
    def always(self) -> bool:
        return not self.never and not self.clauses

    def describe(self) -> str:
        """The clauses as a message quotes them: "`a` and not `b`"."""
        return " and ".join(self.clauses)

    def negation(self) -> str:
        """Where the knob does not apply, as a phrase."""
        if len(self.clauses) == 1:
            clause = self.clauses[0]
            if clause.startswith("not `") and clause.endswith("`") and clause.count("`") == 2:
                return clause[len("not ") :]
            if clause.startswith("`") and clause.endswith("`") and clause.count("`") == 2:
                return f"not {clause}"
        return f"not ({self.describe()})"

    def within(self, *guards: str) -> Applies:
        if self.never:
            return self
        return Applies((*guards, *self.clauses))


ALWAYS = Applies()
NEVER = Applies(never=True)


def truth(value: ArgValue) -> bool | None:
    """What a condition argument is: True or False when written as a literal, None
    when it is code (a string condition is code too: pytest evaluates it)."""
    if isinstance(value, Dynamic):
        if _EXCEPTION_NAME.fullmatch(value.source.strip()):
            return True  # an exception class, as `xfail(RuntimeError)` passes it: truthy
        return None
    if isinstance(value, str):
        return None if value.strip() else False
    return bool(value)


def condition_code(value: ArgValue) -> str:
    if isinstance(value, Dynamic):
        return value.source
    return str(value)


def any_of(conditions: tuple[ArgValue, ...]) -> Applies:
    """pytest's rule for skipif and xfail conditions: the mark applies if any holds.

    No condition at all applies always (``skipif(reason=...)`` skips, as pytest does).
    """
    if not conditions:
        return ALWAYS
    dynamic: list[str] = []
    for condition in conditions:
        known = truth(condition)
        if known is True:
            return ALWAYS
        if known is None:
            dynamic.append(quoted(condition_code(condition)))
    if not dynamic:
        return NEVER
    return Applies((" or ".join(dynamic),))


def pytest_conditions(mark: Mark) -> tuple[ArgValue, ...]:
    """The conditions of a skipif/xfail mark: ``condition=`` replaces the positional ones."""
    if mark.has_keyword("condition"):
        value = mark.keyword("condition")
        return (value,)
    return mark.positional()


def mark_applies(mark: Mark, plugin: str | None = None) -> Applies:
    """Where ``mark`` applies, from its own arguments and the guards around it.

    ``plugin`` is the rerun plugin that reads a ``flaky`` marker: its
    ``condition=`` means different things under each.
    """
    own = _own_condition(mark, plugin)
    if mark.written and own.clauses:
        own = Applies((f"{quoted(mark.written)} says so",))
    return own.within(*mark.guards)


def _own_condition(mark: Mark, plugin: str | None) -> Applies:
    kind = mark.kind
    if kind in ("skipif", "xfail"):
        return any_of(pytest_conditions(mark))
    if kind == "unittest-skip":
        positional = mark.positional()
        if mark.name == "unittest.skip" or not positional:
            return ALWAYS
        found = any_of(positional[:1])
        if mark.name.endswith("skipUnless") and not found.never:
            if found.always:
                return NEVER
            return Applies((f"not {found.clauses[0]}",))
        if mark.name.endswith("skipUnless"):
            return ALWAYS  # skipUnless(False): skips always
        return found
    if kind == "flaky" and plugin == "pytest-rerunfailures" and not mark.has_keyword("reruns"):
        positional = mark.positional()
        first = positional[0] if positional else None
        if isinstance(first, Dynamic) and looks_boolean(first.source):
            # `flaky(LINUX and PY39)`: read as the count, int(True) = 1 rerun where it holds.
            return _rerun_condition(mark).within(quoted(first.source))
    if kind == "flaky" and mark.has_keyword("condition"):
        value = mark.keyword("condition")
        if plugin == "pytest-retry":
            # pytest-retry checks `condition is False`: only a literal False stops it.
            if value is False:
                return NEVER
            if isinstance(value, Dynamic) and not never_false(value.source):
                return Applies((quoted(condition_code(value)),))
            return ALWAYS  # None, 0, "" and any string retry (``retry_condition``)
        return _rerun_condition(mark)
    return ALWAYS


def _rerun_condition(mark: Mark) -> Applies:
    """pytest-rerunfailures' ``condition=``: falsy means no rerun; code is evaluated."""
    if not mark.has_keyword("condition"):
        return ALWAYS
    value = mark.keyword("condition")
    known = truth(value)
    if known is False:
        return NEVER
    if known is None:
        return Applies((quoted(condition_code(value)),))
    return ALWAYS
