"""Which of the classes that inherit a knob it reaches, and how sure a count of them is.

A knob on a mixin's method reaches every collected class that inherits it, but two
things make the classes detlint lists differ from those a run collects: a class
defined in an ``if`` branch that the knob's own condition rules out never meets the
knob (``branch_conditions``), and classes built at run time from a class passed to a
call (``built_classes``) are collected under names no statement writes. The first
drops classes from the count, or leaves it an upper bound where the pair cannot be
decided; the second makes it a lower bound.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

from detlint.base.span import Span
from detlint.compose.branch_conditions import knob_alternatives, reaches

if TYPE_CHECKING:
    from detlint.compose.test_gate import TestGate
    from detlint.readers.python.facts import Mark

Key = TypeVar("Key")
_COUNT = re.compile(r"\d+ tests|\d+ test instances")


def where_defined(
    by_test: dict[Key, list[TestGate]], knob: Span | None
) -> tuple[dict[Key, list[TestGate]], int]:
    """The tests whose classes exist where the knob at ``knob`` applies, and how many of
    them are defined under a condition that cannot be decided against the knob's."""
    mark = _mark(by_test, knob)
    alternatives = None if mark is None else knob_alternatives(mark)
    if alternatives is None:
        return by_test, 0
    kept: dict[Key, list[TestGate]] = {}
    unsure = 0
    for key, group in by_test.items():
        verdict = reaches(alternatives, group[0].test.branches)
        if verdict is not False:
            kept[key] = group
            unsure += verdict is None
    return kept, unsure


def _mark(by_test: dict[Key, list[TestGate]], knob: Span | None) -> Mark | None:
    if knob is None:
        return None
    for group in by_test.values():
        for mark in group[0].test.marks:
            if mark.span == knob:
                return mark
    return None


def installed(gates: Sequence[TestGate]) -> str:
    """What a count of tests says where an installer puts classes into their module at run
    time ("" where none does): for a class of the installer's module, that the number of
    tests is unknown (it may make several of each, under names no statement writes); for
    a class written in the test module on a base only the installer binds, that detlint
    takes it for a unittest.TestCase."""
    tests = [gate.test for gate in gates if gate.test.installed_by]
    if not tests:
        return ""
    call = f"`{tests[0].installed_by}(globals(), ...)`"
    if any(not (test.owner or "").startswith(f"{test.path}::") for test in tests):
        return f"; covers tests of the classes {call} installs at run time: how many is unknown"
    return f"; its class's base is one {call} installs at run time, taken for a unittest.TestCase"


def built_by(gates: Sequence[TestGate]) -> str:
    """The call that may build more test classes that inherit these tests ("" if none)."""
    return next((gate.test.built_by for gate in gates if gate.test.built_by), "")


def hedged(phrase: str, tests: int, unsure: int, built: str) -> str:
    """``phrase`` ("; covers 5 tests, 5 test instances", or "") as a bound: "at least"
    where classes built at run time by ``built`` add to it, "up to" where ``unsure``
    of the ``tests`` are defined under conditions detlint cannot decide."""
    more = f" (classes `{built}(...)` builds at run time may inherit it too)" if built else ""
    if tests == 0 and unsure == 0:
        return f"; no class that inherits it is defined where its condition holds{more}"
    if unsure:
        undecided = (
            f"{unsure} of them in classes defined under a condition detlint cannot decide "
            "against the knob's"
        )
        if built:
            return f"; covers at least {tests - unsure} tests ({unsure} more possible){more}"
        if tests == 1:
            return phrase  # one test: the message counts none
        if tests == unsure:
            return f"; covers up to {tests} tests ({undecided.replace(f'{unsure} of them', 'all')})"
        return f"; covers {tests - unsure} to {tests} tests ({undecided})"
    if not built:
        return phrase
    if not phrase:
        return f"; covers at least 1 test{more}"
    parts = phrase.removeprefix("; covers ").split(", ")
    if not all(_COUNT.fullmatch(part) for part in parts):
        return phrase + more
    if not parts[0].endswith(" tests"):
        parts.insert(0, "1 test")
    return "; covers " + ", ".join(f"at least {part}" for part in parts) + more
