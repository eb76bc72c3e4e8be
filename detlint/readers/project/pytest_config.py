"""The pytest configuration pass: the settings that rerun or soften tests project-wide.

A rerun count in ``addopts`` or an ini ``reruns`` key silently applies to every test, so the
linter must know it before judging any single test. It is read statically, the way pytest
reads it: one config file only (the first found walking up from the tests' directory, never
merged), ``addopts`` treated like the command line (so ``--reruns`` there beats ini
``reruns``), and the plugins' own option rules (last occurrence wins, ``-o`` overrides beat
file values, ``strict_xfail`` beats its alias ``xfail_strict``, which beat ``strict``).

Values pytest would reject are reported as :class:`~detlint.base.span.Problem` and, where the
intent is still clear (``reruns = 2`` as a TOML integer), read anyway: the knob shows what the
project meant to do, and the problem says why it is not doing it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from detlint.base.span import Problem, Span
from detlint.readers.project.pytest_config_files import RawConfig, RawValue
from detlint.readers.python.options import (
    DEFAULT_PYTHON_CLASSES,
    DEFAULT_PYTHON_FILES,
    DEFAULT_PYTHON_FUNCTIONS,
)

DEFAULT_NORECURSEDIRS = (
    "*.egg",
    ".*",
    "_darcs",
    "build",
    "CVS",
    "dist",
    "node_modules",
    "venv",
    "{arch}",
)
DEFAULT_MAX_RUNS = 2
DEFAULT_MIN_PASSES = 1

_TRUE = frozenset({"y", "yes", "t", "true", "on", "1"})
_FALSE = frozenset({"n", "no", "f", "false", "off", "0"})
_INT_OPTIONS = frozenset(
    {"--reruns", "--force-reruns", "--retries", "--max-runs", "--min-passes", "--max-suite-reruns"}
)
_LIST_OPTIONS = frozenset({"--only-rerun", "--rerun-except", "--rerun-exclude-path"})
_VALUE_OPTIONS = _INT_OPTIONS | _LIST_OPTIONS | {"--reruns-mode", "--override-ini"}
_FLAG_OPTIONS = frozenset({"--force-flaky", "--strict", "--fail-on-flaky", "--ignore-flaky"})
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")  # what argparse accepts as a value


@dataclass(frozen=True)
class IntSetting:
    """An integer knob and where it is set; ``source`` says how (``"addopts --reruns"``)."""

    value: int
    span: Span
    source: str


@dataclass(frozen=True)
class RegisteredMarker:
    """A marker registered in the ``markers`` ini option (one line of it)."""

    name: str
    description: str
    span: Span


@dataclass(frozen=True)
class PytestConfig:
    """The project-wide settings from the one config file pytest reads for some tests."""

    path: str | None
    reruns: IntSetting | None
    reruns_mode: str
    force_reruns: IntSetting | None
    retries: IntSetting | None
    force_flaky: Span | None
    max_runs: int
    min_passes: int
    only_rerun: tuple[str, ...]
    rerun_except: tuple[str, ...]
    disabled_plugins: frozenset[str]
    strict_xfail: bool
    strict_xfail_span: Span | None
    markers: tuple[RegisteredMarker, ...]
    testpaths: tuple[str, ...]
    python_files: tuple[str, ...]
    problems: tuple[Problem, ...]
    python_classes: tuple[str, ...] = DEFAULT_PYTHON_CLASSES
    python_functions: tuple[str, ...] = DEFAULT_PYTHON_FUNCTIONS
    norecursedirs: tuple[str, ...] = DEFAULT_NORECURSEDIRS
    # pytest-rerunfailures' --fail-on-flaky in addopts: a pass on a rerun fails the run
    # (exit 7), so its reruns hide no failure.
    fail_on_flaky: Span | None = None
    # pytest-rerunfailures' --max-suite-reruns: no rerun once the session has had that many.
    max_suite_reruns: IntSetting | None = None
    # pytest-rerunfailures' --rerun-exclude-path, relative to the rootdir: no test under
    # one is rerun by that plugin, marker or not.
    rerun_exclude_paths: tuple[str, ...] = ()
    # pytest-ignore-flaky's --ignore-flaky: a failing `flaky`-marked test reports as XFAIL.
    ignore_flaky: Span | None = None


EMPTY_CONFIG = PytestConfig(
    path=None,
    reruns=None,
    reruns_mode="strict",
    force_reruns=None,
    retries=None,
    force_flaky=None,
    max_runs=DEFAULT_MAX_RUNS,
    min_passes=DEFAULT_MIN_PASSES,
    only_rerun=(),
    rerun_except=(),
    disabled_plugins=frozenset(),
    strict_xfail=False,
    strict_xfail_span=None,
    markers=(),
    testpaths=(),
    python_files=DEFAULT_PYTHON_FILES,
    problems=(),
)


def is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


@dataclass
class _Addopts:
    """What ``addopts`` sets, option by option; ``ints`` maps an option to (value, line)."""

    ints: dict[str, tuple[int, int]] = field(default_factory=dict)
    reruns_mode: str = "strict"
    force_flaky: int | None = None
    fail_on_flaky: int | None = None
    ignore_flaky: int | None = None
    lists: dict[str, list[str]] = field(default_factory=dict)
    disabled: set[str] = field(default_factory=set)


class ConfigReader:
    """Turns one file's raw values into a :class:`PytestConfig`, collecting problems."""

    def __init__(self, raw: RawConfig, display: str) -> None:
        self.raw = raw
        self.display = display
        self.problems = [Problem(Span.file(display), message) for message in raw.problems]
        self.overrides: dict[str, RawValue] = {}

    def span(self, line: int) -> Span:
        text = self.raw.lines[line - 1] if 0 < line <= len(self.raw.lines) else ""
        return Span.whole_line(self.display, line, text)

    def problem(self, line: int, message: str) -> None:
        """A setting on ``line`` that is not read as written; the rest of the file is."""
        setting = f"the setting on line {line}"
        self.problems.append(Problem(self.span(line), message, setting, kept=True))

    def get(self, *names: str) -> tuple[str, str, RawValue] | None:
        """(source label, key, value) of the first of ``names`` set; pytest's precedence is an
        ``-o`` override before a file value, then the canonical name before its aliases."""
        for origin, values in (("addopts -o", self.overrides), ("ini", self.raw.values)):
            for name in names:
                if name in values:
                    return f"{origin} {name}", name, values[name]
        return None

    def config(self) -> PytestConfig:
        opts = self.addopts()
        strict = self.boolean("strict_xfail", "xfail_strict") or self.boolean("strict")
        markers = tuple(
            RegisteredMarker(
                line.split(":", 1)[0].split("(")[0].strip(),
                line.split(":", 1)[1].strip() if ":" in line else "",
                self.span(number),
            )
            for line, number in self.strings("markers", shell=False) or ()
        )
        return PytestConfig(
            path=self.display,
            reruns=self.addopts_int(opts, "--reruns") or self.integer("reruns"),
            reruns_mode=opts.reruns_mode,
            force_reruns=self.addopts_int(opts, "--force-reruns"),
            retries=self.addopts_int(opts, "--retries") or self.integer("retries"),
            force_flaky=None if opts.force_flaky is None else self.span(opts.force_flaky),
            max_runs=opts.ints.get("--max-runs", (DEFAULT_MAX_RUNS, 0))[0],
            min_passes=opts.ints.get("--min-passes", (DEFAULT_MIN_PASSES, 0))[0],
            only_rerun=self.rerun_filter(opts, "--only-rerun", "only_rerun"),
            rerun_except=self.rerun_filter(opts, "--rerun-except", "rerun_except"),
            disabled_plugins=frozenset(opts.disabled),
            strict_xfail=strict[0] if strict else False,
            strict_xfail_span=strict[1] if strict else None,
            markers=markers,
            testpaths=tuple(text for text, _ in self.strings("testpaths", shell=True) or ()),
            python_files=self.words("python_files") or DEFAULT_PYTHON_FILES,
            problems=tuple(self.problems),
            python_classes=self.words("python_classes") or DEFAULT_PYTHON_CLASSES,
            python_functions=self.words("python_functions") or DEFAULT_PYTHON_FUNCTIONS,
            norecursedirs=self.words("norecursedirs") or DEFAULT_NORECURSEDIRS,
            fail_on_flaky=None if opts.fail_on_flaky is None else self.span(opts.fail_on_flaky),
            max_suite_reruns=self.addopts_int(opts, "--max-suite-reruns"),
            rerun_exclude_paths=tuple(opts.lists.get("--rerun-exclude-path", ())),
            ignore_flaky=None if opts.ignore_flaky is None else self.span(opts.ignore_flaky),
        )

    def words(self, key: str) -> tuple[str, ...]:
        """An "args" ini option (``python_classes = Test* *Tests``), word by word."""
        return tuple(text for text, _ in self.strings(key, shell=True) or ())

    def addopts_int(self, opts: _Addopts, option: str) -> IntSetting | None:
        if option not in opts.ints:
            return None
        value, line = opts.ints[option]
        return IntSetting(value, self.span(line), f"addopts {option}")

    def rerun_filter(self, opts: _Addopts, option: str, key: str) -> tuple[str, ...]:
        """The command-line filter replaces the ini one (pytest-rerunfailures 16.7)."""
        if option in opts.lists:
            return tuple(opts.lists[option])
        return tuple(text for text, _ in self.strings(key, shell=False) or ())

    def integer(self, key: str) -> IntSetting | None:
        """An ini integer such as ``reruns``: the plugins read it as a string and call int()."""
        found = self.get(key)
        if found is None:
            return None
        source, _, raw = found
        value = raw.value
        if value == "":
            return None  # both plugins treat an empty value as unset
        if raw.toml and not isinstance(value, str):
            self.problem(
                raw.line,
                f"{key} must be a string in a native TOML table (pytest stops with "
                f"'expects a string, got {type(value).__name__}'): write {key} = \"{value}\"",
            )
        try:
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                raise ValueError
            number = int(value)
        except ValueError:
            self.problem(raw.line, f"{key} is not an integer: {value!r}")
            return None
        return IntSetting(number, self.span(raw.line), source)

    def boolean(self, *names: str) -> tuple[bool, Span] | None:
        """A bool ini option, parsed like pytest's ``_strtobool`` (TOML mode needs a real bool)."""
        found = self.get(*names)
        if found is None:
            return None
        _, key, raw = found
        if isinstance(raw.value, bool):
            return raw.value, self.span(raw.line)
        if raw.toml:
            self.problem(raw.line, f"{key} must be a TOML boolean, got {raw.value!r}")
        text = str(raw.value).strip().lower()
        if text in _TRUE or text in _FALSE:
            return text in _TRUE, self.span(raw.line)
        self.problem(raw.line, f"{key} is not a boolean: {raw.value!r}")
        return None

    def strings(self, key: str, *, shell: bool) -> list[tuple[str, int]] | None:
        """A list option (pytest's "args" type if ``shell``, else "linelist") with each item's
        line. A string is split (shlex or by lines) in ini mode; native TOML requires a list."""
        found = self.get(key)
        if found is None:
            return None
        _, _, raw = found
        value = raw.value
        if isinstance(value, list):
            if raw.toml and not all(isinstance(item, str) for item in value):
                self.problem(raw.line, f"{key} must be a list of strings: {value!r}")
            items = [str(item) for item in value]
        elif isinstance(value, str):
            if raw.toml:
                self.problem(raw.line, f"{key} must be a TOML list in a native TOML table")
            items = [line.strip() for line in value.split("\n") if line.strip()]
            if shell:
                try:
                    items = shlex.split(value)
                except ValueError as exc:
                    self.problem(raw.line, f"{key} cannot be split like a shell line: {exc}")
                    items = value.split()
        else:
            self.problem(raw.line, f"{key} must be a string or a list, got {value!r}")
            return None
        return list(zip(items, _locate(raw, items), strict=True))

    def addopts(self) -> _Addopts:
        """Read ``addopts`` the way argparse reads the command line, for the options that
        decide reruns; everything else is skipped. ``-o``/``--strict`` fill ``overrides``."""
        opts = _Addopts()
        tokens = self.strings("addopts", shell=True) or []
        index = 0
        while index < len(tokens):
            token, line = tokens[index]
            index += 1
            if token == "--":
                break
            option, equals, value = token.partition("=")
            if option in _VALUE_OPTIONS and not equals:
                following = tokens[index][0] if index < len(tokens) else None
                if following is None or (
                    following.startswith("-") and not _NEGATIVE_NUMBER.match(following)
                ):
                    self.problem(line, f"addopts {option} needs a value")
                    continue
                value, index = following, index + 1
            elif token in ("-p", "-o"):
                if index == len(tokens):
                    self.problem(line, f"addopts {token} needs a value")
                    continue
                option, value, index = token, tokens[index][0], index + 1
            elif token.startswith(("-p", "-o")):
                option, value = token[:2], token[2:]
            if option in _INT_OPTIONS:
                try:
                    opts.ints[option] = (int(value), line)
                except ValueError:
                    self.problem(line, f"addopts {option} expects an integer, got {value!r}")
            elif option in _LIST_OPTIONS:
                opts.lists.setdefault(option, []).append(value)
            elif option == "--reruns-mode":
                if value in ("strict", "append"):
                    opts.reruns_mode = value
                else:
                    self.problem(line, f"addopts --reruns-mode must be strict or append: {value!r}")
            elif option in _FLAG_OPTIONS:
                if equals:
                    self.problem(line, f"addopts {option} takes no value: {token!r}")
                elif option == "--force-flaky":
                    opts.force_flaky = line
                elif option == "--fail-on-flaky":
                    opts.fail_on_flaky = line
                elif option == "--ignore-flaky":
                    opts.ignore_flaky = line
                else:  # --strict is pytest's shorthand for -o strict=true
                    self.overrides["strict"] = RawValue("true", False, line, ((line, token),))
            elif option == "-p":
                self.plugin(opts, value, line)
            elif option in ("-o", "--override-ini"):
                self.override(value.removeprefix("=") if option == "-o" else value, line)
        return opts

    def plugin(self, opts: _Addopts, value: str, line: int) -> None:
        """``-p no:NAME`` blocks a plugin; a later ``-p NAME`` unblocks it again."""
        if value.startswith("="):
            self.problem(
                line,
                f"addopts -p{value}: pytest imports a plugin named {value.strip()!r} and stops"
                f" with an error; write -p {value[1:].strip()}",
            )
            value = value[1:]
        name = value.strip()
        if name.startswith("no:"):
            opts.disabled.add(name[3:])
        else:
            opts.disabled.discard(name)
            opts.disabled.discard(f"pytest_{name}")

    def override(self, assignment: str, line: int) -> None:
        key, equals, value = assignment.partition("=")
        if not equals:
            self.problem(line, f"addopts -o expects option=value, got {assignment!r}")
            return
        self.overrides[key] = RawValue(value, False, line, ((line, assignment),))


def _locate(raw: RawValue, items: list[str]) -> list[int]:
    """The line of each item, found in order in the value's lines (comments already removed).

    An item whose text is not written literally (shell quoting split across words, escapes)
    gets the line of the item before it, which for a one-line value is the right line.
    """
    segments = raw.segments
    lines: list[int] = []
    row, column = 0, 0
    for item in items:
        for candidate in range(row, len(segments)):
            at = segments[candidate][1].find(item, column if candidate == row else 0)
            if at >= 0:
                row, column = candidate, at + len(item)
                break
        lines.append(segments[row][0] if segments else raw.line)
    return lines
