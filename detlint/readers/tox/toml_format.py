"""Reading tox's TOML configuration statically: ``tox.toml``, or the ``[tool.tox]``
tables of pyproject.toml (whose ``legacy_tox_ini`` string, when it has one, is
INI text that :mod:`~detlint.readers.tox.ini_format` reads, laid out at its lines).

tox 4 writes each command there as a list of arguments, run without a shell:
``commands = [["pytest", "--reruns", "2", { replace = "posargs", default = ["tests"] }]]``.
An environment ``env.NAME`` falls back to ``env_run_base`` key by key, as tox
does. Each command becomes the text a shell would split back into the same
words (each argument quoted as needed), so that the CI pass reads it as it
reads a tox.ini command; a ``{ replace = "posargs" }`` argument becomes
``{posargs:default}`` and ``{ replace = "env" }`` becomes ``{env:NAME:default}``,
which :func:`~detlint.readers.tox.ini_format.substitute` fills in. A ``ref`` to a list
in the same document is followed. Each command keeps the position of its item
in the file, found by :mod:`detlint.base.toml_positions`.

Not read: ``env_base`` templates, and replacements whose value depends on the
run (``replace = "if"``, ``"glob"``): an argument built by one is left out, and
so is a command built by one.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from detlint.base.ini_lines import IniLine
from detlint.base.toml_positions import KeyLines, array_items
from detlint.readers.tox.ini_format import (
    DEFAULT_PASS_ENV,
    ToxCommand,
    ToxConfig,
    ToxEnv,
    read_tox_ini,
)

_Where = tuple[int, int, int, int]  # line, column, end line, end column (1-based, end exclusive)
_MAX_REFS = 8  # a ref that leads to another ref, at most this deep


@dataclass(frozen=True)
class TomlToxConfig:
    """The tox table of a tox.toml (its top level) or a pyproject.toml (``tool.tox``)."""

    table: Mapping[str, Any]
    prefix: tuple[str, ...]  # the table's key path in the document: () or ("tool", "tox")
    keys: KeyLines  # where each key is written (``scan_toml``)
    code: tuple[str, ...]  # the document's lines, comments blanked

    @property
    def envlist(self) -> tuple[str, ...]:
        """The environments a bare ``tox`` runs: names, and ``product`` tables of name lists."""
        found: list[str] = []
        for item in _list(self.table.get("env_list", self.table.get("envlist"))):
            if isinstance(item, str):
                found.append(item)
            elif isinstance(item, dict):
                found += _product(item.get("product"))
        return tuple(dict.fromkeys(found))

    @property
    def gh_actions_envs(self) -> tuple[str, ...]:
        """tox-gh-actions reads its mapping from INI only: none here."""
        return ()

    @property
    def defined_envs(self) -> tuple[str, ...]:
        """Every environment the table names: the envlist, then each ``env.NAME``."""
        envs = self.table.get("env")
        named = [str(name) for name in envs] if isinstance(envs, dict) else []
        return tuple(dict.fromkeys((*self.envlist, *named)))

    def env(self, name: str) -> ToxEnv | None:
        """Environment ``name`` (``env.NAME``, else ``env_run_base``, key by key), None when
        this file configures no commands for it."""
        envs = self.table.get("env")
        own = envs.get(name) if isinstance(envs, dict) else None
        base = self.table.get("env_run_base")
        sections = [
            (section, path)
            for section, path in ((own, ("env", name)), (base, ("env_run_base",)))
            if isinstance(section, dict)
        ]
        if not sections:
            return None

        def setting(*names: str) -> tuple[Any, tuple[str, ...]]:
            for section, path in sections:
                for key in names:
                    if key in section:
                        return section[key], (*path, key)
            return None, ()

        commands, commands_at = setting("commands")
        change_dir, _ = setting("change_dir", "changedir")
        pass_env, _ = setting("pass_env", "passenv")
        set_env, set_env_at = setting("set_env", "setenv")
        outcome, _ = setting("ignore_outcome")
        return ToxEnv(
            name,
            self._commands(commands, commands_at),
            change_dir if isinstance(change_dir, str) else None,
            (*DEFAULT_PASS_ENV, *(p for p in _list(pass_env) if isinstance(p, str))),
            self._set_env(set_env, set_env_at),
            outcome is True,
        )

    def _where(self, path: tuple[str, ...]) -> tuple[int, int, int]:
        """``scan_toml``'s (first line, last line, value column) of ``path`` in this table,
        or of the nearest enclosing key written on a line of its own."""
        full = (*self.prefix, *path)
        while full and full not in self.keys:
            full = full[:-1]
        return self.keys.get(full, (1, 1, 0))

    def _commands(self, value: Any, path: tuple[str, ...]) -> tuple[ToxCommand, ...]:
        if not path:
            return ()
        first, last, column = self._where(path)
        written = (*self.prefix, *path) in self.keys  # not inside an inline table
        spans = array_items(self.code, first, column) if written else []
        items = _list(value)
        if len(spans) != len(items):  # inline tables, or a layout the scan cannot follow
            spans = [(first, column + 1, last, len(self.code[last - 1]) + 1)] * len(items)
        found: list[ToxCommand] = []
        for item, where in zip(items, spans, strict=True):
            for argv in self._argvs(item):
                command = self._command(argv, where)
                if command is not None:
                    found.append(command)
        return tuple(found)

    def _argvs(self, item: Any, depth: int = 0) -> list[list[Any]]:
        """The argument lists one item of ``commands`` stands for: itself, or what a
        ``ref`` to a list of commands holds."""
        if isinstance(item, list):
            return [item]
        target = self._ref(item)
        if target is None or depth >= _MAX_REFS:
            return []
        if all(isinstance(entry, str) for entry in target):
            return [target]
        return [argv for entry in target for argv in self._argvs(entry, depth + 1)]

    def _ref(self, item: Any) -> list[Any] | None:
        """The list a ``{ replace = "ref", of = [...] }`` names in this table, if any."""
        if not isinstance(item, dict) or item.get("replace") != "ref":
            return None
        current: Any = self.table
        for key in _list(item.get("of")):
            current = current.get(key) if isinstance(current, dict) else None
        return current if isinstance(current, list) else None

    def _command(self, argv: list[Any], where: _Where) -> ToxCommand | None:
        words: list[str] = []
        for argument in argv:
            if isinstance(argument, str):
                words.append(_quoted(argument))
            elif isinstance(argument, dict):
                words += self._replaced(argument)
        ignore = bool(words) and words[0] == "-"
        words = words[1:] if ignore else words
        if not words:
            return None
        line, column, end_line, end_column = where
        return ToxCommand(" ".join(words), line, column, end_line, end_column, ignore)

    def _replaced(self, argument: Mapping[str, Any]) -> list[str]:
        """The words of a replacement argument, as tox.ini substitutions where they
        have one; nothing for a replacement whose value depends on the run."""
        kind = argument.get("replace")
        default = argument.get("default")
        if kind == "posargs":
            words = [w for w in _list(default) if isinstance(w, str)]
            return ["{posargs:" + shlex.join(words) + "}" if words else "{posargs}"]
        if kind == "env" and isinstance(argument.get("name"), str):
            fallback = default if isinstance(default, str) else ""
            return ["{env:" + argument["name"] + ":" + fallback + "}"]
        target = self._ref(argument)
        if target is not None:
            return [_quoted(word) for word in target if isinstance(word, str)]
        return []

    def _set_env(self, value: Any, path: tuple[str, ...]) -> tuple[tuple[str, str, IniLine], ...]:
        if not isinstance(value, dict):
            return ()
        found: list[tuple[str, str, IniLine]] = []
        for name, setting in value.items():
            if isinstance(setting, bool | int | float):
                setting = str(setting).lower() if isinstance(setting, bool) else str(setting)
            if not isinstance(setting, str):
                continue
            line, _, column = self._where((*path, name))
            found.append((name, setting, IniLine(line, column + 1, setting)))
        return tuple(found)


def read_tox_toml(text: str, pyproject: bool) -> TomlToxConfig | ToxConfig | None:
    """The tox configuration in a tox.toml (``pyproject`` False) or a pyproject.toml's
    ``[tool.tox]`` table: INI text when that table has ``legacy_tox_ini``, else its
    native tables; None without a table, or for invalid TOML."""
    from detlint.base.toml_positions import scan_toml
    from detlint.base.toml_reader import TOMLDecodeError, shared_toml

    try:
        document = shared_toml(text)
    except (TOMLDecodeError, RecursionError):
        return None
    table: Any = document
    prefix: tuple[str, ...] = ()
    if pyproject:
        tool = document.get("tool")
        table = tool.get("tox") if isinstance(tool, dict) else None
        prefix = ("tool", "tox")
    if not isinstance(table, dict):
        return None
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    keys, code = scan_toml(lines)
    legacy = table.get("legacy_tox_ini") if pyproject else None
    if isinstance(legacy, str):
        return read_tox_ini(_laid_out(legacy, lines, keys.get((*prefix, "legacy_tox_ini"))))
    return TomlToxConfig(table, prefix, keys, tuple(code))


def _laid_out(ini: str, lines: list[str], where: tuple[int, int, int] | None) -> str:
    """``legacy_tox_ini``'s INI text laid out as pyproject.toml lays it out.

    The INI text starts at the line of the key's opening quotes, or at the next line
    when the quotes end theirs (TOML drops that newline); every line before it is
    left empty, so that a command's line in the result is its line in
    pyproject.toml. Columns hold when the TOML value is the text as written (a
    literal string, or a basic string without escapes).
    """
    if where is None:  # inside an inline table: no line of its own to start from
        return ini
    first, _, column = where
    below = lines[first - 1][column:].strip() in ('"""', "'''")
    return "\n" * (first if below else first - 1) + ini


def _quoted(word: str) -> str:
    """A word as a shell would need it written, tox's ``{...}`` substitutions kept bare
    where nothing else needs quoting."""
    bare = word.replace("{", "").replace("}", "")
    return word if bare and shlex.quote(bare) == bare else shlex.quote(word)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _product(groups: Any) -> list[str]:
    """``{ product = [["py312", "py313"], ["django42"]] }``: each combination joined by ``-``."""
    import itertools

    lists: list[Sequence[str]] = []
    for group in _list(groups):
        names = [name for name in _list(group) if isinstance(name, str)]
        if not names:
            return []
        lists.append(names)
    return ["-".join(combination) for combination in itertools.product(*lists)] if lists else []
