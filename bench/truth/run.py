"""Run the truth scenarios: detlint's printed numbers against real plugin runs.

    python bench/truth/run.py [--fast] [--only NAME] [-n N]

For each scenario: write the project, read detlint's claim, run the real plugin
on N instances, compare, and print one table row.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.truth.ci_layers import observe_layers
from bench.truth.claims import Claim, message_problems, read_claim
from bench.truth.observe import Observation
from bench.truth.scenario import Scenario, write_project
from bench.truth.scenarios import ALL
from bench.truth.tables import markdown_table
from bench.truth.venvs import label
from bench.truth.verdict import Verdict, judge

FAST_CASES = 300
FULL_CASES = 1000


@dataclass(frozen=True)
class Row:
    scenario: Scenario
    claim: Claim
    seen: Observation
    verdict: Verdict
    text: tuple[str, ...]

    def cells(self) -> list[str]:
        claim = "no claim" if self.claim.reported is None else f"{self.claim.reported:.4f}"
        error = "-" if self.verdict.standard_error is None else f"{self.verdict.standard_error:.4f}"
        return [
            self.scenario.name,
            label(self.scenario.venv),
            f"{claim} ({self.claim.source})",
            f"{self.seen.share:.4f} ({self.seen.failed}/{self.seen.cases})",
            error,
            self.verdict.verdict,
            "; ".join(self.text) or "ok",
        ]


def run_scenario(scenario: Scenario, cases: int, workdir: Path) -> Row:
    root = workdir / scenario.name
    write_project(scenario, root, cases)
    claim = read_claim(root, scenario.claim_code)
    seen = observe_layers(scenario, root, cases)
    return Row(scenario, claim, seen, judge(claim, seen), tuple(message_problems(scenario, claim)))


def select(fast: bool, only: list[str]) -> list[Scenario]:
    chosen = [s for s in ALL if s.fast or not fast]
    if only:
        chosen = [s for s in chosen if any(name in s.name for name in only)]
    return chosen


def table(rows: list[Row]) -> str:
    header = ["scenario", "plugin@version", "claim (source)", "observed", "SE", "verdict", "text"]
    return markdown_table(header, [row.cells() for row in rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="the few fast scenarios, N=300")
    parser.add_argument("--only", action="append", default=[], help="scenarios whose name has this")
    parser.add_argument("-n", type=int, default=None, help="instances per scenario")
    parser.add_argument("--notes", action="store_true", help="also print detlint's messages")
    args = parser.parse_args(argv)
    cases = args.n or (FAST_CASES if args.fast else FULL_CASES)
    rows = []
    with tempfile.TemporaryDirectory(prefix="detlint-truth-") as tmp:
        for scenario in select(args.fast, args.only):
            row = run_scenario(scenario, cases, Path(tmp))
            rows.append(row)
            print(" | ".join(row.cells()), file=sys.stderr, flush=True)
    print(table(rows))
    if args.notes:
        for row in rows:
            outcomes = ", ".join(f"{k}={v}" for k, v in sorted(row.seen.outcomes.items()))
            print(
                f"\n{row.scenario.name}: codes {', '.join(row.claim.codes) or '-'}; "
                f"pytest {outcomes}\n  {row.claim.message or '(no finding)'}"
            )
    return 1 if any(row.verdict.verdict == "DISCREPANCY" for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
