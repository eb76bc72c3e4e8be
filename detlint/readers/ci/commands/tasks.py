"""The commands a project's task runs: hatch, pdm, poe, pixi and rye scripts, npm
scripts, just recipes, invoke tasks and nox sessions.

CI often runs tests by a name the project defines (``hatch run test:cov``, ``pdm run
test``, ``poe test``, ``just test``, ``nox -s tests``), so the test command is
written in ``pyproject.toml``, ``hatch.toml``, ``pixi.toml``, ``package.json``, a
``justfile``, ``tasks.py`` or ``noxfile.py``. ``task_commands`` finds the task where
its runner looks for it (from the directory the call runs in, up to the checkout)
and gives its commands as shell text, each with where it is written, for the caller
to read like a recipe line. Python files are parsed, never run: an invoke task's
``c.run("...")`` and a nox session's ``session.run("pytest", ...)`` count when their
arguments are literals. The arguments the call adds are appended (hatch, pdm, poe,
npm) or put where the task says (``{args}``).
"""

from __future__ import annotations

import ast
import functools
import json
import posixpath
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from detlint.base.paths import join
from detlint.base.toml_positions import scan_toml
from detlint.base.toml_reader import shared_toml

_MAX_REFERENCES = 8  # tasks that name other tasks (pdm composite, poe sequence, depends-on)


@dataclass(frozen=True)
class TaskCommand:
    """One command a task runs, as shell text, and where it is written (1-based line,
    0-based column of the value's start; 0 when only the line is known)."""

    text: str
    path: str
    line: int
    column: int = 0
    width: int | None = None  # the written text's length, before {args} is filled in


Reader = Callable[[str], str | None]


def task_commands(
    runner: str, words: tuple[str, ...], directory: str, top: str, read_file: Reader
) -> list[TaskCommand] | None:
    """The commands of the task ``words[0]`` (with ``words[1:]`` its arguments) of
    ``runner`` as seen from ``directory``; None when detlint finds no such task."""
    if not words:
        return None
    for folder in _upwards(directory, top):
        found = _find(runner, words[0], list(words[1:]), folder, read_file)
        if found is not None:
            return found
    return None


def _upwards(directory: str, top: str) -> Iterator[str]:
    current = directory
    while True:
        yield current
        if current == top or not current:
            return
        current = posixpath.dirname(current)


def _find(
    runner: str, task: str, args: list[str], folder: str, read_file: Reader
) -> list[TaskCommand] | None:
    if runner in ("hatch", "pdm", "poe", "rye", "pixi"):
        return _toml_task(runner, task, args, folder, read_file)
    if runner in ("npm", "yarn", "pnpm", "bun"):
        return _npm(task, args, folder, read_file)
    if runner == "just":
        return _just(task, args, folder, read_file)
    if runner in ("invoke", "inv"):
        return _python_task(join(folder, "tasks.py"), task, read_file, _invoke_runs)
    if runner == "nox":
        return _python_task(join(folder, "noxfile.py"), task, read_file, _nox_runs)
    return None


# --- TOML task tables ---------------------------------------------------------------------


def _tables(runner: str, task: str) -> list[tuple[str, tuple[str, ...]]]:
    """(file, key path of the task) in the order the runner looks."""
    if runner == "hatch":
        env, colon, name = task.rpartition(":")
        envs = [env] if colon else ["default"]
        return [
            *(("pyproject.toml", ("tool", "hatch", "envs", e, "scripts", name)) for e in envs),
            *(("hatch.toml", ("envs", e, "scripts", name)) for e in envs),
        ]
    if runner == "pdm":
        return [("pyproject.toml", ("tool", "pdm", "scripts", task))]
    if runner == "poe":
        return [("pyproject.toml", ("tool", "poe", "tasks", task))]
    if runner == "rye":
        return [("pyproject.toml", ("tool", "rye", "scripts", task))]
    return [("pixi.toml", ("tasks", task)), ("pyproject.toml", ("tool", "pixi", "tasks", task))]


def _toml_task(
    runner: str, task: str, args: list[str], folder: str, read_file: Reader
) -> list[TaskCommand] | None:
    for name, keys in _tables(runner, task):
        path = join(folder, name)
        text = read_file(path)
        if text is None:
            continue
        document = _document(text)
        if document is None:
            continue
        value = _get(document, keys)
        if value is None:
            continue
        tasks = _TomlTasks(runner, document, _positions(text), path)
        tasks.value(value, keys, args, 0)
        return tasks.found
    return None


@functools.lru_cache(maxsize=64)
def _document(text: str) -> dict[str, Any] | None:
    """A TOML file's values, parsed once however many steps call its tasks."""
    try:
        return shared_toml(text)
    except ValueError:
        return None


@functools.lru_cache(maxsize=64)
def _positions(text: str) -> dict[tuple[str, ...], tuple[int, int, int]]:
    return scan_toml(text.splitlines())[0]


def _get(document: dict[str, Any], keys: tuple[str, ...]) -> Any:
    value: Any = document
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


@dataclass
class _TomlTasks:
    """The tasks of one TOML file, read for one call: the commands found so far."""

    runner: str
    document: dict[str, Any]
    positions: dict[tuple[str, ...], tuple[int, int, int]]
    path: str
    found: list[TaskCommand] = field(default_factory=list)

    def value(self, value: Any, keys: tuple[str, ...], args: list[str], depth: int) -> None:
        """The commands of one task value: a string, a list of them, or a table with
        ``cmd``/``shell``/``composite``/``sequence``/``chain``/``depends-on``."""
        if depth > _MAX_REFERENCES:
            return
        line, _, column = self.positions.get(keys, (0, 0, 0))
        if isinstance(value, str):
            # A hatch script may name another script of the same table, handing it the rest
            # of its words (its own {args} filled in first).
            words = _with_args(value, args).split()
            sibling = (*keys[:-1], words[0]) if words else keys
            other = (
                _get(self.document, sibling) if sibling != keys and self.runner == "hatch" else None
            )
            if isinstance(other, str | list | dict):
                self.value(other, sibling, words[1:], depth + 1)
                return
            written = _with_args(value, args)
            self.found.append(TaskCommand(written, self.path, line, column, _width(value)))
        elif isinstance(value, list):
            for item in value:
                self.value(item, keys, args, depth + 1)
        elif isinstance(value, dict):
            self.table(value, keys, args, depth)

    def table(
        self, value: dict[str, Any], keys: tuple[str, ...], args: list[str], depth: int
    ) -> None:
        """A task written as a table: its ``depends-on`` first, then ``cmd``/``shell``,
        then the tasks or commands of ``composite``/``sequence``/``chain``."""
        line, _, column = self.positions.get(keys, (0, 0, 0))
        for key in ("depends-on", "depends_on"):
            for name in value.get(key) or ():
                other_keys = (*keys[:-1], str(name))
                other = _get(self.document, other_keys)
                if other is not None:
                    self.value(other, other_keys, [], depth + 1)
        for key in ("cmd", "shell"):
            command = value.get(key)
            if isinstance(command, list) and all(isinstance(c, str) for c in command):
                command = shlex.join(command)
            if isinstance(command, str):
                where = self.positions.get((*keys, key), (line, line, column))
                self.found.append(
                    TaskCommand(
                        _with_args(command, args), self.path, where[0], where[2], _width(command)
                    )
                )
        for key in ("composite", "sequence", "chain"):
            for item in value.get(key) or ():
                name = item.split()[0] if isinstance(item, str) and item.split() else None
                other_keys = (*keys[:-1], name) if name else keys
                other = _get(self.document, other_keys) if name else None
                if other is not None and other_keys != keys:
                    self.value(other, other_keys, [], depth + 1)
                elif isinstance(item, str):
                    self.found.append(TaskCommand(item, self.path, line, column))
                elif isinstance(item, dict):
                    self.value(item, keys, [], depth + 1)


def _width(command: str) -> int | None:
    """How wide a one-line command is written (None for several lines)."""
    return None if "\n" in command else len(command)


def _with_args(command: str, args: list[str]) -> str:
    """``command`` with the call's arguments in its ``{args}`` (``{args:tests}`` names
    what it holds when the call gives none), else after it."""
    joined = shlex.join(args)
    if "{args}" in command or "{args:" in command:
        head, _, rest = command.partition("{args")
        inside, _, tail = rest.partition("}")
        default = inside[1:] if inside.startswith(":") else ""
        return head + (joined if args else default) + tail
    return f"{command} {joined}" if args else command


# --- package.json and justfile ------------------------------------------------------------


def _npm(task: str, args: list[str], folder: str, read_file: Reader) -> list[TaskCommand] | None:
    path = join(folder, "package.json")
    text = read_file(path)
    if text is None:
        return None
    try:
        scripts = json.loads(text).get("scripts")
    except (ValueError, AttributeError):
        return None
    command = scripts.get(task) if isinstance(scripts, dict) else None
    if not isinstance(command, str):
        return None
    line = next((n for n, row in enumerate(text.splitlines(), 1) if f'"{task}"' in row), 0)
    return [TaskCommand(_with_args(command, args), path, line)]


def _just(task: str, args: list[str], folder: str, read_file: Reader) -> list[TaskCommand] | None:
    for name in ("justfile", "Justfile", ".justfile"):
        path = join(folder, name)
        text = read_file(path)
        if text is None:
            continue
        lines = text.splitlines()
        for number, row in enumerate(lines):
            head = row.split(":", 1)[0].split()
            if row and not row[0].isspace() and head and head[0].lstrip("@") == task and ":" in row:
                found = []
                for offset, body in enumerate(lines[number + 1 :], start=number + 2):
                    if body and not body[0].isspace():
                        break
                    command = body.strip().lstrip("@-").strip()
                    if command and not command.startswith("#"):
                        indent = len(body) - len(body.lstrip())
                        found.append(TaskCommand(command, path, offset, indent))
                return found
        return None
    return None


# --- tasks.py and noxfile.py --------------------------------------------------------------


def _python_task(
    path: str, task: str, read_file: Reader, runs: Callable[[ast.AST], Iterator[ast.Call]]
) -> list[TaskCommand] | None:
    text = read_file(path)
    if text is None:
        return None
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef) and task in _names(node):
            found = []
            for call in runs(node):
                command = _literal_command(call)
                if command is not None:
                    found.append(TaskCommand(command, path, call.lineno, call.col_offset))
            return found
    return None


def nox_sessions(directory: str, top: str, read_file: Reader) -> list[str]:
    """The sessions the noxfile nearest ``directory`` (up to ``top``) defines, by the
    names nox gives them (a ``name=`` of ``@nox.session``, else the function's)."""
    for folder in _upwards(directory, top):
        text = read_file(join(folder, "noxfile.py"))
        if text is None:
            continue
        try:
            module = ast.parse(text)
        except (SyntaxError, ValueError):
            return []
        names: list[str] = []
        for node in module.body:
            if isinstance(node, ast.FunctionDef):
                for decorator in node.decorator_list:
                    target = decorator.func if isinstance(decorator, ast.Call) else decorator
                    named = target.attr if isinstance(target, ast.Attribute) else None
                    if named == "session" or (
                        isinstance(target, ast.Name) and target.id == "session"
                    ):
                        names.append(_session_name(node, decorator))
        return names
    return []


def _session_name(function: ast.FunctionDef, decorator: ast.expr) -> str:
    if isinstance(decorator, ast.Call):
        for keyword in decorator.keywords:
            if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                return str(keyword.value.value)
    return function.name


def _literal_command(call: ast.Call) -> str | None:
    """``c.run("pytest tests")`` as written; ``session.run("pytest", "tests",
    *session.posargs)`` as ``pytest tests`` with what the session is handed left out; an
    argument computed otherwise as ``$ARG`` (unknown). None when the program itself is
    not a literal."""
    words: list[str] = []
    for arg in call.args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            words.append(arg.value)
        elif isinstance(arg, ast.Starred):
            continue
        elif words:
            words.append("$ARG")
        else:
            return None
    if not words:
        return None
    if len(words) == 1:
        return words[0]
    return " ".join(
        [shlex.quote(words[0]), *(w if w == "$ARG" else shlex.quote(w) for w in words[1:])]
    )


def _names(function: ast.FunctionDef) -> set[str]:
    """The names a task or session is called by: the function's, with ``_`` read as
    ``-`` (invoke), and a ``name=`` its decorator gives (nox)."""
    names = {function.name, function.name.replace("_", "-")}
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    names.add(str(keyword.value.value))
    return names


def _invoke_runs(function: ast.AST) -> Iterator[ast.Call]:
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("run", "sudo")
            and node.args
        ):
            yield node


def _nox_runs(function: ast.AST) -> Iterator[ast.Call]:
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("run", "run_always", "run_install")
            and node.args
        ):
            yield node
