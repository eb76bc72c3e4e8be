"""How Buildkite's ``soft_fail``, ``retry.automatic`` and ``skip`` act on a pytest failure.

A knob matters to detlint only through one question: does it act when pytest
exits with status 1 (tests failed), and how many runs does a failure then get?
Buildkite answers it with exit-status lists and ordered retry rules, so this
module reads those forms and answers it, keeping an honest "unknown" (None)
for values the YAML does not settle (``$VAR`` interpolation, forms outside the
schema). Which keys of a step are knobs is read in ``knobs.py``; this
module knows no steps.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from detlint.readers.ci.facts import PYTEST_FAILED, CiKnob, CiKnobKind
from detlint.readers.ci.yaml_spans import items_of, source_text, yaml_knob
from detlint.readers.yaml.tree import YMap, YNode, YScalar, YSeq

DEFAULT_RETRY_LIMIT = 2  # a rule without `limit`, and `automatic: true`
MAX_RETRY_LIMIT = 10  # the schema's maximum

# Exit statuses whose meaning a note should spell out (agent/lifecycle.md "Exit codes").
_STATUS_MEANINGS = {
    -1: "agent lost",
    137: "SIGKILL/OOM",
    139: "SIGSEGV",
    143: "SIGTERM",
    255: "agent terminated",
}

Tri = bool | None  # True / False / cannot be known statically


@dataclass(frozen=True)
class KnobSite:
    """Where a knob sits: the file, its dotted key path and any scope it is limited to."""

    path: str
    key: str
    platform: str | None = None
    condition: str | None = None
    status: int = PYTEST_FAILED  # the step's when its tests fail (make test: 2)


def _make_knob(
    kind: CiKnobKind,
    key: YScalar,
    value: YNode,
    site: KnobSite,
    covers: Tri,
    note: str,
    attempts: int | None = None,
) -> CiKnob:
    return yaml_knob(
        kind, "buildkite", site.key, key, value, site.path, covers,
        attempts=attempts, platform=site.platform, condition=site.condition, note=note,
    )  # fmt: skip


# --- small value readers ------------------------------------------------------------------


def is_interpolated(node: YNode | None) -> bool:
    """Whether a string holds ``$VAR``: the agent interpolates it at upload, so it is unknown."""
    return isinstance(node, YScalar) and isinstance(node.value, str) and "$" in node.value


def flag(node: YNode | None) -> Tri:
    """A Buildkite boolean: ``true``/``false`` or the strings "true"/"false" (the schema
    accepts both); None for null, interpolation and anything else."""
    if not isinstance(node, YScalar):
        return None
    if isinstance(node.value, bool):
        return node.value
    if isinstance(node.value, str) and node.value.strip().lower() in ("true", "false"):
        return node.value.strip().lower() == "true"
    return None


def _integer(node: YNode | None) -> int | None:
    """An integer, also written as a string ("1"); booleans are not integers here."""
    if not isinstance(node, YScalar) or isinstance(node.value, bool):
        return None
    if isinstance(node.value, int):
        return node.value
    if isinstance(node.value, str):
        text = node.value.strip()
        if text.lstrip("-").isdigit() and len(text) < 12:
            return int(text)
    return None


def is_null(node: YNode) -> bool:
    """``key: ~`` or ``key:``; Buildkite treats it like a missing key."""
    return isinstance(node, YScalar) and node.value is None


def _is_star(node: YNode | None) -> bool:
    return isinstance(node, YScalar) and node.value == "*"


def _describe_status(code: int) -> str:
    meaning = _STATUS_MEANINGS.get(code)
    return f"{code} ({meaning})" if meaning else str(code)


def _describe_statuses(codes: Iterable[int]) -> str:
    ordered = sorted(set(codes))
    if not ordered:
        return "no exit status"
    return "exit status " + ", ".join(_describe_status(c) for c in ordered)


# --- exit statuses ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Statuses:
    """The exit statuses a soft_fail list or a retry rule names."""

    any_status: bool  # "*": every status 1-255
    codes: frozenset[int]
    unreadable: tuple[str, ...]  # items detlint cannot read, as written

    def covers_tests(self, status: int = PYTEST_FAILED) -> Tri:
        if self.any_status or status in self.codes:
            return True
        return None if self.unreadable else False

    def describe(self) -> str:
        parts = ["any exit status"] if self.any_status else []
        if self.codes:
            parts.append(_describe_statuses(self.codes))
        parts.extend(f"exit_status {text}" for text in self.unreadable)
        return " or ".join(parts) if parts else "no exit status"


def _statuses(nodes: Iterable[YNode | None]) -> _Statuses:
    any_status = False
    codes: set[int] = set()
    unreadable: list[str] = []
    for node in nodes:
        code = _integer(node)
        if _is_star(node):
            any_status = True
        elif code is not None:
            codes.add(code)
        else:
            unreadable.append(source_text(node) if node is not None else "null")
    return _Statuses(any_status, frozenset(codes), tuple(unreadable))


# --- soft_fail ----------------------------------------------------------------------------


def soft_fail_knob(key: YScalar, value: YNode, site: KnobSite, extra: str = "") -> CiKnob | None:
    """The soft-fail knob of ``soft_fail: value``; None when it is off (false, null).

    A knob is returned even when it does not cover exit status 1: the audit lists
    every knob, and the rules decide from ``covers_tests``.
    """
    switch = flag(value)
    if switch is False or is_null(value):
        return None
    if switch is True:
        covers: Tri = True
        note = "every non-zero exit status passes softly, test failures included"
    elif isinstance(value, YSeq):
        covers, note = _soft_fail_list(value, site.status)
    elif is_interpolated(value):
        covers, note = None, "soft_fail is interpolated at upload: its effect is unknown"
    else:
        covers, note = None, "soft_fail form not understood (Buildkite expects true or a list)"
    return _make_knob("soft-fail", key, value, site, covers, _join(note, extra))


def _soft_fail_list(value: YSeq, status: int) -> tuple[Tri, str]:
    items = [item.get("exit_status") if isinstance(item, YMap) else item for item in value.items]
    statuses = _statuses(items)
    covers = statuses.covers_tests(status)
    failure = _failure(status)
    if not value.items:
        return False, "soft_fail lists no exit status: nothing fails softly"
    if covers is True:
        return True, f"soft_fail on {statuses.describe()} covers test failures ({failure})"
    if covers is False:
        return False, (
            f"soft_fail on {statuses.describe()} only: test failures ({failure}) still block"
        )
    return None, f"soft_fail on {statuses.describe()}: whether exit {status} is covered is unknown"


def _failure(status: int) -> str:
    """How a test failure's exit status reads in a note: "exit 1", "exit 2: make"."""
    return (
        "exit 1"
        if status == PYTEST_FAILED
        else f"exit {status}, as the step's make or runner gives it"
    )


# --- skip ---------------------------------------------------------------------------------


def skip_knob(key: YScalar, value: YNode, site: KnobSite, extra: str = "") -> CiKnob | None:
    """``skip: true`` or a reason string: the step never runs, so neither do its tests.

    ``false``, null and the empty string mean "not skipped" and give no knob.
    """
    switch = flag(value)
    if switch is False or not isinstance(value, YScalar) or value.value in (None, ""):
        return None
    if is_interpolated(value):
        covers: Tri = None
        note = "skip is interpolated at upload: whether the step runs is unknown"
    elif switch is True or isinstance(value.value, str):
        covers = True
        reason = f" ({value.value})" if switch is None else ""
        note = f"skipped{reason}: the tests in this step never run"
    else:
        covers, note = None, "skip form not understood (Buildkite expects true or a reason)"
    return _make_knob("skip", key, value, site, covers, _join(note, extra))


# --- retry.automatic ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Rule:
    """One automatic retry rule, judged against a pytest failure (exit 1, no signal)."""

    index: int  # 1-based
    matches: Tri
    limit: int | None  # None when unreadable
    description: str
    problems: tuple[str, ...] = ()


def _signal_matches(node: YNode | None, label: str) -> tuple[Tri, str]:
    """Whether a ``signal``/``signal_reason`` condition admits a job that got no signal.

    ``"*"`` (also the default when the key is absent, which is how ``automatic:
    true`` retries plain failures) and ``"none"`` admit it; a named signal or
    reason (``kill``, ``agent_stop``) does not.
    """
    if node is None or is_null(node) or _is_star(node):
        return True, ""
    values = items_of(node)
    readable = [v for v in values if isinstance(v, YScalar) and isinstance(v.value, str)]
    readable = [v for v in readable if "$" not in str(v.value)]
    if any(str(v.value).strip().lower() in ("*", "none") for v in readable):
        return True, ""
    names = ", ".join(str(v.value) if v in readable else source_text(v) for v in values)
    return (False if len(readable) == len(values) else None), f"{label} {names}"


def _limit(node: YNode | None) -> tuple[int | None, tuple[str, ...]]:
    if node is None or is_null(node):
        return DEFAULT_RETRY_LIMIT, ()
    limit = _integer(node)
    if limit is None:
        return None, (f"limit {source_text(node)} is not a number detlint can read",)
    if limit < 0:
        return None, (f"limit {limit} is invalid (Buildkite allows 0 to {MAX_RETRY_LIMIT})",)
    if limit > MAX_RETRY_LIMIT:
        return limit, (
            f"limit {limit} is above Buildkite's maximum of {MAX_RETRY_LIMIT}: "
            "the pipeline upload may be rejected",
        )
    return limit, ()


def _rule(index: int, node: YNode, status: int) -> _Rule:
    if not isinstance(node, YMap):
        return _Rule(index, None, None, f"unreadable rule {source_text(node)}")
    exit_node = node.get("exit_status")
    if exit_node is None or is_null(exit_node):
        statuses = _Statuses(True, frozenset(), ())
    else:
        statuses = _statuses(items_of(exit_node))
    signal, signal_text = _signal_matches(node.get("signal"), "signal")
    reason, reason_text = _signal_matches(node.get("signal_reason"), "signal_reason")
    limit, problems = _limit(node.get("limit"))
    conditions = [statuses.covers_tests(status), signal, reason]
    matches: Tri = False if False in conditions else (None if None in conditions else True)
    named = [text for text in (signal_text, reason_text) if text]
    exit_text = statuses.describe()
    if named and exit_text == "any exit status":
        exit_text = ""
    description = ", ".join(text for text in (exit_text, *named) if text)
    return _Rule(index, matches, limit, description, problems)


def _rules(value: YNode, status: int) -> list[_Rule] | None:
    """The rules of ``automatic: value`` (not false or null); None for a form not understood."""
    if flag(value) is True:
        return [_Rule(1, True, DEFAULT_RETRY_LIMIT, "any exit status")]
    if isinstance(value, YMap):
        return [_rule(1, value, status)]
    if isinstance(value, YSeq):
        return [_rule(i, item, status) for i, item in enumerate(value.items, start=1)]
    return None


def _outcomes(rules: list[_Rule]) -> list[_Rule | None]:
    """The rules that may be the first to match a test failure; None = no rule matches.

    Rules are checked in order and the first matching one applies, so a rule
    known to match ends the search; a rule that may or may not match is one
    possibility among those after it.
    """
    outcomes: list[_Rule | None] = []
    for rule in rules:
        if rule.matches is False:
            continue
        outcomes.append(rule)
        if rule.matches:
            return outcomes
    outcomes.append(None)
    return outcomes


def _retries(outcome: _Rule | None) -> Tri:
    if outcome is None:
        return False
    return None if outcome.limit is None else outcome.limit > 0


def retry_knob(key: YScalar, value: YNode, site: KnobSite) -> CiKnob | None:
    """The job-retry knob of ``automatic: value`` (``key`` is the ``automatic`` key).

    ``attempts`` is the total number of runs a test failure gets: the limit of
    the first rule that matches exit status 1, plus one.
    """
    if flag(value) is False or is_null(value):
        return None
    rules = _rules(value, site.status)
    if rules is None:
        note = "retry.automatic form not understood"
        if is_interpolated(value):
            note = "retry.automatic is interpolated at upload: its effect is unknown"
        return _make_knob("job-retry", key, value, site, None, note)
    if not rules:
        return _make_knob("job-retry", key, value, site, False, "no retry rules: nothing retried")
    outcomes = _outcomes(rules)
    verdicts = {_retries(outcome) for outcome in outcomes}
    covers: Tri = verdicts.pop() if len(verdicts) == 1 else None
    limits = {outcome.limit if outcome is not None else None for outcome in outcomes}
    only_limit = limits.pop() if len(limits) == 1 else None
    attempts = only_limit + 1 if only_limit is not None else None
    problems = [problem for rule in rules for problem in rule.problems]
    note = _join(
        _retry_note(rules, outcomes, flag(value) is True, attempts, _failure(site.status)),
        *problems,
    )
    return _make_knob("job-retry", key, value, site, covers, note, attempts)


def _retry_note(
    rules: list[_Rule],
    outcomes: list[_Rule | None],
    is_true: bool,
    attempts: int | None,
    failure: str,
) -> str:
    first = outcomes[0]
    if is_true:
        return f"automatic: true retries any failure up to {DEFAULT_RETRY_LIMIT} times (3 runs)"
    if len(outcomes) > 1:
        which = " or ".join(f"rule {rule.index}" for rule in outcomes if rule is not None)
        if None in outcomes:
            which += " or none"
        if attempts is None:
            return (
                f"test failures ({failure}) match {which}, depending on values detlint cannot read"
            )
        return f"test failures ({failure}) match {which}; each gives up to {attempts} runs"
    if first is None:
        retried = "; ".join(rule.description for rule in rules)
        return f"retries {retried} only: test failures are not retried"
    where = f"rule {first.index} of {len(rules)}" if len(rules) > 1 else "the rule"
    if first.limit is None:
        return (
            f"test failures ({failure}) match {where} ({first.description}), whose limit is unknown"
        )
    if first.limit == 0:
        return (
            f"test failures ({failure}) first match {where} ({first.description}), "
            "which has limit 0: they are not retried"
        )
    return (
        f"test failures ({failure}) match {where} ({first.description}, limit {first.limit}): "
        f"up to {first.limit + 1} runs"
    )


def _join(*parts: str) -> str:
    return "; ".join(part for part in parts if part)
