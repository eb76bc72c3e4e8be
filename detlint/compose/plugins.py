"""Which plugin gives ``@pytest.mark.flaky`` its meaning, and how sure we are.

The same marker means three different things: pytest-rerunfailures reads
``reruns`` (bare = 1 rerun), the flaky package reads ``max_runs`` /
``min_passes`` (bare = 2 runs, and ``reruns=`` is a TypeError), pytest-retry
reads ``retries`` (keywords only). The dependency declarations decide; where
they are silent, the marker's own arguments do, and the choice says which.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from detlint.readers.dependencies.declarations import PluginEvidence
    from detlint.readers.project.pytest_config import PytestConfig
    from detlint.readers.python.facts import Mark

RERUNFAILURES = "pytest-rerunfailures"
FLAKY = "flaky"
RETRY = "pytest-retry"

# `-p no:NAME` names (entry points and module names) -> the plugin they disable.
DISABLE_NAMES = {
    "rerunfailures": RERUNFAILURES,
    "pytest_rerunfailures": RERUNFAILURES,
    "flaky": FLAKY,
    "flaky.flaky_pytest_plugin": FLAKY,
    "pytest-retry": RETRY,
    "pytest_retry": RETRY,
    "pytest_retry.retry_plugin": RETRY,
}

RERUNFAILURES_KEYWORDS = frozenset(
    {"reruns", "reruns_delay", "reruns_delay_backoff_factor", "only_rerun", "rerun_except"}
)
RETRY_KEYWORDS = frozenset({"retries", "delay", "only_on", "exclude", "cumulative_timing"})
FLAKY_KEYWORDS = frozenset({"max_runs", "min_passes", "rerun_filter"})
KEYWORDS = {RERUNFAILURES: RERUNFAILURES_KEYWORDS, RETRY: RETRY_KEYWORDS, FLAKY: FLAKY_KEYWORDS}


@dataclass(frozen=True)
class PluginChoice:
    """The plugin that interprets one ``flaky`` marker, with the evidence."""

    plugin: str | None
    evidence: str
    declared: frozenset[str]
    inferred: bool  # decided from the marker's arguments, not the dependencies
    # The project declares its dependencies: an undeclared plugin is then missing.
    declares: bool = True

    @property
    def conflict(self) -> bool:
        return len(self.declared) > 1


def all_declared(plugins: Iterable[str]) -> str:
    """``both flaky and pytest-rerunfailures are declared`` for two plugins, and
    ``flaky, pytest-rerunfailures and pytest-retry are all declared`` for more.

    The conflict messages name every plugin that claims the marker; "both" is
    wrong for three and "all" reads oddly for two, so the count picks the words.
    Sorted, so that a message does not depend on the order files were read in.
    """
    names = sorted(plugins)
    if len(names) == 2:
        return f"both {names[0]} and {names[1]} are declared"
    listed = " and ".join(names[-2:])
    return f"{', '.join([*names[:-2], listed])} are all declared"


def declared_plugins(evidence: PluginEvidence, config: PytestConfig) -> frozenset[str]:
    disabled = {DISABLE_NAMES.get(name, name) for name in config.disabled_plugins}
    return frozenset(plugin for plugin in evidence.plugins if plugin not in disabled)


def plugin_from_arguments(mark: Mark) -> str | None:
    """The plugin whose keywords the marker uses, if exactly one fits."""
    keywords = {argument.name for argument in mark.arguments if argument.name is not None}
    fitting = [plugin for plugin, names in KEYWORDS.items() if keywords & names]
    return fitting[0] if len(fitting) == 1 else None


def choose_plugin(mark: Mark, evidence: PluginEvidence, config: PytestConfig) -> PluginChoice:
    """Who handles this marker: the declared plugin, or the one its arguments name."""
    declared = declared_plugins(evidence, config)
    if len(declared) == 1:
        (plugin,) = declared
        return PluginChoice(plugin, _declared_evidence(evidence, plugin), declared, False)
    if len(declared) > 1:
        # Each registers `flaky`; the last one loaded wins and load order is
        # the environment's directory order. Use the arguments as the best guess.
        guess = plugin_from_arguments(mark)
        return PluginChoice(
            guess, f"{all_declared(declared)}; they fight over `flaky`", declared, True
        )
    guess = plugin_from_arguments(mark)
    if guess is not None:
        return PluginChoice(
            guess,
            f"no rerun plugin declared; read as {guess} from its keywords",
            declared,
            True,
            evidence.declares,
        )
    return PluginChoice(
        RERUNFAILURES,
        "no rerun plugin declared; read as pytest-rerunfailures, the most common",
        declared,
        True,
        evidence.declares,
    )


def _declared_evidence(evidence: PluginEvidence, plugin: str) -> str:
    found = evidence.evidence_for(plugin)
    if not found:
        return plugin
    from detlint.readers.dependencies.declarations import requirement_text

    first = found[0]
    return f"{requirement_text(plugin, first.specifier)} from {first.span.path}:{first.span.line}"
