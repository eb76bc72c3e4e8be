"""The repository modules a conftest.py's ``pytest_plugins`` names.

``pytest_plugins = ["test.fixtures.ctx", "pytester"]`` registers each named module as a
plugin: its fixtures reach every test, behind those of the conftest.py files (which
override them), and a test that requests one requests what that fixture requests in
turn. A name that resolves to a file of the repository is read for its fixtures like a
conftest.py; one that does not (a third-party plugin such as ``pytester``) stays unseen.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from pathlib import Path


def plugin_names(value: ast.expr | None) -> tuple[str, ...]:
    """The module names a ``pytest_plugins`` value lists (a string, or a list, tuple
    or set of strings); what is not a literal string names nothing detlint can read."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return (value.value,)
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return tuple(
            e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        )
    return ()


def plugin_file(name: str, conftest: str, root: str, exists: Callable[[Path], bool]) -> str | None:
    """The repository file a plugin's dotted module name imports, looked up from the
    directory of the conftest.py that names it up to the repository root (where pytest's
    import path puts a test tree's base directory); None when no such file is there."""
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    directory = os.path.dirname(conftest)
    while True:
        base = os.path.join(directory, *parts)
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if exists(Path(candidate)):
                return candidate
        parent = os.path.dirname(directory)
        if directory == root or parent == directory:
            return None
        directory = parent
