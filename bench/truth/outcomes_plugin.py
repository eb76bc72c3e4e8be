"""A pytest plugin loaded with ``-p truth_outcomes``: final outcome of every test id.

It lives outside the scenario's project so detlint never reads it.
"""

import json
import os
from typing import Any

KEYS = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    outcomes = {}
    for key in KEYS:
        reports = terminalreporter.stats.get(key, [])
        ids = {getattr(report, "nodeid", None) for report in reports}
        outcomes[key] = sorted(i for i in ids if i)
    with open(os.environ["TRUTH_OUTCOMES"], "w") as out:
        json.dump(outcomes, out)
