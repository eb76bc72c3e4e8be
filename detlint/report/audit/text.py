"""The audit's sentences and number formats that the HTML and Markdown reports share."""

from __future__ import annotations

from detlint.base.percentages import percent, percent_label
from detlint.report.audit.facts import AuditView, Headline


def points(loss: float) -> str:
    """A difference of two probabilities in percentage points: ``0.382`` -> ``"38.2"``."""
    value = loss * 100.0
    if value == 0.0:
        return "0"
    if value < 0.1:
        return f"{value:.2g}"
    return f"{value:.1f}"


def headline_texts(view: AuditView) -> dict[str, str]:
    """The headline's sentences, shared by the HTML and Markdown reports."""
    head, reference = view.headline, percent_label(view.reference_rate)
    more = head.tests - head.masked - head.mask_nothing
    never, rare = head.never_block, head.effectively_never
    masked_card = (
        f"{_tests(head.masked, 'runs', 'run')} under knobs that hide intermittent failures"
        + (f" ({more} more only where a condition holds)" if more else "")
        + (
            f" ({head.mask_nothing} more under knobs that mask nothing)"
            if head.mask_nothing
            else ""
        )
    )
    never_card = (
        f"{_tests(never + rare, 'effectively never blocks', 'effectively never block')}: "
        f"{never} skipped, xfailed or soft-failed as flaky, and {rare} reporting a "
        f"{reference} violation at most once in 1000"
    )
    return {
        "masked_card": masked_card.removeprefix(f"{head.masked} "),
        "never_card": never_card.removeprefix(f"{never + rare} "),
        "left_out": _left_out(head),
        "lead": _lead(head, reference),
        "best": _best(head, reference),
        "median": "" if head.median_reported is None else percent(head.median_reported),
        "median_without": "" if head.median_without is None else percent(head.median_without),
    }


def _lead(head: Headline, reference: str) -> str:
    """The sentence the report opens with: how many tests hide failures and what that
    costs, then the test files CI steps run under knobs, which no test row counts."""
    if head.masked and head.median_reported is not None and head.median_without is not None:
        lead = (
            f"{head.masked} test{'s run' if head.masked != 1 else ' runs'} under knobs that hide "
            f"intermittent failures: a {reference} violation is reported "
            f"{percent(head.median_reported)} of the time (median) instead of "
            f"{percent(head.median_without)} without those knobs."
        )
    elif head.tests - head.mask_nothing:
        conditional = head.tests - head.mask_nothing
        lead = (
            f"{conditional} test{'s have' if conditional != 1 else ' has'} knobs that hide "
            "intermittent failures only where a condition holds."
        )
    else:
        lead = "No test runs under a knob that hides intermittent failures."
    if head.mask_nothing:
        lead += f" {_mask_nothing(head.mask_nothing)}"
    files = head.files_under_ci_knobs
    if files:
        lead += (
            f" CI steps with such knobs also run {files} more test "
            f"file{'s' if files != 1 else ''} whose tests have no knob or trial loop of "
            "their own (the CI steps below list them by step, not test by test)."
        )
    return lead


def _best(head: Headline, reference: str) -> str:
    """The change that wins back most (a knob, then all knobs of a kind), or why no
    single knob is worth naming; empty when no test hides failures."""
    best = ""
    if head.best is None and head.masked:
        best = (
            "No single knob, removed alone, gives its tests back a point of the chance "
            f"that a {reference} violation is reported: they sit under several knobs "
            "(the table's Without column is what removing all of them gives)."
        )
    if head.best is not None:
        knob = head.best
        many = "tests" if knob.counted != 1 else "test"
        if knob.files == 1:
            many += " (a test file whose tests have no knob, counted as one test)"
        elif knob.files:
            many += f" ({knob.files} test files whose tests have no knob, each counted as one)"
        best = (
            f"The change that wins back most: {knob.description} at {knob.path}:{knob.line} "
            f"({knob.kind}). With it, the {knob.counted} {many} it reaches "
            f"{'report' if knob.counted != 1 else 'reports'} a "
            f"{reference} violation {percent(knob.reported)} of the time instead of "
            f"{percent(knob.reported_without)} without it (on average; their other knobs kept)."
        )
    if head.best_kind is not None:
        kind = head.best_kind
        best += (
            f" The {kind.knobs} {kind.kind} knobs let their {kind.counted} tests report it "
            f"{percent(kind.reported)} of the time instead of {percent(kind.reported_without)} "
            "without each knob alone (on average)."
        )
    return best


def _left_out(head: Headline) -> str:
    """The tests the report does not count and why, so its totals are not read as
    the whole suite; empty when it counts them all."""
    left_out = []
    if head.not_run:
        left_out.append(
            f"{head.not_run} test{'s' if head.not_run != 1 else ''} skipped or xfailed "
            "for a reason that does not say flaky"
        )
    if head.without_hiding_knob:
        left_out.append(
            f"{head.without_hiding_knob} test{'s' if head.without_hiding_knob != 1 else ''} "
            "whose knobs hide no failure (platform skips, expected failures, tags)"
        )
    if head.not_judged:
        left_out.append(
            f"{head.not_judged} test{'s' if head.not_judged != 1 else ''} whose rerun "
            "marker the project's own conftest code reads, with no rerun plugin declared "
            "(not judged: the marker means what that code does)"
        )
    if not left_out:
        return ""
    return f"Not counted: {' and '.join(left_out)}; the JSON audit lists them."


def _mask_nothing(count: int) -> str:
    """The sentence on tests whose retry or quarantine knobs mask nothing anywhere."""
    which = "tests have" if count != 1 else "test has"
    return (
        f"{count} {which} retry or quarantine knobs that mask nothing wherever "
        "the test runs: a filter that lets no assertion failure by, a condition never "
        "true, or a marker that errors every run."
    )


def _tests(count: int, one: str, many: str) -> str:
    """``"1 test runs"``, ``"3 tests run"``."""
    return f"{count} test {one}" if count == 1 else f"{count} tests {many}"
