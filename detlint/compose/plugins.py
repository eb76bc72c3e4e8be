"""Which plugin gives ``@pytest.mark.flaky`` its meaning, and how sure we are.

The same marker means four different things: pytest-rerunfailures reads
``reruns`` (bare = 1 rerun), the flaky package reads ``max_runs`` /
``min_passes`` (bare = 2 runs, and ``reruns=`` is a TypeError), pytest-retry
reads ``retries`` (keywords only). The dependency declarations decide; where
they are silent, the marker's own arguments do, and the choice says which.

The fourth, pytest-ignore-flaky, claims nothing until ``--ignore-flaky`` is
given: then a failing marked test, in any phase, is reported as XFAIL, whatever
else reads the marker (the rerun plugins do not rerun an xfailed report), so the
marker's gate never blocks. Without the option the plugin only registers the
marker. pytest-enabler's default configuration gives the option wherever
pytest-ignore-flaky is installed (``[tool.pytest-enabler.ignore_flaky]``).
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
IGNORE_FLAKY = "pytest-ignore-flaky"
ENABLER = "pytest-enabler"

# `-p no:NAME` names (entry points and module names) -> the plugin they disable.
DISABLE_NAMES = {
    "rerunfailures": RERUNFAILURES,
    "pytest_rerunfailures": RERUNFAILURES,
    "flaky": FLAKY,
    "flaky.flaky_pytest_plugin": FLAKY,
    "pytest-retry": RETRY,
    "pytest_retry": RETRY,
    "pytest_retry.retry_plugin": RETRY,
    # pytest blocks "pytest_NAME" along with "NAME"; the entry points are these.
    "ignore_flaky": IGNORE_FLAKY,
    "pytest_ignore_flaky": IGNORE_FLAKY,
    "enabler": ENABLER,
    "pytest_enabler": ENABLER,
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
    # Several plugins are declared but read this marker the same way (``agree``).
    agreed: bool = False
    # The keywords flaky's setup hook rejects, when flaky is declared beside another
    # plugin: the test errors on every run whichever plugin runs it (``rejected``).
    rejected: tuple[str, ...] = ()

    @property
    def conflict(self) -> bool:
        return len(self.declared) > 1 and not self.agreed and not self.rejected


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


def _disabled(config: PytestConfig) -> set[str]:
    """The plugins ``-p no:NAME`` blocks, by canonical name."""
    return {DISABLE_NAMES.get(name, name) for name in config.disabled_plugins}


def declared_plugins(evidence: PluginEvidence, config: PytestConfig) -> frozenset[str]:
    disabled = _disabled(config)
    return frozenset(plugin for plugin in evidence.plugins if plugin not in disabled)


def ignore_flaky_switch(evidence: PluginEvidence, config: PytestConfig) -> str | None:
    """Where pytest-ignore-flaky's ``--ignore-flaky`` comes from for tests under
    ``config`` ("--ignore-flaky at pytest.ini:4"), or None when it is off.

    The option on a command line or in ``addopts`` means the plugin is installed (pytest
    stops on an unknown option otherwise); pytest-enabler adds it when both are installed,
    unless the project's own ``[tool.pytest-enabler.ignore_flaky]`` table leaves it out.
    """
    disabled = _disabled(config)
    if IGNORE_FLAKY in disabled:
        return None
    if config.ignore_flaky is not None:
        return f"--ignore-flaky at {config.ignore_flaky.path}:{config.ignore_flaky.line}"
    override = evidence.enabler_ignore_flaky
    if (
        ENABLER not in disabled
        and evidence.declared(IGNORE_FLAKY)
        and evidence.declared(ENABLER)
        and (override is None or "--ignore-flaky" in override.split())
    ):
        return (
            "--ignore-flaky from pytest-enabler, which adds it when pytest-ignore-flaky is "
            "installed"
        )
    return None


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
    if agree(mark, declared, config):
        evidence_text = " and ".join(_declared_evidence(evidence, p) for p in sorted(declared))
        return PluginChoice(
            FLAKY,
            f"{evidence_text} are both declared: whichever takes it, a bare marker runs twice",
            declared,
            False,
            agreed=True,
        )
    if len(declared) > 1:
        return _contested(mark, declared)
    if evidence.plugins and not declared and not evidence.declared(IGNORE_FLAKY):
        # Every declared rerun plugin is disabled (``-p no:rerunfailures``): nothing
        # registers the marker, so it reruns nothing; no guess from its keywords.
        names = ", ".join(sorted(evidence.plugins))
        return PluginChoice(None, f"{names} disabled with -p no:", declared, False)
    if evidence.declared(IGNORE_FLAKY) and IGNORE_FLAKY not in _disabled(config):
        # It registers the marker and, without --ignore-flaky, does nothing with it.
        return PluginChoice(
            IGNORE_FLAKY, _declared_evidence(evidence, IGNORE_FLAKY), declared, False
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


def _contested(mark: Mark, declared: frozenset[str]) -> PluginChoice:
    """Several plugins declared that read this marker differently."""
    refused = rejected(mark, declared)
    if refused:
        return PluginChoice(
            FLAKY,
            f"{all_declared(declared)}; flaky's setup hook reads the marker whichever "
            "plugin runs the test",
            declared,
            False,
            rejected=refused,
        )
    # Each registers `flaky`; the last one loaded wins and load order is
    # the environment's directory order. Use the arguments as the best guess.
    guess = plugin_from_arguments(mark)
    fight = f"{all_declared(declared)}; they fight over `flaky`"
    if guess == FLAKY and declared == frozenset({RERUNFAILURES, FLAKY}):
        # Measured (16.7, 3.8.1): where pytest-rerunfailures runs the test it reads
        # no flaky keyword, so `max_runs=4` gives 2 runs there, not 4.
        fight += ": where pytest-rerunfailures takes the test it reruns it once, as a bare marker"
    return PluginChoice(guess, fight, declared, True)


def rejected(mark: Mark, declared: frozenset[str]) -> tuple[str, ...]:
    """The keywords of a marker that flaky, declared beside another rerun plugin, rejects.

    flaky's ``pytest_runtest_setup`` passes the marker's keywords to its own
    ``_make_test_flaky`` whichever plugin's protocol runs the test, so a keyword it
    does not take (``reruns=``, ``reruns_delay=``, ``condition=``) is a TypeError at
    setup: measured with pytest-rerunfailures 16.7, flaky 3.8.1 and pytest-retry 1.7.0,
    in both load orders, the test errors on every run (rerunfailures, when it wins,
    reruns the error; pytest-retry does not retry a setup error).
    """
    if FLAKY not in declared or len(declared) < 2:
        return ()
    names = [argument.name for argument in mark.arguments if argument.name is not None]
    return tuple(sorted({name for name in names if name not in FLAKY_KEYWORDS}))


def agree(mark: Mark, declared: frozenset[str], config: PytestConfig) -> bool:
    """Whether pytest-rerunfailures and flaky, both installed, do the same with this marker.

    Whichever registers last takes the test, but a bare marker is 1 rerun for one and
    ``max_runs=2`` for the other: 2 runs either way, a call failure hidden as p². That
    holds only without arguments (each reads them differently, flaky rejects ``reruns=``)
    and without rerunfailures' own options, which the winning flaky would ignore.
    """
    return (
        declared == frozenset({RERUNFAILURES, FLAKY})
        and not mark.arguments
        and config.reruns is None
        and config.force_reruns is None
        and config.force_flaky is None
        and not config.only_rerun
        and not config.rerun_except
        and config.fail_on_flaky is None
        and config.max_suite_reruns is None
        and not config.rerun_exclude_paths
    )


def _declared_evidence(evidence: PluginEvidence, plugin: str) -> str:
    found = evidence.evidence_for(plugin)
    if not found:
        return plugin
    from detlint.readers.dependencies.declarations import requirement_text

    first = found[0]
    return f"{requirement_text(plugin, first.specifier)} from {first.span.path}:{first.span.line}"


def is_registered_tag(
    mark: Mark, config: PytestConfig, choice: PluginChoice, evidence: PluginEvidence
) -> bool:
    """A `flaky` marker registered (in the ini ``markers``, or by the project's own
    ``config.addinivalue_line("markers", ...)``) with no rerun plugin: a tag, not a retry."""
    registered = any(marker.name == mark.name for marker in config.markers)
    registered = registered or evidence.own_markers.registers(mark.name) is not None
    return registered and not choice.declared
