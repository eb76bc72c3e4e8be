"""A test module run as a script: each of its tests under the file's own ``pytest.main``.

``python test_x.py`` (and Bazel's ``py_test``, which runs a test file so) runs the
``pytest.main(args)`` of the file's ``__main__`` block (``readers/python/script_runs.py``).
Its arguments act on the file's tests as a command line's would, so they are read as a
CI command line's are (``read_pytest_args``), merged over the file's pytest config as a
run's options are (``run_options.py``: a marker's count replaces ``--reruns`` unless
``--reruns-mode append``), and each test of the file is composed under the result, beside
its policy under its config alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from detlint.compose.ci.run_options import RunOptions, args_options, with_options
from detlint.compose.plugins import DISABLE_NAMES, FLAKY, RERUNFAILURES, RETRY
from detlint.compose.test_gate import TestGate
from detlint.compose.test_policy import link_tests
from detlint.model import Policy
from detlint.readers.ci.pytest.arguments import PytestArgs, read_pytest_args
from detlint.readers.dependencies.declarations import PluginEvidence
from detlint.readers.project.collection import collects
from detlint.readers.project.pytest_config import PytestConfig
from detlint.readers.python.facts import ModuleFacts, ScriptRun, hook_tests


@dataclass(frozen=True)
class ScriptGate:
    """One test as the file's ``pytest.main`` runs it (``base``), and its policy under
    its own config alone (``own``): what the script's options change is the difference."""

    base: TestGate
    own: Policy

    @property
    def inside(self) -> Policy:
        return self.base.policy


@dataclass(frozen=True)
class ScriptLink:
    """One ``pytest.main`` a test module runs on itself, with every test it runs.

    ``unread`` names what detlint cannot read of the arguments beyond option values:
    parts joined to the list, and elements that may be options themselves (a variable
    where a target or a flag goes). ``stopped`` says why pytest stops before any test
    runs, when the arguments make it (a rerun option of a plugin the same arguments
    disable is a usage error, exit 4).
    """

    run: ScriptRun
    args: PytestArgs
    options: RunOptions
    gates: tuple[ScriptGate, ...]
    unread: tuple[str, ...] = ()
    stopped: str | None = None


# A rerun option, and the plugin that must be loaded for pytest to accept it.
_OPTION_PLUGINS = (
    ("--reruns", RERUNFAILURES),
    ("--force-reruns", RERUNFAILURES),
    ("--retries", RETRY),
    ("--force-flaky", FLAKY),
)


def link_scripts(
    module: ModuleFacts, config: PytestConfig, evidence: PluginEvidence, cwd: Path
) -> list[ScriptLink]:
    """Each script run of ``module``, with its tests composed under it. pytest is handed
    the file by name, so it collects the file whatever ``python_files`` says."""
    links: list[ScriptLink] = []
    for run in module.script_runs:
        args = read_pytest_args(run.words, run.dynamic)
        options = args_options(args, run.span)
        stopped = _stopped(args, config)
        gates: list[ScriptGate] = []
        if stopped is None and options.span is not None:
            script = with_options(config, options)
            for test in (*module.tests, *hook_tests(module)):
                if not collects(config, test, cwd, True):
                    continue
                own = link_tests(test, config, evidence)
                under = link_tests(test, script, evidence)
                gates += [
                    ScriptGate(base, alone.policy) for base, alone in zip(under, own, strict=True)
                ]
        loose = [w for w, dynamic in zip(run.words, run.dynamic, strict=True) if dynamic]
        unread = (*run.unread, *(word for word in loose if word in args.targets))
        links.append(ScriptLink(run, args, options, tuple(gates), unread, stopped))
    return links


def _stopped(args: PytestArgs, config: PytestConfig) -> str | None:
    """Why pytest refuses the arguments before running a test: an option of a plugin that
    ``-p no:NAME`` (in them or in the config's ``addopts``) keeps from loading is unknown
    to pytest, a usage error (exit 4)."""
    disabled = {
        DISABLE_NAMES.get(name, name) for name in (*config.disabled_plugins, *args.disabled_plugins)
    }
    written = {option.name for option in args.options}
    for option, plugin in _OPTION_PLUGINS:
        if plugin in disabled and option in written:
            return (
                f"`{option}` with {plugin} disabled (`-p no:...`): pytest stops with a usage "
                "error (exit 4) before any test runs"
            )
    return None
