"""Fast scenarios whose claim is known to disagree with the real plugin, and why.

The fast test accepts a DISCREPANCY only for the scenarios named here; a fixed
model turns the entry stale and the test says so.
"""

KNOWN_DISCREPANCIES: dict[str, str] = {
    "retry-fixture-retries2-T1": (
        "pytest-retry never retries a setup error, so a violation raised in a fixture is "
        "reported at the full 10%; detlint reads checks in fixtures of the test's module "
        "and classes (retry-module-fixture-retries2-T1 agrees) but not in conftest.py, and "
        "claims retries=2 lowers this one to 0.10%"
    ),
}
