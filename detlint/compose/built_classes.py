"""Tests that classes built at run time may run under names detlint cannot list.

A module that passes a test class to a call (``test_both(Mixin, lock_tests.RLockTests)``)
may get back classes made from it; pytest collects those too. A test whose method is
defined on a class along the lineage of a class passed so runs in more classes than
the statements detlint reads: the tests it lists are a lower bound
(``passed_classes`` records the classes, this marks the tests of every module).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from detlint.readers.python.facts import ModuleFacts


def with_built_classes(modules: Sequence[ModuleFacts]) -> list[ModuleFacts]:
    """``modules`` with ``built_by`` set on each test whose method a class passed to a
    call in any of them inherits."""
    passed = {owner: call for module in modules for owner, call in module.passed_classes}
    if not passed:
        return list(modules)
    found: list[ModuleFacts] = []
    for module in modules:
        tests = tuple(
            replace(test, built_by=passed[test.owner])
            if test.owner is not None and test.owner in passed
            else test
            for test in module.tests
        )
        found.append(replace(module, tests=tests) if tests != module.tests else module)
    return found
