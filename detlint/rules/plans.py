"""What a rule proposes to change, in the facts' terms: spans and values.

A plan is data, computed with the finding and cheap to carry; the builders
(:mod:`detlint.fixes.build`) read the file and turn it into edits, or decline
with a reason. ``applicability`` follows ruff: a fix is ``unsafe`` when it can
change what a build does or remove a comment, so nearly every detlint fix is
unsafe and applied only with ``--unsafe-fixes``. ``placeholder`` names the
text a fix inserts for a value nobody knows (a tracking issue URL).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from detlint.base.span import Span

Applicability = Literal["safe", "unsafe"]
APPLICABILITIES: tuple[Applicability, ...] = ("safe", "unsafe")


@dataclass(frozen=True)
class Plan:
    """The common part: what the fix says it does, and how safe it is."""

    message: str
    applicability: Applicability
    placeholder: str | None  # the stand-in text inserted for an unknown value


@dataclass(frozen=True)
class DropMark(Plan):
    """DET101: remove the rerun marker at ``mark`` (a decorator's expression, an item
    of a ``pytestmark`` list, a ``pytest.param(marks=...)`` item) and, when the test
    has a trial knob, raise the default of the environment read at ``trials``
    (``int(os.getenv("NEEDLE_TRIALS", "5"))``) to ``count``."""

    mark: Span
    trials: Span | None = None
    env: str | None = None
    count: int | None = None


@dataclass(frozen=True)
class QuarantineMark(Plan):
    """DET101 without a trial knob: replace the rerun marker at ``mark`` by
    ``<prefix>.xfail(strict=False, reason=<reason>)``, where the prefix is the one
    the marker was written with (``pytest.mark``, ``mark``)."""

    mark: Span
    reason: str = ""


@dataclass(frozen=True)
class AddReason(Plan):
    """DET201 with a configured placeholder: give the xfail at ``mark`` a ``reason=``
    naming the tracking issue (or, when it has one, prefix the reason with it)."""

    mark: Span
    reason: str = ""


@dataclass(frozen=True)
class RemoveKey(Plan):
    """DET401: remove the YAML key ``key`` whose entry starts at ``span`` (the key
    to the end of its value), whole lines where it sits alone in a block mapping,
    its item with the separator in a flow mapping."""

    span: Span
    key: str = ""


@dataclass(frozen=True)
class ReplaceValue(Plan):
    """DET411: replace the value of the YAML key ``key`` whose entry starts at
    ``span`` by ``value``, a flow-style YAML value written on one line."""

    span: Span
    key: str = ""
    value: str = ""


@dataclass(frozen=True)
class RemoveOptions(Plan):
    """DET104/DET421: remove the options named in ``options`` (with their values:
    ``--reruns 3``, ``--reruns=3``, ``--reruns-delay 1``) from the text at ``span``
    (an ``addopts`` value, a CI command, a ``PYTEST_ADDOPTS`` value), leaving the
    rest of the line as it is. ``command``: the text is a command line (a pipeline's,
    or a tox ``commands`` line), not pytest's ``addopts``."""

    span: Span
    options: tuple[str, ...] = ()
    command: bool = False


@dataclass(frozen=True)
class UnmaskExit(Plan):
    """DET431: ``masked`` is the construct that hides pytest's status, as the CI pass
    quotes it (``|| true``, ``| tee``); at ``span``, the pytest command in the
    pipeline file. ``|| true`` / ``|| :`` / ``|| exit 0`` after pytest is removed;
    for ``| tee`` on GitHub, ``shell: bash`` is added to the step at ``step``."""

    span: Span
    masked: str = ""
    system: str = ""
    step: Span | None = None


FixPlan = (
    DropMark | QuarantineMark | AddReason | RemoveKey | ReplaceValue | RemoveOptions | UnmaskExit
)
