"""The rerun options a CI run hands pytest: its command line over ``PYTEST_ADDOPTS``.

pytest reads its options from the ini ``addopts``, then the ``PYTEST_ADDOPTS``
variable, then the command line; for an option given more than once the last
one wins. Pipelines set ``PYTEST_ADDOPTS: --reruns 2`` in a step's env as often
as they write ``--reruns`` on the command line, so both are read, and the
result stands in for the config's own rerun settings.
"""

from __future__ import annotations

import dataclasses
import functools
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from detlint.base.span import Span
from detlint.readers.ci.facts import EnvSetting
from detlint.readers.ci.pytest.arguments import PytestArgs, read_pytest_args
from detlint.readers.ci.shell.commands import PytestRun
from detlint.readers.project.pytest_config import IntSetting, PytestConfig

ADDOPTS_VARIABLE = "PYTEST_ADDOPTS"


@dataclass(frozen=True)
class RunOptions:
    """Rerun-related options of one run, each with where it is written."""

    reruns: IntSetting | None = None
    retries: IntSetting | None = None
    force_reruns: IntSetting | None = None
    force_flaky: Span | None = None
    max_runs: int | None = None
    min_passes: int | None = None
    disabled_plugins: frozenset[str] = frozenset()
    flags: tuple[str, ...] = ()  # the rerun flags as written, for messages
    # --only-rerun / --rerun-except patterns (pytest-rerunfailures), None where unset:
    # they decide whether an assertion violation is rerun at all.
    only_rerun: tuple[str, ...] | None = None
    rerun_except: tuple[str, ...] | None = None
    # pytest-rerunfailures' --fail-on-flaky: a test that passes only on a rerun makes
    # the run exit 7, so its reruns hide no failure from the step.
    fail_on_flaky: bool = False
    # pytest-rerunfailures' session options: how a marker's count and the global one
    # combine, the cap on the session's reruns, the paths it reruns nothing under.
    reruns_mode: str | None = None
    max_suite_reruns: IntSetting | None = None
    rerun_exclude_paths: tuple[str, ...] = ()
    # pytest-ignore-flaky's --ignore-flaky, where it is written.
    ignore_flaky: Span | None = None

    @property
    def changes_markers(self) -> bool:
        """Whether the run changes what the tests' own rerun markers do, though it reruns
        nothing itself: a plugin disabled, a rerun filter that markers without their own
        take, ``--fail-on-flaky``, paths excluded from reruns."""
        return bool(
            self.disabled_plugins
            or self.only_rerun is not None
            or self.rerun_except is not None
            or self.fail_on_flaky
            or self.rerun_exclude_paths
        )

    @functools.cached_property
    def span(self) -> Span | None:
        """Where the option that reruns tests is written (None when nothing reruns).
        Asked of every run, and runs share their options: worked out once."""
        if self.force_reruns is not None and self.force_reruns.value:
            return self.force_reruns.span
        if self.reruns is not None and self.reruns.value:
            return self.reruns.span
        if self.retries is not None and self.retries.value:
            return self.retries.span
        return self.force_flaky


NO_OPTIONS = RunOptions()


def _addopts(env: Iterable[EnvSetting]) -> EnvSetting | None:
    found = None
    for setting in env:
        if setting.name == ADDOPTS_VARIABLE:
            found = setting
    return found


@functools.lru_cache(maxsize=256)
def _addopts_args(value: str) -> PytestArgs:
    """``PYTEST_ADDOPTS`` read as pytest reads it; pipelines repeat the same few values."""
    try:
        words = shlex.split(value)
    except ValueError:
        words = []
    return read_pytest_args(words)


def run_options(sources: Sequence[tuple[PytestRun, Span]], env: Iterable[EnvSetting]) -> RunOptions:
    """The options a run passes pytest, with ``env`` as the step sets it: its
    ``PYTEST_ADDOPTS``, then each command line of ``sources`` (where it is written)
    in the order pytest reads them. A run has one command line; under tox it has
    the line in tox.ini and the words after ``--`` that replace ``{posargs}``."""
    setting = _addopts(env)
    args = _addopts_args(setting.value) if setting is not None else None
    visible = args is not None and args.fail_on_flaky
    if args is not None and not _sets(args):
        args = None  # merging words that set nothing changes nothing
    written = [(run, span) for run, span in sources if _sets(run)]
    lines = [run for run, _ in written]
    words: list[PytestRun | PytestArgs] = [*lines, *([args] if args is not None else [])]
    if all(_sets(each) == _PLUGINS_ONLY for each in words):
        return _plugins_only(args, lines)  # most runs: nothing to merge
    options = NO_OPTIONS
    if setting is not None and args is not None:
        options = _merge_words(options, args, setting.span, ADDOPTS_VARIABLE)
    for run, span in written:
        options = _merge_words(options, run, span, "the command line")
    if visible or any(run.fail_on_flaky for run in lines):
        options = dataclasses.replace(options, fail_on_flaky=True)
    return _session_options(options, setting, args, written)


def args_options(args: PytestArgs, span: Span) -> RunOptions:
    """The options of an argument list written in code (``pytest.main(args)``, at
    ``span``): those of a command line that holds the same words."""
    if _sets(args) != _RERUNS:
        return _plugins_only(args, ())
    options = _merge_words(NO_OPTIONS, args, span, "the command line")
    if args.fail_on_flaky:
        options = dataclasses.replace(options, fail_on_flaky=True)
    return _session_options(options, None, None, ((args, span),))


def _session_options(
    options: RunOptions,
    setting: EnvSetting | None,
    args: PytestArgs | None,
    written: Sequence[tuple[PytestRun | PytestArgs, Span]],
) -> RunOptions:
    """``options`` with the session-wide options of ``PYTEST_ADDOPTS`` and then the
    command lines: the last ``--reruns-mode`` and ``--max-suite-reruns`` win, every
    ``--rerun-exclude-path`` adds a path, and one ``--ignore-flaky`` turns it on."""
    sources: list[tuple[PytestRun | PytestArgs, Span, str]] = []
    if setting is not None and args is not None:
        sources.append((args, setting.span, f"--max-suite-reruns in {ADDOPTS_VARIABLE}"))
    sources += [(run, span, "--max-suite-reruns in the command line") for run, span in written]
    changes: dict[str, object] = {}
    excluded: list[str] = []
    for words, span, source in sources:
        if words.reruns_mode is not None:
            changes["reruns_mode"] = words.reruns_mode
        if words.max_suite_reruns is not None:
            changes["max_suite_reruns"] = IntSetting(words.max_suite_reruns, span, source)
        excluded += words.rerun_exclude_path
        if words.ignore_flaky:
            changes["ignore_flaky"] = span
    if excluded:
        changes["rerun_exclude_paths"] = tuple(excluded)
    return dataclasses.replace(options, **changes) if changes else options  # type: ignore[arg-type]


def line_options(run: PytestRun, span: Span, env: Sequence[EnvSetting]) -> RunOptions:
    """``run_options(((run, span),), env)`` for the one command line most runs have:
    unless it or ``PYTEST_ADDOPTS`` sets a rerun option, there is nothing to merge."""
    if _sets(run) != _RERUNS:
        setting = _addopts(env)
        args = _addopts_args(setting.value) if setting is not None else None
        if args is None or _sets(args) != _RERUNS:
            return _plugins_only(args, (run,))
    return run_options(((run, span),), env)


_NOTHING, _PLUGINS_ONLY, _RERUNS = 0, 1, 2


def _sets(words: PytestRun | PytestArgs) -> int:
    """What a command line (or ``PYTEST_ADDOPTS``) sets of what ``_merge`` reads:
    nothing, only plugins to disable, or more (false only for nothing)."""
    if (
        words.reruns is not None
        or words.retries is not None
        or words.force_reruns is not None
        or words.force_flaky
        or words.max_runs is not None
        or words.min_passes is not None
        or words.reruns_mode is not None
        or words.max_suite_reruns is not None
        or words.rerun_exclude_path
        or words.ignore_flaky
        or words.only_rerun
        or words.rerun_except
    ):
        return _RERUNS
    return _PLUGINS_ONLY if words.disabled_plugins else _NOTHING


def _plugins_only(args: PytestArgs | None, runs: Sequence[PytestRun]) -> RunOptions:
    """What ``_merge`` makes of command lines (``args`` from ``PYTEST_ADDOPTS`` first)
    that set nothing but plugins to disable: no rerun setting, so no span to keep."""
    disabled = args.disabled_plugins if args is not None else ()
    for run in runs:
        disabled += run.disabled_plugins
    return _disabling(disabled) if disabled else NO_OPTIONS


@functools.lru_cache(maxsize=64)
def _disabling(plugins: tuple[str, ...]) -> RunOptions:
    """The options of command lines that only disable ``plugins``, shared by the many
    runs that write the same ``-p no:NAME``."""
    return RunOptions(disabled_plugins=frozenset(plugins))


def _merge_words(
    options: RunOptions, words: PytestRun | PytestArgs, span: Span, where: str
) -> RunOptions:
    """``_merge`` of the options one command line or argument list writes."""
    return _merge(
        options,
        words.reruns,
        words.retries,
        words.force_reruns,
        words.force_flaky,
        words.max_runs,
        words.min_passes,
        words.disabled_plugins,
        span,
        where,
        words.only_rerun,
        words.rerun_except,
    )


def _merge(
    options: RunOptions,
    reruns: int | None,
    retries: int | None,
    force_reruns: int | None,
    force_flaky: bool,
    max_runs: int | None,
    min_passes: int | None,
    disabled: Iterable[str],
    span: Span,
    where: str,
    only_rerun: tuple[str, ...] = (),
    rerun_except: tuple[str, ...] = (),
) -> RunOptions:
    flags = list(options.flags)
    suffix = "" if where == "the command line" else f" in {where}"
    settings: list[IntSetting | None] = []
    for name, count, old in (
        ("--reruns", reruns, options.reruns),
        ("--retries", retries, options.retries),
        ("--force-reruns", force_reruns, options.force_reruns),
    ):
        if count is None:
            settings.append(old)
        else:
            settings.append(IntSetting(count, span, f"{name} in {where}"))
            flags.append(f"{name} {count}{suffix}")
    if force_flaky:
        flags.append(f"--force-flaky{suffix}")
    # Built field by field: ``dataclasses.replace`` costs more than the rest of a run's
    # options, and a third of the runs of a large setup pass some option.
    return RunOptions(
        reruns=settings[0],
        retries=settings[1],
        force_reruns=settings[2],
        force_flaky=span if force_flaky else options.force_flaky,
        max_runs=options.max_runs if max_runs is None else max_runs,
        min_passes=options.min_passes if min_passes is None else min_passes,
        disabled_plugins=options.disabled_plugins | frozenset(disabled),
        flags=tuple(flags),
        only_rerun=only_rerun or options.only_rerun,
        rerun_except=rerun_except or options.rerun_except,
    )


def with_options(config: PytestConfig, options: RunOptions) -> PytestConfig:
    """The config as a run sees it: its options after the ini ``addopts``."""
    # max_runs and min_passes are the flaky package's: they count only under --force-flaky.
    names: tuple[str, ...] = ("reruns", "retries", "force_reruns", "force_flaky")
    if options.fail_on_flaky:
        # A rerun that passes still fails the run (exit 7): the command line's reruns
        # leave every failure visible, as if they were not there.
        names = ("retries", "force_flaky")
    if options.force_flaky is not None:
        names += ("max_runs", "min_passes")
    changes: dict[str, object] = {
        name: value for name in names if (value := getattr(options, name)) is not None
    }
    if options.disabled_plugins:
        changes["disabled_plugins"] = config.disabled_plugins | options.disabled_plugins
    if options.only_rerun is not None:
        changes["only_rerun"] = options.only_rerun
    if options.rerun_except is not None:
        changes["rerun_except"] = options.rerun_except
    if options.fail_on_flaky and config.fail_on_flaky is None and options.span is not None:
        changes["fail_on_flaky"] = options.span  # the markers' reruns are visible too
    if options.reruns_mode is not None:
        changes["reruns_mode"] = options.reruns_mode
    if options.max_suite_reruns is not None:
        changes["max_suite_reruns"] = options.max_suite_reruns
    if options.rerun_exclude_paths:
        changes["rerun_exclude_paths"] = config.rerun_exclude_paths + options.rerun_exclude_paths
    if options.ignore_flaky is not None and config.ignore_flaky is None:
        changes["ignore_flaky"] = options.ignore_flaky
    return dataclasses.replace(config, **changes) if changes else config  # type: ignore[arg-type]
