"""The rerun layer a ``flaky`` marker stands for, under the plugin that reads it.

The same marker means three things: pytest-rerunfailures reads ``reruns``
(bare: one rerun; a positional condition: int() of it), the flaky package
``max_runs`` and ``min_passes`` (bare: 2 runs, 1 pass), pytest-retry
``retries`` (bare: the configured ``retries``, else 1). A count detlint cannot
read is noted, and no layer is claimed.
"""

from __future__ import annotations

import posixpath
from pathlib import PurePosixPath

from detlint.compose.plugins import FLAKY, FLAKY_KEYWORDS, RERUNFAILURES, RETRY, PluginChoice
from detlint.compose.retry_condition import retry_condition_note
from detlint.compose.retry_counts import count_value, looks_boolean
from detlint.model import FlakyRuns, Layer, Reruns
from detlint.readers.project.pytest_config import PytestConfig
from detlint.readers.python.facts import Dynamic, Mark


def marker_layer(
    mark: Mark, choice: PluginChoice, config: PytestConfig, notes: list[str]
) -> Layer | None:
    """The rerun layer of a ``@pytest.mark.flaky`` under the plugin that reads it."""
    plugin = choice.plugin
    if plugin == RERUNFAILURES:
        if config.force_reruns is not None:
            notes.append("--force-reruns overrides the marker")
            return Reruns(config.force_reruns.value)
        value = mark.keyword("reruns") if mark.has_keyword("reruns") else None
        if value is None and mark.positional():
            value = mark.positional()[0]
            if isinstance(value, Dynamic) and looks_boolean(value.source):
                value = 1  # int(True): one rerun where the condition holds (see conditions)
        count = 1 if value is None and not mark.has_keyword("reruns") else count_value(value)
        if count is None:
            notes.append(f"reruns is not a literal ({value}); its count is unknown")
            return None
        if config.reruns_mode == "append" and config.reruns is not None:
            notes.append(
                f"--reruns-mode append: {count} from the marker plus {config.reruns.value} "
                f"from {config.reruns.source}"
            )
            count += config.reruns.value
        return Reruns(max(count, 0))
    if plugin == RETRY:
        value = mark.keyword("retries")
        retries = count_value(value)
        if value is None:
            retries = config.retries.value if config.retries is not None else 1
        if retries is None:
            notes.append(f"retries is not a literal ({value}); its count is unknown")
            return None
        condition = retry_condition_note(mark)
        if condition is not None:
            notes.append(condition)
        return Reruns(max(retries, 0), RETRY)
    if plugin == FLAKY:
        foreign = [a.name for a in mark.arguments if a.name and a.name not in FLAKY_KEYWORDS]
        if foreign:
            notes.append(f"`{foreign[0]}=` under the flaky package is a TypeError: the test errors")
            return None
        return flaky_layer(mark, notes)
    return None


def flaky_layer(mark: Mark, notes: list[str]) -> Layer | None:
    """``max_runs`` and ``min_passes``, by keyword or position (bare: 2 and 1)."""
    positional = mark.positional()
    max_runs = count_value(mark.keyword("max_runs") or (positional[0] if positional else 2))
    min_passes = count_value(
        mark.keyword("min_passes") or (positional[1] if len(positional) > 1 else 1)
    )
    if max_runs is None or min_passes is None or not 1 <= min_passes <= max_runs:
        notes.append("max_runs/min_passes are not literals the flaky package accepts")
        return None
    return FlakyRuns(max_runs, min_passes)


def excluded_from_reruns(config: PytestConfig, path: str) -> str | None:
    """The ``--rerun-exclude-path`` that keeps pytest-rerunfailures from rerunning the
    tests of ``path``, or None.

    The plugin's ``pytest_runtest_protocol`` returns before it reads any count when the
    test's file is under ``rootdir / excluded`` (16.6): no rerun at all, marker,
    ``--reruns`` and ``--force-reruns`` alike. The rootdir is taken as the config file's
    directory, where pytest puts it when it finds one.
    """
    if not config.rerun_exclude_paths:
        return None
    root = posixpath.dirname(config.path) if config.path else ""
    test = PurePosixPath(posixpath.normpath(path))
    for excluded in config.rerun_exclude_paths:
        if test.is_relative_to(posixpath.normpath(posixpath.join(root, excluded))):
            return excluded
    return None


def session_reruns_note(config: PytestConfig, path: str) -> tuple[bool, str | None]:
    """Whether pytest-rerunfailures reruns a test of ``path`` at all under the session's
    options, and the note that says why not, or that the count is an upper bound.

    ``--max-suite-reruns N`` stops every rerun once the session has had N (16.5): with 0
    nothing is rerun; otherwise a test gets its count only while the cap lasts, so it is
    reported at least as often as its count says, and the loss quoted is the most it
    can be.
    """
    excluded = excluded_from_reruns(config, path)
    if excluded is not None:
        return False, f"--rerun-exclude-path {excluded}: pytest-rerunfailures reruns no test there"
    cap = config.max_suite_reruns
    if cap is None:
        return True, None
    if cap.value <= 0:
        return False, f"--max-suite-reruns {cap.value}: pytest-rerunfailures reruns no test"
    return True, suite_cap_note(cap.value)


def suite_cap_note(cap: int) -> str:
    """What a ``--max-suite-reruns`` above 0 does to the numbers quoted beside it."""
    return (
        f"--max-suite-reruns {cap} stops the reruns once the session has had {cap}: a test "
        "may be rerun fewer times and reported more often, so this is the most it can hide"
    )
