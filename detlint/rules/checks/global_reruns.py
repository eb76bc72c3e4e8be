"""DET104 global-reruns: reruns for every test from pytest's configuration."""

from __future__ import annotations

from collections.abc import Iterator

from detlint.base.percentages import percent, percent_label
from detlint.base.span import Span
from detlint.compose.plugins import RERUNFAILURES, RETRY
from detlint.compose.rerun_layers import suite_cap_note
from detlint.readers.project.pytest_config import IntSetting, PytestConfig
from detlint.rules.context import (
    RuleContext,
    finding,
)
from detlint.rules.finding import Finding, Loss
from detlint.rules.fix_plans import config_reruns_plan


def global_reruns(context: RuleContext) -> Iterator[Finding]:
    """DET104: reruns for every unmarked test from pytest's configuration."""
    from detlint.model import FlakyRuns, Layer, Policy, Reruns  # only with config to judge

    q, target = context.reference_rate, context.target
    knobs: dict[Span, tuple[str, Layer]] = {}
    sources: dict[Span, str] = {}  # how each setting is written ("addopts --reruns")
    caps: dict[Span, str] = {}  # the --max-suite-reruns that makes a loss the most it can be
    for config in context.configs:
        for setting, plugin, reach in _settings(config):
            if plugin == RERUNFAILURES and config.fail_on_flaky is not None:
                continue  # a pass on a rerun fails the run (exit 7): nothing is hidden
            if setting is not None and setting.value > 0:
                if plugin == RERUNFAILURES:
                    session = _session(config)
                    if session is None:
                        continue
                    reach += session
                    if config.max_suite_reruns is not None:
                        caps[setting.span] = f" ({suite_cap_note(config.max_suite_reruns.value)})"
                what = f"{setting.source} {setting.value} reruns {reach}"
                knobs.setdefault(setting.span, (what, Reruns(setting.value, plugin)))
                sources.setdefault(setting.span, setting.source)
        if config.force_flaky is not None:
            what = (
                f"--force-flaky reruns every test (max_runs={config.max_runs}, "
                f"min_passes={config.min_passes})"
            )
            flaky: Layer = FlakyRuns(config.max_runs, config.min_passes)
            knobs.setdefault(config.force_flaky, (what, flaky))
            sources.setdefault(config.force_flaky, "addopts --force-flaky")
    for span, (what, layer) in sorted(knobs.items()):
        policy = Policy(layers=(layer,))
        numbers = Loss(
            reference_rate=q,
            target=target,
            trials=1,
            trials_env=None,
            reported=policy.reported(q),
            reported_without=policy.baseline().reported(q),
            visible=policy.visible(q),
            trials_needed=policy.baseline().trials_needed(q, target),
            instances=None,
        )
        yield finding(
            "DET104",
            span,
            f"{what}: a test failing {percent_label(q)} of its attempts is reported "
            f"{percent(numbers.reported)} of the time instead of {percent_label(q)}"
            f"{caps.get(span, '')}",
            "remove the global setting; mark the few tests that need reruns, or quarantine them "
            "visibly with xfail(strict=False) and a tracking issue",
            numbers,
            fix=config_reruns_plan(sources[span], span),
        )


def _settings(config: PytestConfig) -> list[tuple[IntSetting | None, str, str]]:
    """The config's rerun counts: (setting, the plugin that reads it, the tests it reaches)."""
    append = config.reruns_mode == "append"
    return [
        (config.force_reruns, RERUNFAILURES, "--force-reruns overrides every marker"),
        (
            config.reruns,
            RERUNFAILURES,
            "every test, and adds to each marker's own count (--reruns-mode append)"
            if append
            else "every test without its own marker",
        ),
        (config.retries, RETRY, "every test, and bare markers too"),
    ]


def _session(config: PytestConfig) -> str | None:
    """What pytest-rerunfailures' session options add to the reach of the config's reruns
    (``""`` for nothing), or None when they leave it nothing to rerun (a cap of 0)."""
    cap = config.max_suite_reruns
    if cap is not None and cap.value <= 0:
        return None
    if not config.rerun_exclude_paths:
        return ""
    paths = ", ".join(f"`{path}`" for path in config.rerun_exclude_paths)
    return f" outside {paths} (--rerun-exclude-path)"
