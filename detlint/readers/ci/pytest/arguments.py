"""Reading the words handed to pytest: which are rerun knobs, which are test targets.

A CI command, ``PYTEST_ADDOPTS`` and an ini file's ``addopts`` all hand pytest
a list of words, and what matters to detlint is which of them are rerun knobs
and which are test targets (``read_pytest_args``). They are read as pytest's
argparse reads them, with the table in ``options.py`` saying which options
take the next word. The words are taken after quote removal, so the shell
reader and the config readers share this. The shell reader takes the options
and knobs alone (``scan_pytest_args``, ``read_knobs``) into the facts of a run,
without a ``PytestArgs`` that it would only copy field by field.

Finding which words of a shell command reach pytest at all is the business of
``shell/launchers.py`` (``recognise_launcher``) and ``shell/wrappers.py``
(``skip_wrappers``, ``join_dir``); those names are importable from here too, for
callers that read a command's launcher and its pytest arguments together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from detlint.readers.ci.pytest.options import FLAG_ALIASES, FLAKE_FINDER_DEFAULT_RUNS, VALUE_OPTIONS
from detlint.readers.ci.shell.launchers import Launch, recognise_launcher
from detlint.readers.ci.shell.wrappers import join_dir, skip_wrappers

__all__ = [
    "FLAKE_FINDER_DEFAULT_RUNS",
    "Knobs",
    "Launch",
    "Option",
    "PytestArgs",
    "join_dir",
    "read_knobs",
    "read_pytest_args",
    "recognise_launcher",
    "scan_pytest_args",
    "skip_wrappers",
]


@dataclass(frozen=True)
class Option:
    """One option as pytest reads it.

    ``index`` is the position of its first word in the argument list and
    ``width`` how many words it spans (2 for ``--reruns 3``, 1 for ``--reruns=3``).
    ``value`` is None for a flag, or for a value option with nothing after it.
    """

    name: str  # canonical spelling, e.g. "-c" for --config-file, "--reruns"
    value: str | None
    index: int
    width: int

    def written(self, args: Sequence[str]) -> str:
        return " ".join(args[self.index : self.index + self.width])


@dataclass(frozen=True)
class PytestArgs:
    """What a pytest argument list asks for; ``None`` means "not on this list"."""

    options: tuple[Option, ...]
    targets: tuple[str, ...]
    keyword: str | None = None
    markexpr: str | None = None
    reruns: int | None = None
    reruns_option: Option | None = None  # the --reruns that wins (the last one)
    reruns_dynamic: bool = False  # its value is a shell expansion such as $N
    reruns_delay: bool = False
    only_rerun: tuple[str, ...] = ()
    rerun_except: tuple[str, ...] = ()
    force_reruns: int | None = None
    reruns_mode: str | None = None
    max_suite_reruns: int | None = None
    fail_on_flaky: bool = False
    rerun_exclude_path: tuple[str, ...] = ()
    ignore_flaky: bool = False  # pytest-ignore-flaky's switch
    retries: int | None = None
    force_flaky: bool = False
    max_runs: int | None = None
    min_passes: int | None = None
    count: int | None = None
    flake_runs: int | None = None  # set only with --flake-finder
    disabled_plugins: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()
    rootdir: str | None = None
    config_file: str | None = None
    dynamic_options: tuple[str, ...] = ()  # options whose value is a shell expansion


def _looks_like_option(word: str) -> bool:
    """argparse's test for "this word starts another option" (negative numbers excepted)."""
    if not word.startswith("-") or word == "-":
        return False
    try:
        float(word)
    except ValueError:
        return True
    return False


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def scan_pytest_args(args: Sequence[str]) -> tuple[list[Option], list[str]]:
    """Split pytest's argument list ``args`` into options (with their values) and
    positional targets, as pytest's argparse does."""
    options: list[Option] = []
    targets: list[str] = []
    count = len(args)
    i = 0
    positional_only = False
    while i < count:
        word = args[i]
        if positional_only or not word.startswith("-") or word == "-":
            targets.append(word)
            i += 1
        elif word == "--":
            positional_only = True
            i += 1
        elif word.startswith("--"):
            name, eq, value = word.partition("=")
            spec = VALUE_OPTIONS.get(name)
            canonical = spec.canonical if spec else FLAG_ALIASES.get(name, name)
            takes_next = (
                spec is not None
                and i + 1 < count
                and not (spec.optional and _looks_like_option(args[i + 1]))
            )
            if eq:
                options.append(Option(canonical, value, i, 1))
                i += 1
            elif takes_next:
                options.append(Option(canonical, args[i + 1], i, 2))
                i += 2
            else:  # a flag, or a value option with no value after it
                options.append(Option(canonical, None, i, 1))
                i += 1
        else:
            i += _scan_short(args, i, options)
    return options, targets


def _scan_short(args: Sequence[str], i: int, options: list[Option]) -> int:
    """Read a cluster such as ``-xvs`` or ``-kfoo``; returns how many words it used."""
    word = args[i]
    for j in range(1, len(word)):
        flag = "-" + word[j]
        spec = VALUE_OPTIONS.get(flag)
        if spec is None:
            options.append(Option(flag, None, i, 1))
            continue
        rest = word[j + 1 :]
        if rest:
            options.append(Option(spec.canonical, rest.removeprefix("="), i, 1))
            return 1
        if i + 1 < len(args):
            options.append(Option(spec.canonical, args[i + 1], i, 2))
            return 2
        options.append(Option(spec.canonical, None, i, 1))
        return 1
    return 1


class Knobs(TypedDict, total=False):
    """What an argument list sets, each entry present only when it differs from
    its default: the ``PytestArgs`` (and ``shell.PytestRun``) fields of the same names."""

    keyword: str
    markexpr: str
    reruns: int
    reruns_dynamic: bool
    reruns_delay: bool
    only_rerun: tuple[str, ...]
    rerun_except: tuple[str, ...]
    force_reruns: int
    reruns_mode: str
    max_suite_reruns: int
    fail_on_flaky: bool
    rerun_exclude_path: tuple[str, ...]
    ignore_flaky: bool
    retries: int
    force_flaky: bool
    max_runs: int
    min_passes: int
    count: int
    flake_runs: int
    disabled_plugins: tuple[str, ...]
    plugins: tuple[str, ...]
    rootdir: str
    config_file: str


# Every option name that sets a knob; most argument lists have none but -k and -m.
_KNOB_NAMES = frozenset(
    (
        *("--reruns", "--reruns-delay", "--only-rerun", "--rerun-except", "--force-reruns"),
        *("--reruns-mode", "--max-suite-reruns", "--fail-on-flaky", "--retries"),
        *("--rerun-exclude-path", "--ignore-flaky"),
        *("--force-flaky", "--max-runs", "--min-passes", "--count", "--flake-finder", "-p"),
        *("--rootdir", "-c"),
    )
)


def _is_dynamic(option: Option, dynamic: Sequence[bool]) -> bool:
    """Whether the value of ``option`` is a shell expansion (see ``read_pytest_args``)."""
    last = option.index + option.width - 1
    if last < len(dynamic):
        return dynamic[last]
    return option.value is not None and "$" in option.value


def _appended(options: Sequence[Option], name: str) -> tuple[str, ...]:
    return tuple(
        option.value for option in options if option.name == name and option.value is not None
    )


def _read_rerunfailures_knobs(
    knobs: Knobs, options: Sequence[Option], last: dict[str, Option], dynamic: Sequence[bool]
) -> Option | None:
    """Add to ``knobs`` what pytest-rerunfailures' options set, for ``read_knobs``, and
    return the ``--reruns`` option that wins; ``last`` holds each option's last
    occurrence. Its ``--reruns`` is the one knob whose value, when the shell expands
    it, is still counted: as ``reruns_dynamic``."""
    get = last.get
    if (reruns_option := get("--reruns")) is not None:
        if (reruns := _int(reruns_option.value)) is not None:
            knobs["reruns"] = reruns
        elif _is_dynamic(reruns_option, dynamic):
            knobs["reruns_dynamic"] = True
    if "--reruns-delay" in last:
        knobs["reruns_delay"] = True
    if "--only-rerun" in last and (only_rerun := _appended(options, "--only-rerun")):
        knobs["only_rerun"] = only_rerun
    if "--rerun-except" in last and (rerun_except := _appended(options, "--rerun-except")):
        knobs["rerun_except"] = rerun_except
    if (option := get("--force-reruns")) and (force_reruns := _int(option.value)) is not None:
        knobs["force_reruns"] = force_reruns
    if (option := get("--reruns-mode")) and option.value is not None:
        knobs["reruns_mode"] = option.value
    if (option := get("--max-suite-reruns")) and (suite := _int(option.value)) is not None:
        knobs["max_suite_reruns"] = suite
    if "--fail-on-flaky" in last:
        knobs["fail_on_flaky"] = True
    if "--rerun-exclude-path" in last and (paths := _appended(options, "--rerun-exclude-path")):
        knobs["rerun_exclude_path"] = paths
    return reruns_option


def read_knobs(
    options: Sequence[Option], dynamic: Sequence[bool] = ()
) -> tuple[Knobs, Option | None]:
    """The knobs that ``options`` (from ``scan_pytest_args``) set, and the
    ``--reruns`` option that wins; ``dynamic`` as for ``read_pytest_args``.

    The shell reader takes these straight into its facts, without building the
    rest of a ``PytestArgs``: options that pytest stores once keep their last
    occurrence, as argparse does; appending options (``-p``, ``--only-rerun``)
    keep all of them.
    """
    knobs: Knobs = {}
    last = {option.name: option for option in options}
    if "-k" in last and (keyword := last["-k"].value) is not None:
        knobs["keyword"] = keyword
    if "-m" in last and (markexpr := last["-m"].value) is not None:
        knobs["markexpr"] = markexpr
    if last.keys().isdisjoint(_KNOB_NAMES):
        return knobs, None
    get = last.get
    reruns_option = _read_rerunfailures_knobs(knobs, options, last, dynamic)
    if (option := get("--retries")) and (retries := _int(option.value)) is not None:
        knobs["retries"] = retries
    if "--force-flaky" in last:
        knobs["force_flaky"] = True
    if "--ignore-flaky" in last:
        knobs["ignore_flaky"] = True
    if (option := get("--max-runs")) and (max_runs := _int(option.value)) is not None:
        knobs["max_runs"] = max_runs
    if (option := get("--min-passes")) and (min_passes := _int(option.value)) is not None:
        knobs["min_passes"] = min_passes
    if (option := get("--count")) and (count := _int(option.value)) is not None:
        knobs["count"] = count
    if "--flake-finder" in last:
        runs = get("--flake-runs")
        knobs["flake_runs"] = (runs and _int(runs.value)) or FLAKE_FINDER_DEFAULT_RUNS
    if "-p" in last and (plugins := _appended(options, "-p")):
        disabled = tuple(p.removeprefix("no:") for p in plugins if p.startswith("no:"))
        enabled = tuple(p for p in plugins if not p.startswith("no:"))
        if disabled:
            knobs["disabled_plugins"] = disabled
        if enabled:
            knobs["plugins"] = enabled
    if (option := get("--rootdir")) and option.value is not None:
        knobs["rootdir"] = option.value
    if (option := get("-c")) and option.value is not None:
        knobs["config_file"] = option.value
    return knobs, reruns_option


def read_pytest_args(args: Sequence[str], dynamic: Sequence[bool] = ()) -> PytestArgs:
    """Read pytest's argument list ``args`` (words after quote removal).

    ``dynamic[i]`` says that word ``i`` holds a shell expansion whose value is
    unknown (``$N``); without it a value containing ``$`` counts as dynamic.
    Options that pytest stores once keep their last occurrence, as argparse does;
    appending options (``-p``, ``--only-rerun``) keep all of them.
    """
    options, targets = scan_pytest_args(args)
    dynamic_names: list[str] = []
    for option in options:
        if (
            option.value is not None
            and option.name not in dynamic_names
            and _is_dynamic(option, dynamic)
        ):
            dynamic_names.append(option.name)
    knobs, reruns_option = read_knobs(options, dynamic)
    return PytestArgs(
        options=tuple(options),
        targets=tuple(targets),
        reruns_option=reruns_option,
        dynamic_options=tuple(dynamic_names),
        **knobs,
    )
