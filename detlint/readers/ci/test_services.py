"""Retries a test service performs, configured in a step's environment.

Some teams retry failed tests through a service's client rather than a pytest plugin:
the Buildkite Test Engine client (``bktec run``) retries each failed test
``BUILDKITE_TEST_ENGINE_RETRY_COUNT`` times, and Datadog Test Optimization's auto
test retries (the ``ddtrace`` pytest plugin, ``--ddtrace``) retry a failed test up to
``DD_CIVISIBILITY_FLAKY_RETRY_COUNT`` times (5 when only
``DD_CIVISIBILITY_FLAKY_RETRY_ENABLED`` is set). Either way a violation is reported
only when every attempt fails, so each is a retry knob of the step, at the variable
that sets it, counted when the step runs that service's client; the numbers rest on
the attempts being independent, as for every retry.

Trunk's client (``trunk-analytics-cli test -- pytest ...``) retries nothing: it uploads
the results and, when every failing test is one quarantined in Trunk, makes the step
pass. Which tests are quarantined is kept in the service, where they are shown, so the
knob is listed with that reason rather than priced: a quarantined test is reported 0%
of the time by the step, every other test as before.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

from detlint.readers.ci.facts import CiKnob, CiStep, EnvSetting, PipelineFacts

_DATADOG_DEFAULT = 5  # Datadog's documented default retry count
_SERVICES = (
    # (variable, the client the step must run, its name in a message)
    ("BUILDKITE_TEST_ENGINE_RETRY_COUNT", "bktec", "the Buildkite Test Engine client"),
    ("DD_CIVISIBILITY_FLAKY_RETRY_COUNT", "ddtrace", "Datadog's auto test retries"),
    ("DD_CIVISIBILITY_FLAKY_RETRY_ENABLED", "ddtrace", "Datadog's auto test retries"),
)


def with_service_retries(facts: PipelineFacts) -> PipelineFacts:
    """``facts`` with a retry knob on each step whose environment configures a test
    service's retries and whose commands run that service's client, and a quarantine
    knob on each step that runs its tests through Trunk's client."""
    if not any(_names(step) or _trunk(step) for step in facts.steps):
        return facts
    steps = []
    for step in facts.steps:
        knobs = (*_knobs(step), *_trunk_knobs(step))
        steps.append(dataclasses.replace(step, knobs=(*step.knobs, *knobs)) if knobs else step)
    return dataclasses.replace(facts, steps=tuple(steps))


def _names(step: CiStep) -> bool:
    return any(setting.name.startswith(("BUILDKITE_TEST_ENGINE_RETRY", "DD_CIVISIBILITY_FLAKY"))
               for setting in _settings(step))  # fmt: skip


_TRUNK_TEST = re.compile(r"\btrunk(?:-analytics-cli|\s+flakytests)\s+test\b")


def _trunk(step: CiStep) -> bool:
    return any("trunk" in command.text for command in step.commands)


def _trunk_knobs(step: CiStep) -> Iterator[CiKnob]:
    for command in step.commands:
        match = _TRUNK_TEST.search(command.text) if "trunk" in command.text else None
        if match is not None:
            yield CiKnob(
                kind="service-quarantine",
                system=step.system,
                key="trunk test",
                span=command.span,
                value=match.group(0),
                covers_tests=True,
                note=(
                    "when every failing test is one quarantined in Trunk, the step passes: "
                    "a quarantined test is reported 0% of the time by this step and shown in "
                    "Trunk; which tests are quarantined is kept in the service"
                ),
            )
            return


def _settings(step: CiStep) -> Iterator[EnvSetting]:
    yield from step.env
    for command in step.commands:
        yield from command.env


def _knobs(step: CiStep) -> Iterator[CiKnob]:
    text = "\n".join(command.text for command in step.commands)
    addopts = " ".join(s.value for s in _settings(step) if s.name == "PYTEST_ADDOPTS")
    settings = {setting.name: setting for setting in _settings(step)}
    done: set[str] = set()
    for name, client, service in _SERVICES:
        setting = settings.get(name)
        if setting is None or service in done or client not in f"{text} {addopts}":
            continue
        count = _count(name, setting.value, settings)
        if count is None or count < 1:
            continue
        done.add(service)
        note = (
            f"{service} retries each failed test {count} times ({count + 1} attempts); "
            "the numbers assume the attempts are independent"
        )
        yield CiKnob(
            kind="job-retry",
            system=step.system,
            key=f"env.{setting.name}",
            span=setting.span,
            value=setting.value,
            covers_tests=True,
            attempts=count + 1,
            note=note,
        )


def _count(name: str, value: str, settings: dict[str, EnvSetting]) -> int | None:
    if name.endswith("_ENABLED"):
        if value.strip().lower() not in ("true", "1", "yes"):
            return None
        if "DD_CIVISIBILITY_FLAKY_RETRY_COUNT" in settings:
            return None  # the count's own knob
        return _DATADOG_DEFAULT
    try:
        return int(value.strip())
    except ValueError:
        return None
