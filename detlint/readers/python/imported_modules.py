"""Where a module a file imports is in the repository, and whether it holds a knob.

A test file's knobs can live in the modules it imports: an alias (``@skip_on_win``), a
mixin of marked tests. Resolving those names means finding the imported module's file
by the paths its import statement allows (nothing lists the repository), and, before
any parse, whether its bytes hold a knob at all.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from detlint.base.source import read_bytes
from detlint.base.span import Problem
from detlint.readers.python.imported_uses import applied_imports, called_imports, imported_from
from detlint.readers.python.prefilter import Prefilter, retried_helpers


class ImportedModules:
    """The repository files of imported modules, each looked up once per directory."""

    def __init__(
        self, root: Path, exists: Callable[[str | Path], bool], prefilter: Prefilter
    ) -> None:
        self.root = root
        self.exists = exists
        self.prefilter = prefilter
        self._knobs: dict[str, tuple[bool, bool, bool]] = {}  # see ``_holds_knob``
        self._modules: dict[tuple[str, str], Path | None] = {}

    def module_file(self, module: str, importer: Path) -> Path | None:
        """The repository file a module name means where ``importer`` imports it (asked
        once per module and directory)."""
        key = (module, os.path.dirname(os.path.abspath(importer)))
        if key not in self._modules:
            self._modules[key] = self._find(module, importer)
        return self._modules[key]

    def _find(self, module: str, importer: Path) -> Path | None:
        # Strings, not Path objects: asked for every import of every file read.
        level = len(module) - len(module.lstrip("."))
        parts = [part for part in module.lstrip(".").split(".") if part]
        directory = os.path.dirname(os.path.abspath(importer))
        root = os.path.abspath(self.root)
        inside = root if root.endswith(os.sep) else root + os.sep
        if level:
            base = directory
            for _ in range(level - 1):
                base = os.path.dirname(base)
            # Dots that climb past the repository leave it: nothing there is read.
            bases = [base] if base == root or base.startswith(inside) else []
        else:
            bases = []
            base = directory
            while base == root or base.startswith(inside):
                bases.append(base)
                if base == root:
                    break
                base = os.path.dirname(base)
        for base in bases:
            candidate = os.path.join(base, *parts)
            for path in (candidate + ".py", os.path.join(candidate, "__init__.py")):
                if self.exists(path):
                    return Path(path)
        return None

    def reexported(self, path: Path, name: str) -> str | None:
        """What a module imports as ``name`` (``from ._flaky import flaky`` in a package's
        ``__init__.py``), read from its bytes: for one this Python cannot parse (its
        syntax is Python 2's), whose re-exports are followed all the same."""
        data = read_bytes(path, "")
        return None if isinstance(data, Problem) else imported_from(data, name)

    def knob_imports(self, path: Path, data: bytes) -> frozenset[str]:
        """The names a file imports from repository modules whose bytes hold a knob and
        applies to its tests (a decorator, a base class, a module mark): ``@skip_on_win``
        from a helper, ``class TestX(SomeTestsMixin)``. Such a file carries knobs though
        its own bytes hold none. A base class counts only from a module that defines
        tests (a mixin of tests, not a library class a test subclasses). A function it
        calls counts as well: a retry decorator there retries the checks it holds.
        """
        found: set[str] = set()
        applied = [(*use, False) for use in applied_imports(data)]
        called = [(*use, True) for use in called_imports(data)]
        for module, name, local, base, call in [*applied, *called]:
            for candidate in (f"{module}.{name}" if module.strip(".") else module + name, module):
                target = self.module_file(candidate, path)
                if target is not None:
                    knob, tests, retried = self._holds_knob(target)
                    # A called function matters only where a function carries a retry
                    # decorator: most modules a test calls into hold none.
                    if knob and (tests or not base) and (retried or not call):
                        found.add(local)
                    break
        return frozenset(found)

    def _holds_knob(self, path: Path) -> tuple[bool, bool, bool]:
        """Whether a module's bytes hold a knob, a test function, and a function with a
        retry decorator (``retried_helpers``)."""
        key = str(path)
        found = self._knobs.get(key)
        if found is None:
            data = read_bytes(path, "")
            if isinstance(data, Problem):
                found = (False, False, False)
            else:
                found = (self.prefilter.wants(data), b"def test" in data, retried_helpers(data))
            self._knobs[key] = found
        return found
