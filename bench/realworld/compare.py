"""Rerun detlint on the real repositories of ``repos.toml`` and compare with the verdicts.

Every finding detlint printed on a real repository was read against the source
and judged right or wrong; the verdicts are in ``verdicts/<name>.jsonl``, one
finding per line: its code, path, line, the message that was read, the
verdict and why. This script runs ``detlint check`` on each checkout that is
present and says what changed since:

- ``right`` / ``wrong``: the finding is still there with the message that was read;
- ``changed``: same code and place, another message (read it again);
- ``unread``: a finding no verdict covers;
- ``fixed``: a finding judged wrong is gone; ``lost``: one judged right is gone.

Precision is right / (right + wrong) over the findings still there as read,
for the Python rules (DET1xx, DET2xx, DET301) and the CI rules apart.

    python bench/realworld/compare.py --checkouts /tmp/rw
    python bench/realworld/compare.py --checkouts /tmp/rw --unread unread.jsonl

Exit status: 1 when a finding of the chosen rule family (``--family``, the Python
rules by default) is judged wrong and still there, or its message changed since it was
read, or one judged right is lost; 0 otherwise (unread findings are counted, not
failed: the verdicts of a large repository sample one finding in ten of a kind); 2 when
no checkout is present.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # detlint depends on tomli there
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
Key = tuple[str, str, int]  # code, path, line


def family(code: str) -> str:
    """Python-side rules, CI rules, or the rest (unreadable files, suppressions)."""
    if code.startswith(("DET1", "DET2")) or code == "DET301":
        return "python"
    if code.startswith(("DET3", "DET4", "DET5")):
        return "ci"
    return "other"


def load_verdicts(name: str) -> dict[Key, dict[str, object]]:
    path = HERE / "verdicts" / f"{name}.jsonl"
    found: dict[Key, dict[str, object]] = {}
    if not path.exists():
        return found
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        entry = json.loads(line)
        if entry.get("verdict") not in ("right", "wrong"):
            raise SystemExit(f"{path}:{number}: verdict must be 'right' or 'wrong'")
        found[(str(entry["code"]), str(entry["path"]), int(entry["line"]))] = entry
    return found


def detlint_command(explicit: str | None) -> list[str]:
    if explicit:
        return explicit.split()
    beside = Path(sys.executable).with_name("detlint")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("detlint")
    if found is None:
        raise SystemExit("no detlint executable next to this Python or on PATH (--detlint)")
    return [found]


def run_detlint(command: list[str], checkout: Path) -> list[dict[str, object]]:
    """``detlint check`` from inside the checkout, so paths are relative to its root."""
    env = {**os.environ, "DETLINT_NO_CACHE": "1"}
    result = subprocess.run(
        [*command, "check", ".", "--output-format", "json", "--exit-zero"],
        cwd=checkout,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"detlint failed on {checkout}:\n{result.stderr}")
    findings: list[dict[str, object]] = json.loads(result.stdout)["findings"]
    return findings


def compare(
    findings: list[dict[str, object]], verdicts: dict[Key, dict[str, object]]
) -> tuple[Counter[tuple[str, str]], list[dict[str, object]]]:
    """Counts per (family, state), and the unread or changed findings."""
    counts: Counter[tuple[str, str]] = Counter()
    to_read: list[dict[str, object]] = []
    present: set[Key] = set()
    for item in findings:
        key = (str(item["code"]), str(item["path"]), int(str(item["line"])))
        present.add(key)
        verdict = verdicts.get(key)
        if verdict is None:
            state = "unread"
        elif verdict["message"] != item["message"]:
            state = "changed"
        else:
            state = str(verdict["verdict"])
        counts[(family(key[0]), state)] += 1
        if state in ("unread", "changed"):
            to_read.append(
                {
                    "code": key[0],
                    "path": key[1],
                    "line": key[2],
                    "message": item["message"],
                    "state": state,
                    "was": None if verdict is None else verdict["verdict"],
                }
            )
    for key, verdict in verdicts.items():
        if key not in present:
            counts[(family(key[0]), "fixed" if verdict["verdict"] == "wrong" else "lost")] += 1
    return counts, to_read


STATES = ("right", "wrong", "changed", "unread", "fixed", "lost")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkouts", type=Path, default=Path("/tmp/rw"))
    parser.add_argument("--detlint", help="the detlint command (default: next to this Python)")
    parser.add_argument("--unread", type=Path, help="write the unread and changed findings here")
    parser.add_argument("--only", nargs="*", default=None, help="repository names to run")
    parser.add_argument(
        "--family",
        choices=("python", "ci", "other", "all"),
        default="python",
        help="the rules whose changes decide the exit status (default: python)",
    )
    args = parser.parse_args()

    repos = tomllib.loads((HERE / "repos.toml").read_text(encoding="utf-8"))["repo"]
    command = detlint_command(args.detlint)
    totals: Counter[tuple[str, str]] = Counter()
    to_read: list[dict[str, object]] = []
    ran = 0
    print(f"{'repository':24} {'family':7} " + " ".join(f"{state:>7}" for state in STATES))
    for repo in repos:
        name = repo["name"]
        checkout = args.checkouts / name
        if (args.only is not None and name not in args.only) or not checkout.is_dir():
            continue
        ran += 1
        counts, unread = compare(run_detlint(command, checkout), load_verdicts(name))
        totals.update(counts)
        to_read += [{"repo": name, **item} for item in unread]
        for group in ("python", "ci", "other"):
            row = [counts[(group, state)] for state in STATES]
            if any(row):
                print(f"{name:24} {group:7} " + " ".join(f"{n:>7}" for n in row))
    if not ran:
        print(f"no checkout of any repository in {args.checkouts}", file=sys.stderr)
        return 2
    print()
    for group in ("python", "ci", "other"):
        right, wrong = totals[(group, "right")], totals[(group, "wrong")]
        row = [totals[(group, state)] for state in STATES]
        print(f"{'all':24} {group:7} " + " ".join(f"{n:>7}" for n in row))
        if right + wrong:
            print(f"  {group} precision: {right}/{right + wrong} = {right / (right + wrong):.1%}")
    if args.unread is not None:
        args.unread.write_text(
            "".join(json.dumps(item) + "\n" for item in to_read), encoding="utf-8"
        )
    groups = ("python", "ci", "other") if args.family == "all" else (args.family,)
    stale = sum(totals[(group, s)] for group in groups for s in ("wrong", "changed", "lost"))
    unread = sum(totals[(group, "unread")] for group in groups)
    if unread:
        print(f"{unread} findings no verdict covers (new, or beyond a sample): see --unread")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
