"""A marker the project's own hook turns into a skip unless an option is given.

With ``if "flaky" in item.keywords and not item.config.getoption("--run-flaky"):
pytest.skip(...)`` in a conftest.py (``readers/python/option_skips.py``), every test
marked ``flaky`` is skipped in a run without ``--run-flaky``: the marker is a
conditional skip, composed as one, with the hook's reason. Only a marker that says
it is flaky (its name or the skip's reason) is read so; a ``slow`` marker's gate
hides no intermittent failure and stays as it was. When a rerun plugin is declared,
it reads the ``flaky`` marker in the runs that pass the option, and the marker is
composed as that plugin's, as before.
"""

from __future__ import annotations

import dataclasses

from detlint.compose.plugins import declared_plugins
from detlint.readers.dependencies.declarations import PluginEvidence
from detlint.readers.project.pytest_config import PytestConfig
from detlint.readers.python.facts import Argument, Mark
from detlint.readers.python.guards import quoted
from detlint.readers.python.option_skips import OptionSkip
from detlint.readers.reasons import says_flaky

# How the clause of such a skip ends: ``option_unless`` words it for a message.
_NOT_GIVEN = " is not given"
_HOOK = "the hook at "  # how its ``via`` names the hook that skips


def option_gated(
    marks: tuple[Mark, ...], evidence: PluginEvidence, config: PytestConfig
) -> tuple[Mark, ...]:
    """The marks, each flaky marker a hook skips unless an option is given as that skip.

    The skip mark such a hook adds with ``item.add_marker`` is left out of the hook's
    own stand-in test (``hook_tests``): it is judged at the marker's tests instead."""
    skips = evidence.own_markers.skips
    if not skips:
        return marks
    gated = [skip for skip in skips if _gates(skip, evidence, config)]
    return tuple(
        _as_skip(mark, evidence, config)
        for mark in marks
        if not (mark.scope == "hook" and any(_applied_by(mark, skip) for skip in gated))
    )


def _gates(skip: OptionSkip, evidence: PluginEvidence, config: PytestConfig) -> bool:
    """Whether the tests marked with ``skip``'s marker are composed as skipped by it."""
    if evidence.own_markers.option_skip(skip.name) != skip:
        return False
    if (says_flaky(skip.reason) or says_flaky(skip.name)) is None:
        return False
    return skip.name != "flaky" or not declared_plugins(evidence, config)


def _applied_by(mark: Mark, skip: OptionSkip) -> bool:
    where = skip.skip
    return mark.span.path == where.path and where.line <= mark.span.line <= where.end_line


def _as_skip(mark: Mark, evidence: PluginEvidence, config: PytestConfig) -> Mark:
    if mark.kind not in ("flaky", "custom"):
        return mark
    skip = evidence.own_markers.option_skip(mark.name)
    if skip is None or not _gates(skip, evidence, config):
        return mark
    where = f"{skip.skip.path}:{skip.skip.line}"
    return dataclasses.replace(
        mark,
        kind="skip",
        arguments=(Argument("reason", skip.reason, skip.skip),),
        bare=False,
        via=(f"{_HOOK}{where}", *mark.via),
        guards=(*mark.guards, f"{quoted(skip.option)}{_NOT_GIVEN}"),
    )


def option_unless(condition: str) -> str | None:
    """``unless `--run-flaky` is given`` for the clause of such a skip alone, else None."""
    if condition.endswith(_NOT_GIVEN) and condition.count("`") == 2 and condition[0] == "`":
        return f"unless {condition.removesuffix(_NOT_GIVEN)} is given"
    return None


def hook_word(mark: Mark) -> str | None:
    """For a skip such a hook applies, the marker's name when it says flaky (the
    ``flaky`` marker is the word itself), for a reason that does not; else None."""
    if mark.kind == "skip" and mark.via and mark.via[0].startswith(_HOOK):
        return says_flaky(mark.name)
    return None


def hook_skipping(mark: Mark) -> str:
    """Where the hook that applies such a skip is, "conftest.py:68", else ""."""
    if mark.kind == "skip" and mark.via and mark.via[0].startswith(_HOOK):
        return mark.via[0].removeprefix(_HOOK)
    return ""


def hook_option(mark: Mark) -> str:
    """The option that lifts such a skip, "--run-flaky", else ""."""
    if not hook_skipping(mark) or not mark.guards or not mark.guards[-1].endswith(_NOT_GIVEN):
        return ""
    return mark.guards[-1].removesuffix(_NOT_GIVEN).strip("`")
