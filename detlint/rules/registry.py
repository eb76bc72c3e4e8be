"""Which rule functions run for which codes, and running them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from detlint.base.span import Problem
from detlint.rules.catalogue import RULES, RuleInfo, select_codes
from detlint.rules.ci import (
    deselected_flaky,
    job_retry,
    masked_exit_status,
    reruns_flag,
    soft_fail,
    stacked_retries,
    trial_override,
)
from detlint.rules.context import RuleContext, finding
from detlint.rules.finding import Finding
from detlint.rules.quarantine import skipped_flaky, untracked_quarantine
from detlint.rules.retries import (
    global_reruns,
    marker_plugin_mismatch,
    retry_decorator,
    retry_marker,
)
from detlint.rules.trials import low_trial_count

Rule = Callable[[RuleContext], Iterator[Finding]]

RULE_FUNCTIONS: dict[str, Rule | tuple[Rule, ...]] = {
    "DET101": retry_marker,
    "DET102": marker_plugin_mismatch,
    "DET103": retry_decorator,
    "DET104": global_reruns,
    "DET201": untracked_quarantine,
    "DET202": (skipped_flaky, deselected_flaky),
    "DET301": low_trial_count,
    "DET302": trial_override,
    "DET401": soft_fail,
    "DET411": job_retry,
    "DET421": reruns_flag,
    "DET431": masked_exit_status,
    "DET501": stacked_retries,
}


def unreadable(problems: Iterable[Problem]) -> Iterator[Finding]:
    """DET901: every file that could not be read or parsed."""
    for problem in problems:
        yield finding(
            "DET901",
            problem.span,
            problem.message,
            "detlint skipped this file; the rest of the run went on",
        )


def run_rules(context: RuleContext, problems: Iterable[Problem]) -> list[Finding]:
    found: list[Finding] = []
    for code, rules in RULE_FUNCTIONS.items():
        if code in context.selected:
            for rule in rules if isinstance(rules, tuple) else (rules,):
                found += rule(context)
    if "DET901" in context.selected:
        found += unreadable(problems)
    return sorted(found, key=lambda item: item.sort_key)


__all__ = ["RULES", "RuleContext", "RuleInfo", "run_rules", "select_codes"]
