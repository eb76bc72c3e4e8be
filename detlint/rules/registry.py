"""Which rule functions run for which codes, and running them.

DET902 (unused suppressions) is judged where suppressions are applied, after the
other rules (``suppression.py``): it needs their findings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from detlint.base.span import Problem
from detlint.rules.checks.ci_reruns_flag import ci_reruns_flag
from detlint.rules.checks.ci_trial_override import ci_trial_override
from detlint.rules.checks.expired_quarantine import expired_quarantine
from detlint.rules.checks.global_reruns import global_reruns, script_reruns
from detlint.rules.checks.job_retry import job_retry
from detlint.rules.checks.low_trial_count import low_trial_count
from detlint.rules.checks.marker_plugin_mismatch import marker_plugin_mismatch
from detlint.rules.checks.masked_exit_status import masked_exit_status
from detlint.rules.checks.retry_decorator import retry_decorator
from detlint.rules.checks.retry_marker import retry_marker
from detlint.rules.checks.skipped_flaky import (
    deselected_flaky,
    script_deselected,
    skipped_flaky,
)
from detlint.rules.checks.soft_fail import soft_fail
from detlint.rules.checks.stacked_retries import stacked_retries
from detlint.rules.checks.unreached_reruns import unreached_reruns
from detlint.rules.checks.unreadable_file import unreadable_file
from detlint.rules.checks.untracked_quarantine import untracked_quarantine
from detlint.rules.context import RuleContext
from detlint.rules.finding import Finding

Rule = Callable[[RuleContext], Iterator[Finding]]

RULE_FUNCTIONS: dict[str, Rule | tuple[Rule, ...]] = {
    "DET101": retry_marker,
    "DET102": marker_plugin_mismatch,
    "DET103": retry_decorator,
    "DET104": (global_reruns, script_reruns),
    "DET201": untracked_quarantine,
    "DET202": (skipped_flaky, deselected_flaky, script_deselected),
    "DET203": expired_quarantine,
    "DET301": low_trial_count,
    "DET302": ci_trial_override,
    "DET401": soft_fail,
    "DET411": job_retry,
    "DET421": (ci_reruns_flag, unreached_reruns),
    "DET431": masked_exit_status,
    "DET501": stacked_retries,
}


def run_rules(context: RuleContext, problems: Iterable[Problem]) -> list[Finding]:
    found: list[Finding] = []
    for code, rules in RULE_FUNCTIONS.items():
        if code in context.selected:
            for rule in rules if isinstance(rules, tuple) else (rules,):
                found += rule(context)
    if "DET901" in context.selected:
        found += unreadable_file(problems)
    return sorted(found, key=lambda item: item.sort_key)
