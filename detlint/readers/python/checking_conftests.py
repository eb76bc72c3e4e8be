"""The conftest.py fixtures that can fail a check, as the tests of a directory request them.

A fixture a test requests from a conftest.py runs at the test's setup: a check it fails
there is a setup error, which pytest-retry never retries, and a trial loop it runs is
run again on each attempt of a plugin that reruns setup (``setup_checks``). The nearest
conftest.py that defines a fixture is the one pytest uses. Most conftest files hold no
check in a fixture of that name: a file is parsed only when its bytes hold the
fixture's name, a fixture decorator and a check token.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.readers.python.conftest_chain import ConftestChain
from detlint.readers.python.fixtures import is_fixture
from detlint.readers.python.module_index import Function, ModuleIndex

if TYPE_CHECKING:
    from detlint.readers.python.module_exports import ModuleExports
    from detlint.readers.python.trials import TrialResolver

_CHECK_TOKENS = (b"assert", b"raise", b"fail(")


@dataclass(frozen=True)
class ConftestFixture:
    """A fixture definition, with the module that defines it and that module's trial reader."""

    index: ModuleIndex
    function: Function
    trials: TrialResolver


class CheckingConftests:
    """Fixture definitions of the conftest.py files that reach a directory, nearest first."""

    def __init__(
        self, chain: ConftestChain, exports: Callable[[Path, bool], ModuleExports | None]
    ) -> None:
        self.chain = chain
        self.exports = exports
        self._found: dict[tuple[str, str, str], ConftestFixture | None] = {}

    def fixture(self, directory: str, own: str, name: str) -> ConftestFixture | None:
        """The definition of fixture ``name`` pytest gives a test of ``directory``, when
        a conftest.py whose bytes can hold a check in it defines one; ``own``: the file
        asking (a conftest.py does not request its own fixtures from itself). Asked per
        test and fixture name, worked out once for each."""
        key = (directory, own, name)
        if key not in self._found:
            self._found[key] = self._find(directory, own, name)
        return self._found[key]

    def _find(self, directory: str, own: str, name: str) -> ConftestFixture | None:
        token = name.encode()
        defines = re.compile(rb"\bdef\s+" + re.escape(token) + rb"\s*\(")
        for path, data in self.chain.of(directory):
            if path == own or token not in data or b"fixture" not in data:
                continue
            if not defines.search(data):
                continue
            if not any(check in data for check in _CHECK_TOKENS):
                return None  # the nearest definition checks nothing
            exports = self.exports(Path(path), True)
            if exports is None:
                return None  # a file that does not parse: its fixtures are unknown
            index = exports.scanner.index
            function = index.functions.get(name)
            if function is not None and is_fixture(index, function):
                return ConftestFixture(index, function, exports.scanner.trials)
        return None
