"""DET102 marker-plugin-mismatch: arguments the plugin that reads ``flaky`` ignores or
rejects, a marker no plugin backs, and plugins fighting over ``flaky``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from detlint.base.span import Span
from detlint.compose.plugins import (
    FLAKY,
    IGNORE_FLAKY,
    KEYWORDS,
    RERUNFAILURES,
    RETRY,
    all_declared,
)
from detlint.compose.retry_counts import looks_boolean
from detlint.readers.python.facts import Dynamic, Mark
from detlint.rules.finding import Finding, Loss

if TYPE_CHECKING:
    from detlint.compose.plugins import PluginChoice
    from detlint.compose.test_gate import TestGate
from detlint.rules.context import (
    RuleContext,
    finding,
    group_by_mark,
    worst,
)

# Keywords the rerun plugins let through without a word: `condition` (both read it),
# and `reason`, which projects write on markers to say why (dask: reason="<issue URL>").
# The flaky package takes neither: any keyword but its own three is a TypeError.
_ACCEPTED_EVERYWHERE = frozenset({"condition", "reason"})


# What the flaky package does with a keyword it does not take.
_ERRORS_AT_SETUP = "the test errors with a TypeError at setup instead of running"
# What a test that errors on every run reports, violation or not.
_ALWAYS_RED = " (reported 100% of the time, violation or not)"

_PLUGIN_NAMES = {RERUNFAILURES: "pytest-rerunfailures", RETRY: "pytest-retry", FLAKY: "flaky"}


def _suggestion(keyword: str, plugin: str) -> str:
    close = difflib.get_close_matches(keyword, sorted(KEYWORDS[plugin] | {"condition"}), n=1)
    return f" (did you mean `{close[0]}=`?)" if close else ""


def _mismatch(mark: Mark, plugin: str | None) -> str | None:
    """What the plugin that reads the marker does with arguments it does not take."""
    keywords = [argument.name for argument in mark.arguments if argument.name]
    if plugin is None:
        return None
    # The flaky package's marker takes its three arguments and nothing else.
    accepted = KEYWORDS[plugin] | (_ACCEPTED_EVERYWHERE if plugin != FLAKY else frozenset())
    unknown = sorted({k for k in keywords if k not in accepted})
    if plugin == FLAKY and unknown:
        names = ", ".join(f"`{name}=`" for name in unknown)
        return (
            f"{names} {'is not an argument' if len(unknown) == 1 else 'are not arguments'} of "
            f"the flaky package's marker: {_ERRORS_AT_SETUP}"
        )
    if plugin == RETRY and mark.positional():
        return "pytest-retry ignores positional arguments: this marker retries once"
    name = _PLUGIN_NAMES[plugin]
    if unknown:
        foreign = [k for k in unknown if any(k in names for names in KEYWORDS.values())]
        counted = (
            "reruns" in keywords or bool(mark.positional())
            if plugin == RERUNFAILURES
            else ("retries" in keywords)
        )
        parts = [f"`{k}=`{_suggestion(k, plugin)}" for k in unknown]
        consequence = ""
        if foreign and not counted:
            consequence = (
                ": the marker reruns once, like a bare one"
                if plugin == RERUNFAILURES
                else ": the marker retries once"
            )
        elif plugin == RERUNFAILURES:
            consequence = (
                ": it reruns every failure (only_rerun= and rerun_except= choose which)"
                if not {"only_rerun", "rerun_except"} & set(keywords)
                else ""
            )
        return f"{name} ignores {', '.join(parts)}{consequence}"
    positional = mark.positional()
    if plugin == RERUNFAILURES and positional and not mark.has_keyword("reruns"):
        first = positional[0]
        if isinstance(first, bool):
            return (
                f"a positional {first} is read as the rerun count ({int(first)}), "
                "not as a condition; write condition=... for that"
            )
        if isinstance(first, Dynamic) and looks_boolean(first.source):
            return (
                f"a positional `{first.source}` is read as the rerun count, not as a condition: "
                "one rerun where it is true, none where it is false; write condition=... for "
                "a condition and reruns=N for the count"
            )
    return None


def marker_plugin_mismatch(context: RuleContext) -> Iterator[Finding]:
    """DET102: arguments the plugin ignores or rejects, and plugins fighting over `flaky`."""
    groups: dict[Span, tuple[Mark, list[TestGate]]] = {}
    for use, (mark, gates) in group_by_mark(context.gates, ("rerun-marker",)).items():
        # A marker alias's arguments are one mistake, where the alias is written, however
        # many tests use it (celery's conftest `flaky` on 55 tests).
        groups.setdefault(_arguments_written_at(mark, use), (mark, []))[1].extend(gates)
    for span, (mark, gates) in sorted(groups.items()):
        choice = gates[0].plugin
        if choice is None:
            continue
        if choice.rejected:
            yield _rejected(span, choice, _every_run_red(gates, context))
            continue
        if choice.conflict:
            yield _conflict(span, choice)
            continue
        if choice.plugin == IGNORE_FLAKY:
            if mark.arguments:  # written for a rerun plugin none of which is declared
                yield finding(
                    "DET102",
                    span,
                    "pytest-ignore-flaky, the one plugin declared that knows `flaky`, reads no "
                    "arguments and, without --ignore-flaky, does nothing with the marker: the "
                    f"test is not rerun ({choice.evidence})",
                    "declare the rerun plugin the arguments are written for, or drop them",
                    severity="warning",
                )
            continue
        # Only a project that declares its dependencies (every file read) says a missing
        # plugin is missing: ``PluginEvidence.declares``, per project.
        if not choice.declared and choice.declares:
            yield finding(
                "DET102",
                span,
                "no rerun plugin is declared in this project's dependencies: unless one is "
                "installed some other way, this marker does nothing (pytest warns "
                "PytestUnknownMarkWarning; with --strict-markers it is a collection error)",
                "declare the plugin the marker is written for (pytest-rerunfailures, flaky or "
                "pytest-retry), or register `flaky` in the ini `markers` if it is only a tag",
                severity="warning",
            )
            continue
        problem = _mismatch(mark, choice.plugin)
        if problem is not None:
            uses = len({gate.test.nodeid for gate in gates})
            reach = f"; {uses} tests use it" if span != mark.span and uses > 1 else ""
            red = _every_run_red(gates, context) if problem.endswith(_ERRORS_AT_SETUP) else None
            yield finding(
                "DET102",
                span,
                f"{problem}{_ALWAYS_RED if red else ''} ({choice.evidence}{reach})",
                "write the arguments of the plugin that is installed, or drop the marker",
                red,
            )


def _conflict(span: Span, choice: PluginChoice) -> Finding:
    """Several plugins declared that read the marker differently: the one loaded last
    takes it, and which that is depends on the environment."""
    two = len(choice.declared) == 2
    claim, others = ("claim", "other's") if two else ("each claims", "others'")
    return finding(
        "DET102",
        span,
        f"{all_declared(choice.declared)} and {claim} `flaky`: which one reads this "
        f"marker depends on install order, and the {others} arguments are ignored or "
        "rejected",
        "keep one rerun plugin in the dependencies (or disable the "
        f"{'other' if two else 'others'} with `-p no:NAME` in addopts)",
    )


def _every_run_red(gates: list[TestGate], context: RuleContext) -> Loss:
    """The numbers of a test that errors on every run: the build is red whether or not
    a violation shows, so it is reported every time (a test it also blocks)."""
    _, numbers = worst(gates, context)
    return replace(numbers, reported=1.0, visible=1.0)


def _rejected(span: Span, choice: PluginChoice, numbers: Loss) -> Finding:
    """flaky declared beside another rerun plugin, and a keyword flaky does not take:
    flaky's setup hook raises a TypeError whichever plugin runs the test, so the test
    errors on every run, in either install order. It hides nothing; it blocks."""
    names = ", ".join(f"`{name}=`" for name in choice.rejected)
    others = sorted(choice.declared - {FLAKY})
    return finding(
        "DET102",
        span,
        f"{names} {'is not an argument' if len(choice.rejected) == 1 else 'are not arguments'}"
        f" of the flaky package's marker, and flaky is declared beside {' and '.join(others)}: "
        "flaky's setup hook raises a TypeError whichever plugin runs the test, so the test "
        f"errors on every run, in either install order{_ALWAYS_RED}",
        "keep one rerun plugin in the dependencies (or disable the other with `-p no:NAME` "
        "in addopts), or write flaky's arguments (max_runs=, min_passes=)",
        numbers,
    )


def _arguments_written_at(mark: Mark, use: Span) -> Span:
    """Where a marker's arguments are written: the alias's definition when they all sit
    there, else the use site (``fl = pytest.mark.flaky`` then ``@fl(reruns=2)``)."""
    definition = mark.definition
    if definition is None or not mark.arguments:
        return use
    inside = all(
        argument.span.path == definition.path
        and definition.line <= argument.span.line <= definition.end_line
        for argument in mark.arguments
    )
    return definition if inside else use
