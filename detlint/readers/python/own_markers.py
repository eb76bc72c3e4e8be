"""The marker names a project registers and reads in its own pytest code.

pytest knows a marker name from the ``markers`` ini option (``pytest_config``) and
from ``config.addinivalue_line("markers", "flaky: ...")``, which a conftest.py or a
plugin module that one names in ``pytest_plugins`` calls in ``pytest_configure``:
the second appends to the first, so either way pytest raises no
PytestUnknownMarkWarning for the name. The project's own code can also give a marker
its meaning: a hook or fixture that looks it up (``item.get_closest_marker("flaky")``,
``iter_markers("flaky")``, ``"flaky" in item.keywords``) and skips, repeats or times
the test as it sees fit. With no rerun plugin declared, such a marker means what that
code does, which detlint does not evaluate; it is not judged as a rerun. One shape is
read: a hook that skips the marker's tests unless an option is given (``option_skips``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from detlint.base.paths import display_path
from detlint.base.source import decode_python, read_bytes
from detlint.base.span import Problem, Span
from detlint.readers.python.locations import call_args
from detlint.readers.python.option_skips import OptionSkip, node_span, option_skips
from detlint.readers.python.plugin_modules import plugin_file, plugin_names

# Bytes a file needs to register or read a marker, or to name plugin modules.
_TOKENS = (b"addinivalue_line", b"get_closest_marker", b"iter_markers", b"keywords")
_LOOKUPS = frozenset({"get_closest_marker", "iter_markers", "iter_markers_with_node"})


@dataclass(frozen=True)
class MarkerUse:
    """A marker name the project's code registers or reads, and where."""

    name: str
    span: Span


@dataclass(frozen=True)
class OwnMarkers:
    """What a project's conftest.py files and plugin modules do with marker names."""

    registered: tuple[MarkerUse, ...] = ()
    read: tuple[MarkerUse, ...] = ()
    skips: tuple[OptionSkip, ...] = ()  # hooks that skip a marker unless an option is given

    def registers(self, name: str) -> MarkerUse | None:
        return next((use for use in self.registered if use.name == name), None)

    def reader(self, name: str) -> MarkerUse | None:
        """The first place the project's code reads marker ``name``, or None."""
        return next((use for use in self.read if use.name == name), None)

    def option_skip(self, name: str) -> OptionSkip | None:
        """The hook that skips the tests marked ``name`` unless an option is given, when
        that is all the project's code does with the marker: one skip, and every place
        that reads the name is its lookup (``option_skips``). None otherwise."""
        skips = [skip for skip in self.skips if skip.name == name]
        reads = {use.span for use in self.read if use.name == name}
        if len(skips) != 1 or reads != {skips[0].test}:
            return None
        return skips[0]

    def __add__(self, other: OwnMarkers) -> OwnMarkers:
        return OwnMarkers(
            tuple(dict.fromkeys((*self.registered, *other.registered))),
            tuple(dict.fromkeys((*self.read, *other.read))),
            tuple(dict.fromkeys((*self.skips, *other.skips))),
        )


NO_OWN_MARKERS = OwnMarkers()


# One file's markers and the plugin modules it names, by path: a conftest above several
# projects is read once for all of them.
FileMarkers = dict[str, tuple["OwnMarkers", tuple[str, ...]]]


def read_own_markers(
    conftests: Iterable[Path], root: Path, cwd: Path, memo: FileMarkers | None = None
) -> OwnMarkers:
    """What the conftest.py files (absolute paths) and the repository modules their
    ``pytest_plugins`` names register and read; files that cannot be read or parsed
    add nothing (the run that lints them reports them)."""
    files = {} if memo is None else memo
    found = NO_OWN_MARKERS
    queue = [str(path) for path in conftests]
    seen: set[str] = set()
    while queue:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        known = files.get(path)
        if known is None:
            known = files[path] = _file_markers(path, root, cwd)
        found = found + known[0]
        queue += known[1]
    return found


def _file_markers(path: str, root: Path, cwd: Path) -> tuple[OwnMarkers, tuple[str, ...]]:
    tree = _parse(Path(path))
    if tree is None:
        return NO_OWN_MARKERS, ()
    display = display_path(Path(path), cwd)
    markers = OwnMarkers(
        tuple(_registered(tree, display)),
        tuple(_read(tree, display)),
        tuple(option_skips(tree, display)),
    )
    modules = (plugin_file(name, path, str(root), lambda p: p.is_file()) for name in _plugins(tree))
    return markers, tuple(module for module in modules if module is not None)


def _parse(path: Path) -> ast.Module | None:
    data = read_bytes(path, str(path))
    if isinstance(data, Problem) or not any(token in data for token in (*_TOKENS, b"plugins")):
        return None
    text = decode_python(data, str(path))
    if isinstance(text, Problem):
        return None
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _string(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _registered(tree: ast.Module, display: str) -> Iterable[MarkerUse]:
    """``config.addinivalue_line("markers", "name(args): text")``: the name before
    the first ``(`` or ``:``, as pytest reads the ini lines."""
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "addinivalue_line"
            and len(node.args) == 2
            and _string(node.args[0]) == "markers"
        ):
            continue
        line = _string(node.args[1])
        if line is None and isinstance(node.args[1], ast.JoinedStr):
            first = node.args[1].values[:1]
            line = _string(first[0]) if first else None  # f"flaky: {text}"
        name = (line or "").split(":", 1)[0].split("(", 1)[0].strip()
        if name.isidentifier():
            yield MarkerUse(name, node_span(display, node))


def _read(tree: ast.Module, display: str) -> Iterable[MarkerUse]:
    """``X.get_closest_marker("name")``, ``X.iter_markers("name")`` (or ``name=``) and
    ``"name" in X.keywords`` (``not in`` too) anywhere in the module's code."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _LOOKUPS:
                for arg in call_args(node):
                    name = _string(arg.value) if arg.keyword in (None, "name") else None
                    if name is not None:
                        yield MarkerUse(name, node_span(display, node))
                        break
            elif node.func.attr == "get" and _is_keywords(node.func.value) and node.args:
                name = _string(node.args[0])
                if name is not None:
                    yield MarkerUse(name, node_span(display, node))
        elif (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.In | ast.NotIn)
            and _is_keywords(node.comparators[0])
        ):
            name = _string(node.left)
            if name is not None:
                yield MarkerUse(name, node_span(display, node))


def _is_keywords(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "keywords"


def _plugins(tree: ast.Module) -> tuple[str, ...]:
    """The module names of a top-level ``pytest_plugins = [...]``."""
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytest_plugins"
            for target in statement.targets
        ):
            return plugin_names(statement.value)
    return ()
