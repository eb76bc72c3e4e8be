"""DET202 skipped-flaky: a skip whose reason or comment says the test is flaky, and a
flaky tag every CI step deselects: the test is off, and nothing shows it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from detlint.base.percentages import percent, percent_label
from detlint.base.span import Span
from detlint.compose.option_gates import (
    hook_option,
    hook_skipping,
    hook_word,
    option_unless,
)
from detlint.compose.test_gate import TestGate
from detlint.readers.python.facts import Mark
from detlint.readers.reasons import says_flaky
from detlint.rules.context import (
    QUARANTINE,
    SCRIPT_CONDITION,
    RuleContext,
    covers,
    finding,
    group_by_knob,
    trials_phrase,
    worst,
)
from detlint.rules.finding import Finding, Loss
from detlint.rules.quarantine_reasons import (
    checks_run_first,
    costliest_quarantined,
    mark_reason,
)

_NOT_MARK = re.compile(r"\bnot\s+([A-Za-z_]\w*)")


def deselected_flaky(context: RuleContext) -> Iterator[Finding]:
    """DET202 for CI: ``-m "not flaky"`` deselects the tests a repository tags as flaky.

    A tagged test that no step runs is as off and invisible as a skipped one;
    a step that still runs it somewhere (a nightly job) makes it no finding.
    """
    tagged: dict[str, dict[str, list[TestGate]]] = {}  # tag -> test path -> gates
    for gate in context.gates:
        for mark in gate.test.marks:
            if mark.kind in ("custom", "flaky"):
                tagged.setdefault(mark.name, {}).setdefault(gate.test.path, []).append(gate)
    if not tagged:
        return
    for run in context.ci_runs:
        for tag in _NOT_MARK.findall(run.run.markexpr or ""):
            files = tagged.get(tag, {})
            gates = [g for path in run.test_files if path in files for g in files[path]]
            if not gates or _run_elsewhere(tag, gates, context):
                continue
            numbers, lost = _never_reported(gates, context, "")
            message = (
                f"`-m {run.run.markexpr!r}` deselects the tests marked {tag!r} in step "
                f"{run.step.name!r} and no other step runs them: {lost}"
            )
            help_text = (
                f"run them under a visible quarantine instead: {QUARANTINE}, or in a step "
                f"that selects them (`-m {tag}`) and reports its failures"
            )
            yield finding("DET202", run.span, message, help_text, numbers)


def _never_reported(gates: list[TestGate], context: RuleContext, where: str) -> tuple[Loss, str]:
    """What deselecting ``gates`` loses, worded once for a CI step and a script."""
    gate, numbers = worst(gates, context)
    q = percent_label(context.reference_rate)
    lost = (
        f"a {q} violation in {gate.label} is never reported{where} "
        f"(was {percent(numbers.reported_without)}) and nothing shows it "
        f"({covers(gates).removeprefix('; ') or '1 test'})"
    )
    return numbers, lost


def script_deselected(context: RuleContext) -> Iterator[Finding]:
    """DET202 for a test module's own ``pytest.main(["-m", "not flaky", __file__])``: when
    the file is run as a script, the tests it tags as flaky never run. A CI step that
    runs the file without deselecting the tag makes it no finding."""
    for link in context.scripts:
        markexpr = link.args.markexpr or ""
        path = link.run.span.path
        for tag in _NOT_MARK.findall(markexpr):
            gates = [g for g in context.gates if g.test.path == path and tagged_with(g, tag)]
            if not gates or _run_elsewhere(tag, gates, context):
                continue
            numbers, lost = _never_reported(gates, context, " there")
            message = (
                f"`-m {markexpr!r}` in the file's own pytest.main deselects the tests marked "
                f"{tag!r} {SCRIPT_CONDITION}: {lost}"
            )
            help_text = (
                f"run them under a visible quarantine instead: {QUARANTINE}, or drop the "
                "deselection so that the script reports their failures"
            )
            yield finding("DET202", link.run.span, message, help_text, numbers)


def tagged_with(gate: TestGate, tag: str) -> bool:
    """Whether a test carries the marker ``-m "not <tag>"`` deselects."""
    return any(mark.kind in ("custom", "flaky") and mark.name == tag for mark in gate.test.marks)


def deselects(markexpr: str | None, gate: TestGate) -> bool:
    """Whether ``-m markexpr`` deselects the test by a ``not <tag>`` it names."""
    return any(tagged_with(gate, tag) for tag in _NOT_MARK.findall(markexpr or ""))


def _run_elsewhere(tag: str, gates: list[TestGate], context: RuleContext) -> bool:
    """Whether some run reaches these tests without deselecting ``tag``."""
    paths = {gate.test.path for gate in gates}
    return any(
        tag not in _NOT_MARK.findall(run.run.markexpr or "")
        and not paths.isdisjoint(run.test_files)
        for run in context.ci_runs
    )


def skipped_flaky(context: RuleContext) -> Iterator[Finding]:
    """DET202: a skip whose reason or comment says the test is flaky."""
    groups = group_by_knob(context.gates, ("skip",))
    for span, (knob, gates) in sorted(groups.items()):
        mark = knob.mark
        assert mark is not None
        subjects = tuple(gate.test.name for gate in gates)
        word = says_flaky(mark_reason(mark), mark.comment, subjects) or hook_word(mark)
        if word is None:
            continue
        gate, numbers = costliest_quarantined(gates, knob, context)
        q = percent_label(context.reference_rate)
        unless = option_unless(knob.condition)
        first = checks_run_first(mark)
        if unless is not None:
            where = (
                f" {unless} (the hook at {hook_skipping(mark)} skips every test marked "
                f"`{mark.name}`{_given_in_ci(hook_option(mark), gates, context)}): in a run "
                "without it, it never runs"
            )
        elif first:
            there = f" where {knob.condition}: there" if knob.condition else ":"
            where = f"{there} {first}, but the checks after it never run"
        elif knob.condition:
            where = f" where {knob.condition}: there it never runs"
        else:
            where = ": it never runs"
        hidden = " in those" if first and unless is None else ""
        yield finding(
            "DET202",
            span,
            f"test skipped as {word!r}{where}, so a {q} violation{hidden} is never reported "
            f"(was {percent(numbers.reported_without)}) and nothing shows it "
            f"({trials_phrase(gate.test)}{_reach(mark, gates, span)})",
            f"run it under a visible quarantine instead: {QUARANTINE}",
            numbers,
        )


def _given_in_ci(option: str, gates: list[TestGate], context: RuleContext) -> str:
    """Where a CI run of these tests passes the option that lifts a hook's skip, on its
    command line or in ``PYTEST_ADDOPTS`` (perhaps only in some of its jobs): there the
    tests run. How often that run happens is not known, so no number is given for it."""
    paths = {gate.test.path for gate in gates}
    for run in context.ci_runs:
        if paths.isdisjoint(run.test_files):
            continue
        if _passes(option, run.run.args):
            return f"; the CI run at {run.span.path}:{run.span.line} passes `{option}`"
        for setting in run.env:
            if setting.name == "PYTEST_ADDOPTS" and _passes(option, setting.value.split()):
                return (
                    f"; the CI run at {run.span.path}:{run.span.line} can be given `{option}` "
                    f"(PYTEST_ADDOPTS set at {setting.span.path}:{setting.span.line}), and "
                    "runs them there"
                )
    return ""


def _passes(option: str, words: tuple[str, ...] | list[str]) -> bool:
    return any(word == option or word.startswith(f"{option}=") for word in words)


def _reach(mark: Mark, gates: list[TestGate], span: Span) -> str:
    """What the skip covers: for an entry of a data list a decorator consumes, the
    instances it names of each test, whose count is not known statically."""
    if not mark.entry:
        return covers(gates, span)
    names = sorted({gate.test.name for gate in gates})
    return (
        f"; skips {mark.entry} of {', '.join(names)}; "
        "how many instances that is is not known statically"
    )
