"""Linking: every layer that applies to one test, composed into its ``TestGate``.

Most knobs in a real suite apply only somewhere: ``skipif(not cuda)``, a
``pytest.xfail()`` under ``if is_xpu():``, ``flaky(condition=WINDOWS)``. The
policy is composed for the test's *primary environment*, where it runs (no
conditional skip or xfail applies) and every conditional retry applies
(``environment.py``); each conditional knob then gives one more ``Environment``
beside it, composed with that knob applied (a gate) or left out (a retry). A test
under a CI run is composed the same way, under the config the run's command line
makes (``ci/gates.py``).
"""

from __future__ import annotations

import dataclasses

from detlint.compose.environment import Composition
from detlint.compose.option_gates import option_gated
from detlint.compose.plugins import (
    declared_plugins,
)
from detlint.compose.test_gate import Environment, TestGate
from detlint.readers.dependencies.declarations import PluginEvidence
from detlint.readers.project.pytest_config import PytestConfig
from detlint.readers.python.facts import Mark, TestFunction


def link_test(
    test: TestFunction,
    config: PytestConfig,
    evidence: PluginEvidence,
    extra_marks: tuple[Mark, ...] = (),
    label_suffix: str = "",
    instances: int | None = None,
) -> TestGate:
    """Compose the policy of one test; ``extra_marks`` (pytest.param marks) are closest."""
    replays = test.replays
    if replays is not None and replays.plugin and replays.plugin not in evidence.seed_plugins:
        test = dataclasses.replace(test, replays=None)  # the fixture is not that plugin's
    marks = option_gated((*extra_marks, *test.marks), evidence, config)
    primary = Composition(test, marks, config, evidence)
    policy = primary.policy()
    environments: list[Environment] = []
    seen: set[tuple[str, str]] = set()
    for alternative in primary.alternatives:
        if (alternative.condition, alternative.effect) in seen:
            continue  # the same skip written twice (after the code changed its inputs)
        seen.add((alternative.condition, alternative.effect))
        other = Composition(
            test, marks, config, evidence, force=alternative.force, drop=alternative.drop
        ).policy()
        if other != policy:
            environments.append(Environment(alternative.condition, alternative.effect, other))
    return TestGate(
        test=test,
        label=test.nodeid + label_suffix,
        instances=test.instances if instances is None else instances,
        policy=policy,
        knobs=tuple(primary.knobs),
        plugin=primary.choice,
        rerun_mark=primary.rerun_mark,
        notes=tuple(dict.fromkeys(primary.notes)),
        environments=tuple(environments),
        undecided=tuple(dict.fromkeys(primary.undecided)),
    )


def with_trials(gate: TestGate, test: TestFunction) -> TestGate:
    """``link_test(test, ...)`` from the gate of a test that differs from ``test`` in its
    trial count alone (a CI step overriding it): the count reaches no layer, no knob and
    no gate, only the policies' trials. A large setup has hundreds of such copies, and
    linking each anew costs more than the rest of its gate."""
    trials = test.trials.count
    policy = dataclasses.replace(gate.policy, trials=trials)
    environments = tuple(
        dataclasses.replace(env, policy=dataclasses.replace(env.policy, trials=trials))
        for env in gate.environments
    )
    return dataclasses.replace(gate, test=test, policy=policy, environments=environments)


def same_link(config: PytestConfig, other: PytestConfig, evidence: PluginEvidence) -> bool:
    """Whether ``link_test`` composes every test alike under both configs: they differ
    at most in the plugins they disable, and not in which declared plugin reads
    ``flaky`` (the one thing ``link_test`` asks of disabled plugins). A CI run's
    ``-p no:cacheprovider`` then costs no second linking of each test it runs."""
    return dataclasses.replace(
        other, disabled_plugins=config.disabled_plugins
    ) == config and declared_plugins(evidence, config) == declared_plugins(evidence, other)


def link_tests(
    test: TestFunction, config: PytestConfig, evidence: PluginEvidence
) -> list[TestGate]:
    """The test's own gate, plus one per ``pytest.param`` mark with the instances it
    covers, and one per data-list entry that skips or xfails some of its instances."""
    gates = [link_test(test, config, evidence)]
    names = [mark.name for _, mark in test.param_marks]
    lines = [(mark.name, mark.span.line) for _, mark in test.param_marks]
    for covered, mark in test.param_marks:
        # Several params with marks of one name (three `RunIf(...)`): each label says
        # which, so that no two gates of a test share one.
        where = ""
        if names.count(mark.name) > 1:
            where = f" on line {mark.span.line}"
            if lines.count((mark.name, mark.span.line)) > 1:
                where += f", column {mark.span.column}"
        suffix = f"[pytest.param marks={mark.name}{where}]"
        gates.append(link_test(test, config, evidence, (mark,), suffix, covered))
    for mark in test.entry_marks:
        # An entry of a data list a decorator consumes (`skip("matmul")` in `@skipOps`):
        # the instances it names are a gate of their own, of a count not known statically.
        suffix = f"[{mark.entry} on line {mark.span.line}]"
        gate = link_test(test, config, evidence, (mark,), suffix)
        gates.append(dataclasses.replace(gate, instances=None))
    return gates
