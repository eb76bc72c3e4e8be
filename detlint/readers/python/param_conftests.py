"""The conftest.py fixtures a test's parametrized fixtures are looked up in.

A fixture with ``params`` in a conftest.py multiplies the instances of every test that
requests it, directly or through another fixture (a conftest fixture of a nearer
directory that requests one of a farther). Most conftest files hold no ``params`` at
all: the chain that reaches a directory is parsed only when one of its files' bytes
can hold a fixture's params, and then whole, so that a fixture that only passes one on
is read too. The chain of each directory is worked out once.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.source import read_bytes
from detlint.base.span import Problem
from detlint.readers.python.checking_conftests import CheckingConftests, ConftestFixture
from detlint.readers.python.conftest_chain import ConftestChain
from detlint.readers.python.plugin_modules import plugin_file, plugin_names
from detlint.readers.python.prefilter import may_param_fixtures

if TYPE_CHECKING:
    from detlint.readers.python.fixture_params import Definition, Scope
    from detlint.readers.python.hook_params import HookTable
    from detlint.readers.python.module_exports import ModuleExports
    from detlint.readers.python.module_index import ModuleIndex

PARAMS_TOKEN = b"params"
PLUGINS_TOKEN = b"pytest_plugins"
HOOK_TOKEN = b"pytest_generate_tests"


class ParamConftests:
    """The fixtures of the conftest.py files that reach each directory, when one has params."""

    def __init__(
        self, chain: ConftestChain, exports: Callable[[Path, bool], ModuleExports | None]
    ) -> None:
        self.chain = chain
        self.exports = exports
        self.checks = CheckingConftests(chain, exports)  # fixtures that can fail a check
        self._scopes: dict[str, Scope] = {}
        self._plugins: dict[tuple[str, ...], list[str]] = {}
        self._plugins_hold: dict[str, bool] = {}
        self._chains: dict[str, tuple[tuple[str, bool], ...]] = {}
        # Per test file (its path, ``always``): every test of the file asks again.
        self._reaches: dict[tuple[str, bool], list[str]] = {}
        self._hooks: dict[tuple[str, bool], tuple[HookTable, ...]] = {}
        self._autouse: dict[tuple[str, bool], tuple[str, ...]] = {}  # as ``_scope``, kept

    def _chain(self, directory: str) -> tuple[tuple[str, bool], ...]:
        """The conftest.py files that reach a directory, nearest first, each with
        whether its bytes, or those of a ``pytest_plugins`` module it names, can hold
        params (found once per directory: every test of its files asks)."""
        found = self._chains.get(directory)
        if found is None:
            found = self._chains[directory] = self._find_chain(directory)
        return found

    def _find_chain(self, directory: str) -> tuple[tuple[str, bool], ...]:
        return tuple(
            (
                path,
                PARAMS_TOKEN in data
                or HOOK_TOKEN in data
                or (PLUGINS_TOKEN in data and self._plugin_params(path)),
            )
            for path, data in self.chain.of(directory)
        )

    def _plugin_params(self, conftest: str) -> bool:
        """Whether the bytes of a ``pytest_plugins`` module a conftest.py names can hold params."""
        found = self._plugins_hold.get(conftest)
        if found is None:
            found = self._plugins_hold[conftest] = any(
                PARAMS_TOKEN in data
                for plugin in self._plugin_modules((conftest,))
                if not isinstance(data := read_bytes(Path(plugin), ""), Problem)
            )
        return found

    def _index(self, module: str) -> ModuleIndex | None:
        exports = self.exports(Path(module), True)
        return exports.scanner.index if exports is not None else None

    def _scope(self, conftest: str) -> Scope:
        from detlint.readers.python.fixture_params import fixture_scope

        found = self._scopes.get(conftest)
        if found is None:
            index = self._index(conftest)
            functions = list(index.functions.values()) if index is not None else []
            found = self._scopes[conftest] = (
                fixture_scope(index, functions) if index is not None else {}
            )
        return found

    def whole(self, path: Path, data: bytes) -> bool:
        """Whether a test file is read whole for its fixtures: it can define one with
        params, or a conftest.py that reaches it can (the file's own fixtures may pass
        one on, or override it), and narrowing keeps only fixtures that hold a knob."""
        if may_param_fixtures(data) or HOOK_TOKEN in data:
            return True
        return any(holds for _, holds in self._chain(os.path.dirname(os.path.abspath(path))))

    def _reaching(self, path: Path, always: bool) -> list[str]:
        """The conftest.py files that reach a file, nearest first: none when no file of
        the chain holds params, unless ``always`` (the file's own fixtures have some,
        and a conftest fixture may request one of them)."""
        own = os.path.abspath(path)
        found = self._reaches.get((own, always))
        if found is None:
            chain = [c for c in self._chain(os.path.dirname(own)) if c[0] != own]
            if always or any(h for _, h in chain):
                conftests = [c for c, _ in chain]
                found = conftests + self._plugin_modules(tuple(conftests))
            else:
                found = []
            self._reaches[(own, always)] = found
        return found

    def _plugin_modules(self, conftests: tuple[str, ...]) -> list[str]:
        """The repository modules the ``pytest_plugins`` of these conftest.py files
        name, and those the named modules name in turn: their fixtures come after the
        conftest files' in the lookup."""
        found = self._plugins.get(conftests)
        if found is None:
            found = self._plugins[conftests] = []
            pending, seen = list(conftests), set(conftests)
            while pending:
                module = pending.pop(0)
                index = self._index(module)
                value = index.assignments.get("pytest_plugins") if index is not None else None
                for name in plugin_names(value):
                    plugin = plugin_file(name, module, self.chain.root, self.chain.exists)
                    if plugin is not None and plugin not in seen:
                        seen.add(plugin)
                        found.append(plugin)
                        pending.append(plugin)
        return found

    def definitions(self, path: Path, name: str, always: bool) -> tuple[Definition, ...]:
        """The definitions of fixture ``name`` in the conftest.py files that reach a
        file, nearest first, each with its place in that chain."""
        found: list[Definition] = []
        for level, conftest in enumerate(self._reaching(path, always)):
            definition = self._scope(conftest).get(name)
            if definition is not None:
                found.append((level, *definition))
        return tuple(found)

    def autouse(self, path: Path, always: bool) -> tuple[str, ...]:
        """The autouse fixtures of the conftest.py files that reach a file."""
        from detlint.readers.python.fixtures import is_autouse

        key = (os.path.abspath(path), always)
        found = self._autouse.get(key)
        if found is None:
            found = self._autouse[key] = tuple(
                name
                for conftest in self._reaching(path, always)
                for name, (index, function) in self._scope(conftest).items()
                if is_autouse(index, function)
            )
        return found

    def unread(self, path: Path, always: bool) -> bool:
        """Whether a conftest.py that reaches a file (or a ``pytest_plugins`` module one
        names) cannot be read, though the chain holds params: its fixtures, unseen, may
        have params of their own or request those of another."""
        return any(self._index(conftest) is None for conftest in self._reaching(path, always))

    def hooks(self, path: Path, always: bool) -> tuple[HookTable, ...]:
        """What the ``pytest_generate_tests`` hooks of the conftest.py files that reach
        a file parametrize (a ``pytest_plugins`` module's hooks too)."""
        from detlint.readers.python.hook_params import hook_tables

        key = (os.path.abspath(path), always)
        known = self._hooks.get(key)
        if known is not None:
            return known
        found: list[HookTable] = []
        complete = True  # a conftest being read (an import cycle) answers later
        for conftest in self._reaching(path, always):
            index = self._index(conftest)
            if index is not None:
                found += hook_tables(index)
            else:
                complete = False
        if complete:
            self._hooks[key] = tuple(found)
        return tuple(found)


class FileConftests:
    """The conftest.py fixtures of one file, as ``fixture_params`` asks for them."""

    def __init__(self, conftests: ParamConftests, path: Path) -> None:
        self.conftests = conftests
        self.path = path

    def definitions(self, name: str, always: bool) -> tuple[Definition, ...]:
        return self.conftests.definitions(self.path, name, always)

    def autouse(self, always: bool) -> tuple[str, ...]:
        return self.conftests.autouse(self.path, always)

    def hooks(self, always: bool) -> tuple[HookTable, ...]:
        return self.conftests.hooks(self.path, always)

    def unread(self, always: bool) -> bool:
        return self.conftests.unread(self.path, always)

    def checking(self, name: str) -> ConftestFixture | None:
        own = os.path.abspath(self.path)
        return self.conftests.checks.fixture(os.path.dirname(own), own, name)
