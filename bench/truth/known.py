"""Fast scenarios whose claim is known to disagree with the real plugin, and why.

The fast test accepts a DISCREPANCY only for the scenarios named here; a fixed
model turns the entry stale and the test says so.
"""

KNOWN_DISCREPANCIES: dict[str, str] = {}
