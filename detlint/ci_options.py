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

from detlint.ci_pass.facts import EnvSetting
from detlint.ci_pass.pytest_args import PytestArgs, read_pytest_args
from detlint.ci_pass.shell import PytestRun
from detlint.pytest_config import IntSetting, PytestConfig
from detlint.span import Span

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

    @property
    def span(self) -> Span | None:
        """Where the option that reruns tests is written (None when nothing reruns)."""
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
    if all(not _has_options(run) for run, _ in sources) and (
        args is None or not _has_options(args)
    ):
        return NO_OPTIONS  # most runs: nothing to merge
    options = NO_OPTIONS
    if setting is not None and args is not None:
        options = _merge(
            options,
            args.reruns,
            args.retries,
            args.force_reruns,
            args.force_flaky,
            args.max_runs,
            args.min_passes,
            args.disabled_plugins,
            setting.span,
            ADDOPTS_VARIABLE,
        )
    for run, span in sources:
        options = _merge(
            options,
            run.reruns,
            run.retries,
            run.force_reruns,
            run.force_flaky,
            run.max_runs,
            run.min_passes,
            run.disabled_plugins,
            span,
            "the command line",
        )
    return options


def _has_options(words: PytestRun | PytestArgs) -> bool:
    """Whether a command line (or ``PYTEST_ADDOPTS``) sets anything ``_merge`` reads."""
    return (
        words.reruns is not None
        or words.retries is not None
        or words.force_reruns is not None
        or words.force_flaky
        or words.max_runs is not None
        or words.min_passes is not None
        or bool(words.disabled_plugins)
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
) -> RunOptions:
    flags = list(options.flags)
    suffix = "" if where == "the command line" else f" in {where}"
    changes: dict[str, object] = {}
    counts = (("reruns", reruns), ("retries", retries), ("force_reruns", force_reruns))
    for name, count in counts:
        if count is not None:
            flag = "--" + name.replace("_", "-")
            changes[name] = IntSetting(count, span, f"{flag} in {where}")
            flags.append(f"{flag} {count}{suffix}")
    if force_flaky:
        changes["force_flaky"] = span
        flags.append(f"--force-flaky{suffix}")
    if max_runs is not None:
        changes["max_runs"] = max_runs
    if min_passes is not None:
        changes["min_passes"] = min_passes
    changes["disabled_plugins"] = options.disabled_plugins | frozenset(disabled)
    changes["flags"] = tuple(flags)
    return dataclasses.replace(options, **changes)  # type: ignore[arg-type]


def with_options(config: PytestConfig, options: RunOptions) -> PytestConfig:
    """The config as a run sees it: its options after the ini ``addopts``."""
    # max_runs and min_passes are the flaky package's: they count only under --force-flaky.
    names: tuple[str, ...] = ("reruns", "retries", "force_reruns", "force_flaky")
    if options.force_flaky is not None:
        names += ("max_runs", "min_passes")
    changes: dict[str, object] = {
        name: value for name in names if (value := getattr(options, name)) is not None
    }
    if options.disabled_plugins:
        changes["disabled_plugins"] = config.disabled_plugins | options.disabled_plugins
    return dataclasses.replace(config, **changes) if changes else config  # type: ignore[arg-type]
