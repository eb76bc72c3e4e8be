"""Apply detlint's fixes to scratch copies of the real checkouts and check what they did.

For each checkout present under ``--checkouts`` (the ``[[repo]]`` names of
``repos.toml``), the tree is copied to ``--scratch`` and there:

- ``check --output-format json --unsafe-fixes`` lists every fix with its edits,
  and every fix that could not be made, with why;
- ``check --diff --unsafe-fixes`` is written to ``<scratch>/<name>.diff``, to read;
- ``check --fix --unsafe-fixes`` is run, then each changed file must parse again,
  a second ``--fix`` must change nothing, and the fixed findings must be gone.

The verdicts of the diffs that were read are in ``fixes.jsonl``: one fix per line,
its repository, code, path, line, message, ``verdict`` (right or wrong) and a note.
This script prints, per repository, the fixes made and declined and whether every
property held, and with ``--verdicts`` the fixes no verdict covers.

    python bench/realworld/fixes.py --checkouts /tmp/rw --scratch /tmp/fixrw [NAME ...]

Exit status: 1 when a property fails on any repository, 0 otherwise.
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

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent.parent))

from detlint.fixes.source_text import SourceText  # noqa: E402
from detlint.fixes.validate import parse_problem  # noqa: E402

if sys.version_info >= (3, 11):
    import tomllib
else:  # detlint depends on tomli there
    import tomli as tomllib


def _detlint(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "detlint", "check", *args]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)


def _snapshot(root: Path) -> dict[str, bytes]:
    found = {}
    for directory, _, files in os.walk(root):
        for name in files:
            path = Path(directory, name)
            if not path.is_symlink():
                found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def check_repository(
    name: str, source: Path, scratch: Path
) -> tuple[bool, list[dict[str, object]]]:
    """Copy, fix and check one checkout; whether every property held, and its fixes."""
    root = scratch / name
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(source, root, symlinks=True)
    report = json.loads(_detlint(root, "--output-format", "json", "--unsafe-fixes").stdout)
    fixes = [f for f in report["findings"] if f.get("fix")]
    declined = [f for f in report["findings"] if "fix_unavailable" in f]
    before = _snapshot(root)
    (scratch / f"{name}.diff").write_text(_detlint(root, "--diff", "--unsafe-fixes").stdout)
    _detlint(root, "--fix", "--unsafe-fixes")
    after = _snapshot(root)
    changed = [path for path in after if after[path] != before.get(path)]
    broken = [
        path
        for path in changed
        if parse_problem(path, SourceText.decode(path, after[path]).text) is not None
    ]
    _detlint(root, "--fix", "--unsafe-fixes")
    idempotent = _snapshot(root) == after
    left = Counter(
        (f["code"], f["path"])
        for f in json.loads(_detlint(root, "--output-format", "json").stdout)["findings"]
    )
    planned = Counter((f["code"], f["path"]) for f in fixes)
    not_fixed = [key for key in planned if key[0] != "DET201" and left[key] >= planned[key]]
    ok = not broken and idempotent and not not_fixed
    print(
        f"{name}: {len(fixes)} fixes {dict(Counter(f['code'] for f in fixes))}, "
        f"{len(declined)} declined, {len(changed)} files changed; "
        f"{'every property held' if ok else 'FAILED'}"
    )
    for path in broken:
        print(f"  does not parse after --fix: {path}")
    if not idempotent:
        print("  a second --fix changed files")
    for code, path in not_fixed:
        print(f"  {code} in {path} still reported")
    for finding in declined:
        print(
            f"  declined {finding['code']} {finding['path']}:{finding['line']}: "
            f"{finding['fix_unavailable']}"
        )
    return ok, fixes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkouts", type=Path, required=True)
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--verdicts", action="store_true", help="list fixes no verdict covers")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    repos = tomllib.loads((HERE / "repos.toml").read_text())["repo"]
    names = args.names or [repo["name"] for repo in repos]
    read = set()
    for line in (HERE / "fixes.jsonl").read_text().splitlines():
        entry = json.loads(line)
        read.add((entry["repo"], entry["code"], entry["path"], entry["line"]))
    args.scratch.mkdir(parents=True, exist_ok=True)
    status = 0
    for name in names:
        source = args.checkouts / name
        if not source.is_dir():
            continue
        ok, fixes = check_repository(name, source, args.scratch)
        status |= not ok
        if args.verdicts:
            for fix in fixes:
                if (name, fix["code"], fix["path"], fix["line"]) not in read:
                    print(f"  unread {fix['code']} {fix['path']}:{fix['line']}")
    return status


if __name__ == "__main__":
    sys.exit(main())
