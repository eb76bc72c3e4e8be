"""The rule codes, names, default severities and whether each is on by default."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    severity: str
    default: bool
    summary: str


RULES: dict[str, RuleInfo] = {
    info.code: info
    for info in (
        RuleInfo("DET101", "retry-marker", "warning", True, "a test-level retry, with its loss"),
        RuleInfo(
            "DET102",
            "marker-plugin-mismatch",
            "error",
            True,
            "marker arguments the plugin ignores or rejects, or plugins fighting over `flaky`",
        ),
        RuleInfo("DET103", "retry-decorator", "warning", True, "a retry decorator around a test"),
        RuleInfo("DET104", "global-reruns", "warning", True, "reruns for every test from config"),
        RuleInfo(
            "DET201",
            "untracked-quarantine",
            "warning",
            True,
            "non-strict xfail without a tracking issue",
        ),
        RuleInfo("DET202", "skipped-flaky", "warning", True, "a skip whose reason says flaky"),
        RuleInfo("DET301", "low-trial-count", "info", False, "a trial loop under the target"),
        RuleInfo(
            "DET302",
            "ci-trial-override",
            "warning",
            True,
            "a CI step sets a test's trial count below the test's own",
        ),
        RuleInfo(
            "DET401", "soft-fail", "warning", True, "a CI job whose test failures never block"
        ),
        RuleInfo("DET411", "job-retry", "warning", True, "a CI job retried on test failures"),
        RuleInfo("DET421", "ci-reruns-flag", "warning", True, "rerun flags on a CI pytest command"),
        RuleInfo(
            "DET431",
            "masked-exit-status",
            "warning",
            True,
            "a CI command that hides pytest's exit status",
        ),
        RuleInfo(
            "DET501", "stacked-retries", "warning", True, "one test retried at two or more layers"
        ),
        RuleInfo(
            "DET901", "unreadable-file", "error", True, "a file that could not be read or parsed"
        ),
    )
}


def select_codes(
    select: tuple[str, ...] | None, ignore: tuple[str, ...], extend: tuple[str, ...] = ()
) -> frozenset[str]:
    """Codes to report: ``select`` (codes or prefixes, ``ALL``) replaces the defaults."""

    def matching(patterns: tuple[str, ...]) -> set[str]:
        found = set()
        for pattern in patterns:
            if pattern.upper() == "ALL":
                found |= set(RULES)
            else:
                found |= {code for code in RULES if code.startswith(pattern.upper())}
        return found

    chosen = matching(select) if select is not None else {c for c, r in RULES.items() if r.default}
    chosen |= matching(extend)
    return frozenset(chosen - matching(ignore))


def unknown_codes(patterns: tuple[str, ...]) -> list[str]:
    return [
        pattern
        for pattern in patterns
        if pattern.upper() != "ALL" and not any(code.startswith(pattern.upper()) for code in RULES)
    ]
