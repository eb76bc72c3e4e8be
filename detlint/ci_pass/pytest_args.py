"""Reading the words handed to pytest: which are rerun knobs, which are test targets.

A CI command, ``PYTEST_ADDOPTS`` and an ini file's ``addopts`` all hand pytest
a list of words, and what matters to detlint is which of them are rerun knobs
and which are test targets (``read_pytest_args``). They are read as pytest's
argparse reads them, with the table in ``pytest_options`` saying which options
take the next word. The words are taken after quote removal, so the shell
reader and the config readers share this.

Finding which words of a shell command reach pytest at all is the business of
``shell_launchers`` (``recognise_launcher``) and ``shell_wrappers``
(``skip_wrappers``, ``join_dir``); those names are importable from here too, for
callers that read a command's launcher and its pytest arguments together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from detlint.ci_pass.pytest_options import FLAG_ALIASES, FLAKE_FINDER_DEFAULT_RUNS, VALUE_OPTIONS
from detlint.ci_pass.shell_launchers import Launch, recognise_launcher
from detlint.ci_pass.shell_wrappers import join_dir, skip_wrappers

__all__ = [
    "FLAKE_FINDER_DEFAULT_RUNS",
    "Launch",
    "Option",
    "PytestArgs",
    "join_dir",
    "read_pytest_args",
    "recognise_launcher",
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


def _scan(args: Sequence[str]) -> tuple[list[Option], list[str]]:
    """Split ``args`` into options (with their values) and positional targets."""
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


def read_pytest_args(args: Sequence[str], dynamic: Sequence[bool] = ()) -> PytestArgs:
    """Read pytest's argument list ``args`` (words after quote removal).

    ``dynamic[i]`` says that word ``i`` holds a shell expansion whose value is
    unknown (``$N``); without it a value containing ``$`` counts as dynamic.
    Options that pytest stores once keep their last occurrence, as argparse does;
    appending options (``-p``, ``--only-rerun``) keep all of them.
    """
    options, targets = _scan(args)

    def is_dynamic(option: Option) -> bool:
        last = option.index + option.width - 1
        if last < len(dynamic):
            return dynamic[last]
        return option.value is not None and "$" in option.value

    last: dict[str, Option] = {}
    appended: dict[str, list[str]] = {}
    dynamic_names: list[str] = []
    for option in options:
        last[option.name] = option
        if option.value is not None:
            appended.setdefault(option.name, []).append(option.value)
            if is_dynamic(option) and option.name not in dynamic_names:
                dynamic_names.append(option.name)

    def value(name: str) -> str | None:
        option = last.get(name)
        return option.value if option else None

    plugins = appended.get("-p", [])
    reruns_option = last.get("--reruns")
    flake_runs = None
    if "--flake-finder" in last:
        flake_runs = _int(value("--flake-runs")) or FLAKE_FINDER_DEFAULT_RUNS
    return PytestArgs(
        options=tuple(options),
        targets=tuple(targets),
        keyword=value("-k"),
        markexpr=value("-m"),
        reruns=_int(value("--reruns")),
        reruns_option=reruns_option,
        reruns_dynamic=reruns_option is not None
        and _int(reruns_option.value) is None
        and is_dynamic(reruns_option),
        reruns_delay="--reruns-delay" in last,
        only_rerun=tuple(appended.get("--only-rerun", [])),
        rerun_except=tuple(appended.get("--rerun-except", [])),
        force_reruns=_int(value("--force-reruns")),
        reruns_mode=value("--reruns-mode"),
        max_suite_reruns=_int(value("--max-suite-reruns")),
        fail_on_flaky="--fail-on-flaky" in last,
        retries=_int(value("--retries")),
        force_flaky="--force-flaky" in last,
        max_runs=_int(value("--max-runs")),
        min_passes=_int(value("--min-passes")),
        count=_int(value("--count")),
        flake_runs=flake_runs,
        disabled_plugins=tuple(p.removeprefix("no:") for p in plugins if p.startswith("no:")),
        plugins=tuple(p for p in plugins if not p.startswith("no:")),
        rootdir=value("--rootdir"),
        config_file=value("-c"),
        dynamic_options=tuple(dynamic_names),
    )
