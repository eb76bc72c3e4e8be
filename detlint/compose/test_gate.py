"""A test with its composed policy: what composing gives the rules, the audit and evidence.

A ``TestGate`` keeps, beside the policy of the test's primary environment (where it
runs), every knob that shaped it with where it is written, the other environments
a conditional knob makes, the plugin that reads its marker, and why: a finding
quotes all of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from detlint.base.span import Span
from detlint.compose.plugins import (
    PluginChoice,
)
from detlint.model import (
    Policy,
)
from detlint.readers.python.facts import Mark, TestFunction

XFAIL_KINDS = ("xfail", "xfail-call", "unittest-xfail")


SKIP_KINDS = ("skip", "skipif", "skip-call", "unittest-skip")


@dataclass(frozen=True)
class Knob:
    """One thing that shapes a test's policy, where it is written, and what it does.

    ``condition`` quotes where it applies ("" wherever the test runs); a
    conditional gate is listed here though the primary policy leaves it out.
    """

    kind: str
    span: Span
    description: str
    mark: Mark | None = None
    condition: str = ""


@dataclass(frozen=True)
class Environment:
    """Where a conditional knob changes the test's policy, and what it becomes there."""

    condition: str  # where, quoting the code: "`sys.platform == 'win32'`"
    effect: str  # what the knob does there: "skipped", "XFAIL", "not rerun"
    policy: Policy


@dataclass(frozen=True)
class TestGate:
    """A test (or the instances a ``pytest.param`` mark covers) with its composed policy.

    ``policy`` is the primary environment's; ``environments`` the others.
    """

    test: TestFunction
    label: str
    instances: int | None
    policy: Policy
    knobs: tuple[Knob, ...]
    plugin: PluginChoice | None
    rerun_mark: Mark | None
    notes: tuple[str, ...]
    environments: tuple[Environment, ...] = ()
    # Filters detlint cannot decide ("rerun_filter=`check`"): the policy's figures hold
    # only if they let an assertion failure reach the retry, and the headline says so.
    undecided: tuple[str, ...] = ()
