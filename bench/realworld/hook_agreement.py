"""Does detlint's pre-commit hook agree with a run from the repository root?

For every git work tree under ``--checkouts`` this runs, with the working directory at
the checkout's root:

1. ``root``: ``detlint check --output-format json --no-cache``;
2. ``hook``: the pre-commit hook on every file, as ``pre-commit run --all-files``
   would run it: the files ``git ls-files`` lists that match the hook's ``files:``
   regex (read from this repository's ``.pre-commit-hooks.yaml``, matched with
   ``re.search`` as pre-commit does, and, as pre-commit's default ``types: [file]``
   does, only regular files that exist: no symlinks, no submodules), named on one
   ``detlint check --force-exclude`` command line (split into chunks only when it
   would be longer than ``--max-bytes``; each chunk is then its own run, as in
   pre-commit);
3. ``sampled``: single-file commits: up to 5 files that carry root findings (test
   files with DET1xx/DET2xx findings first, then a pipeline), up to 2 files that hold
   only ``related`` locations of root findings (a conftest.py with a wrapper) and up
   to 3 dependency or config files, each checked alone as the hook would check it. A
   run is compared with the root findings in the files ``detlint check --show-files
   FILE`` says it reads (the file itself for a test file; the tests below it for a
   conftest.py; the project it widens to for a dependency or config file), or with a
   ``related`` location in one of them. Hook findings outside that scope are counted
   as ``unrelated_in_hook``. Each sampled Python file with findings is also checked as
   an editor checks it, its text on standard input (``check - --stdin-filename``):
   ``stdin_identical`` says whether that JSON, fixes included, equals the saved file's.

The root and all-files runs are also timed in the concise format the hook prints, best
of ``--repeat``: the JSON format builds every fix's edits, which can cost ten times the
rest of the run.

Findings are keyed by (code, path, line, column, message). One JSON line per
repository goes to standard output or ``--output``: the counts, up to ``--examples``
examples of each difference, each run's wall time in seconds and its exit status
(with standard error when it is 2). Nothing is written into the checkouts.

    python bench/realworld/hook_agreement.py --checkouts /tmp/rw --output /tmp/rw/hook.jsonl

``--detlint`` picks another detlint (a wrapper that runs a given commit's code, say);
the default is the one installed next to this Python.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path, PurePosixPath

import tomllib

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent.parent
HOOKS = PROJECT / ".pre-commit-hooks.yaml"
REPOS = HERE / "repos.toml"

# The dependency and config files a sampled commit may touch.
_CONFIG = ("pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml")
_LOCKS = ("poetry.lock", "uv.lock", "pdm.lock", "pixi.lock", "Pipfile.lock", "Pipfile")
_REQUIREMENTS = re.compile(r"(^|/)([^/]*requirements[^/]*\.txt|requirements(\.d)?/.*\.txt)$", re.I)
_HOLDERS = (
    "requirements",
    "requirements.d",
    "reqs",
    "deps",
    "ci",
    ".ci",
    ".github",
    "conda",
    "envs",
)
_CONDA = re.compile(r"(^|/)environment[^/]*\.ya?ml$", re.I)

Key = tuple[str, str, int, int, str]


def hook_entry() -> tuple[re.Pattern[str], list[str]]:
    """The ``files:`` regex and the ``entry`` of the detlint hook."""
    try:
        import yaml

        hooks = yaml.safe_load(HOOKS.read_text())
    except ImportError:  # ruamel.yaml where PyYAML is missing
        from ruamel.yaml import YAML

        hooks = YAML(typ="safe").load(HOOKS.read_text())
    (hook,) = [h for h in hooks if h["id"] == "detlint"]
    return re.compile(hook["files"]), hook["entry"].split()


def key(finding: dict) -> Key:
    return (
        finding["code"],
        finding["path"],
        finding["line"],
        finding["column"],
        finding["message"],
    )


def run(cmd: list[str], cwd: Path, stdin: str | None = None) -> dict:
    """Run ``cmd``; its findings (a JSON document on stdout), exit status and time."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, input=stdin)
    seconds = round(time.perf_counter() - start, 3)
    result: dict = {"rc": proc.returncode, "seconds": seconds, "findings": []}
    if proc.returncode not in (0, 1):
        result["stderr"] = proc.stderr[-4000:]
        return result
    try:
        document = json.loads(proc.stdout)
    except json.JSONDecodeError as error:
        result["stderr"] = f"not JSON ({error}): {proc.stdout[:500]} {proc.stderr[-2000:]}"
        return result
    result["findings"] = document["findings"]
    result["files_checked"] = document["files_checked"]
    if proc.stderr.strip():
        result["stderr"] = proc.stderr[-2000:]
    return result


def _best(cmd: list[str], cwd: Path, repeat: int) -> float:
    """The least wall time of ``repeat`` runs of ``cmd`` (output discarded)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return round(min(times), 3)


def chunks(args: list[str], prefix: list[str], max_bytes: int) -> list[list[str]]:
    """``args`` split as pre-commit's xargs splits them (bytes of each argument + 1)."""
    base = sum(len(os.fsencode(a)) + 1 for a in prefix)
    out: list[list[str]] = [[]]
    size = base
    for arg in args:
        length = len(os.fsencode(arg)) + 1
        if out[-1] and size + length > max_bytes:
            out.append([])
            size = base
        out[-1].append(arg)
        size += length
    return out


def hook_files(checkout: Path, files_re: re.Pattern[str]) -> tuple[list[str], dict]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=checkout, capture_output=True, check=True
    ).stdout.decode("utf-8", "surrogateescape")
    names = [name for name in listed.split("\0") if name]
    matched = [name for name in names if files_re.search(name)]
    kept, dropped = [], Counter()
    for name in matched:
        path = checkout / name
        if not os.path.lexists(path):
            dropped["missing"] += 1
        elif path.is_symlink():
            dropped["symlink"] += 1
        elif not path.is_file():
            dropped["not a file"] += 1
        else:
            kept.append(name)
    return kept, {"ls_files": len(names), "matched": len(matched), "dropped": dict(dropped)}


def compare(expected: list[dict], got: list[dict], examples: int) -> dict:
    """Counts and examples of the two finding sets' differences. A finding present in
    both at the same place whose message differs is listed as ``changed``."""
    a = {key(f): f for f in expected}
    b = {key(f): f for f in got}
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    by_place_b = {k[:4]: k for k in only_b}
    changed = [(k, by_place_b[k[:4]]) for k in only_a if k[:4] in by_place_b]
    return {
        "both": len(set(a) & set(b)),
        "only_root": len(only_a),
        "only_hook": len(only_b),
        "changed": len(changed),
        "only_root_examples": [_example(a[k]) for k in only_a[:examples]],
        "only_hook_examples": [_example(b[k]) for k in only_b[:examples]],
        "changed_examples": [
            {"root": _example(a[ka]), "hook": b[kb]["message"]} for ka, kb in changed[:examples]
        ],
    }


def _example(finding: dict) -> dict:
    return {
        "code": finding["code"],
        "path": finding["path"],
        "line": finding["line"],
        "column": finding["column"],
        "message": finding["message"],
        "related": [f"{r['path']}:{r['line']}" for r in finding.get("related", [])],
    }


def _is_test(path: str) -> bool:
    parts = PurePosixPath(path).parts
    name = parts[-1]
    return name.endswith(".py") and (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or any(p in ("tests", "test", "testing") for p in parts[:-1])
    )


def pick_findings_files(root: list[dict], hookable: set[str], limit: int) -> list[str]:
    """Files with root findings: test files with DET1xx/DET2xx findings first (most
    findings, then those with related locations elsewhere), then any other file with
    findings (pipelines), so that a CI finding's file is sampled when there is one."""
    per_file: dict[str, list[dict]] = {}
    for f in root:
        per_file.setdefault(f["path"], []).append(f)
    tests = [
        p
        for p, fs in per_file.items()
        if p in hookable and _is_test(p) and any(f["code"][:4] in ("DET1", "DET2") for f in fs)
    ]
    others = [p for p in per_file if p in hookable and p not in tests]

    def rank(p: str) -> tuple:
        fs = per_file[p]
        return (-len({f["code"] for f in fs}), -len(fs), p)

    tests.sort(key=rank)
    others.sort(key=rank)
    picked = tests[: limit - 1] if others else tests[:limit]
    picked += others[: limit - len(picked)]
    picked += [p for p in tests if p not in picked][: limit - len(picked)]
    return picked[:limit]


def pick_related_files(root: list[dict], hookable: set[str], limit: int) -> list[str]:
    """Files that hold a related location of another file's finding (a conftest.py
    with the wrapper a test uses, the tox.ini a pipeline runs) and are not configs
    (those are sampled as such): a commit that touches only them."""
    counts: Counter[str] = Counter()
    for f in root:
        for r in f.get("related", []):
            if r["path"] != f["path"] and r["path"] in hookable:
                counts[r["path"]] += 1
    ranked = sorted(counts, key=lambda p: (-counts[p], p))
    return [p for p in ranked if PurePosixPath(p).name not in _CONFIG][:limit]


def pick_config_files(files: list[str], limit: int) -> list[str]:
    """Up to ``limit`` dependency/config files, one of each role where the repository
    has one: the root project's pytest config (the shallowest pytest.ini, pyproject.toml,
    tox.ini or setup.cfg), a test requirements file (else a lock or environment file),
    and a nested project's config whose directory holds tests (a monorepo's package),
    else another dependency file."""

    def kind(p: str) -> str | None:
        name = PurePosixPath(p).name
        if name in _CONFIG:
            return "config"
        if name in _LOCKS:
            return "lock"
        if _REQUIREMENTS.search(p):
            return "requirements"
        if _CONDA.search(p):
            return "conda"
        return None

    def depth(p: str) -> int:
        return len(PurePosixPath(p).parts)

    test_dirs = {str(PurePosixPath(p).parent) for p in files if _is_test(p)}

    def holds_tests(p: str) -> bool:
        top = str(PurePosixPath(p).parent)
        return any(d.startswith(top + "/") or d == top for d in test_dirs)

    configs = sorted(
        (p for p in files if kind(p) == "config"),
        key=lambda p: (depth(p), _CONFIG.index(PurePosixPath(p).name), p),
    )

    def dep_rank(p: str) -> tuple:
        parts = PurePosixPath(p).parts
        return (
            re.search(r"(^|[^a-z])test", parts[-1].lower()) is None,  # test.txt, not doctests
            not (len(parts) == 1 or parts[0].lower() in _HOLDERS),  # the root project's
            ("requirements", "lock", "conda").index(kind(p) or "conda"),
            len(parts),
            p,
        )

    deps = sorted((p for p in files if kind(p) in ("requirements", "lock", "conda")), key=dep_rank)
    nested = [p for p in configs if depth(p) >= 2 and holds_tests(p)]
    picked: list[str] = []
    for group in (configs[:1], deps[:1], nested[:1], deps[1:], configs[1:]):
        for p in group:
            if len(picked) < limit and p not in picked:
                picked.append(p)
                break
    for p in (*deps, *configs):  # fill what is left
        if len(picked) >= limit:
            break
        if p not in picked:
            picked.append(p)
    return picked


def show_files(detlint: str, checkout: Path, name: str) -> list[str]:
    proc = subprocess.run(
        [detlint, "check", "--force-exclude", "--show-files", name],
        cwd=checkout,
        capture_output=True,
        text=True,
    )
    return [line for line in proc.stdout.splitlines() if line.strip()]


def involves(finding: dict, paths: set[str]) -> bool:
    return finding["path"] in paths or any(r["path"] in paths for r in finding.get("related", []))


def check_repo(
    checkout: Path,
    args: argparse.Namespace,
    files_re: re.Pattern[str],
    entry: list[str],
    listed: dict,
) -> dict:
    detlint = args.detlint
    json_flags = ["--output-format", "json", "--no-cache"]
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True, text=True
    ).stdout.strip()
    meta = listed.get(checkout.name, {})
    record: dict = {
        "repo": meta.get("github", checkout.name),
        "name": checkout.name,
        "commit": commit,
        "detlint": args.detlint_version,
    }
    if meta.get("commit") and meta["commit"] != commit:
        record["listed_commit"] = meta["commit"]
    seconds: dict = {}

    # 1. root
    root = run([detlint, "check", *json_flags], checkout)
    seconds["root"] = root["seconds"]
    record["root_rc"] = root["rc"]
    if "stderr" in root:
        record["root_stderr"] = root["stderr"]

    # 2. the hook on every file
    files, listing = hook_files(checkout, files_re)
    record["hook_files"] = listing | {"passed": len(files)}
    prefix = [detlint, *entry[1:], *json_flags]
    parts = chunks(files, prefix, args.max_bytes)
    record["hook_chunks"] = len(parts)
    hook_findings: dict[Key, dict] = {}
    hook_rcs, hook_seconds, hook_errors = [], 0.0, []
    for part in parts:
        result = run([*prefix, *part], checkout)
        hook_rcs.append(result["rc"])
        hook_seconds += result["seconds"]
        if "stderr" in result:
            hook_errors.append(result["stderr"])
        for f in result["findings"]:
            hook_findings.setdefault(key(f), f)
    seconds["hook_all_files"] = round(hook_seconds, 3)
    record["hook_rc"] = hook_rcs if len(hook_rcs) > 1 else hook_rcs[0]
    if hook_errors:
        record["hook_stderr"] = hook_errors
    diff = compare(root["findings"], list(hook_findings.values()), args.examples)
    record["root_findings"] = len({key(f) for f in root["findings"]})
    record["hook_findings"] = len(hook_findings)
    record.update(
        {k: diff[k] for k in ("both", "only_root", "only_hook", "changed")},
        examples={k: v for k, v in diff.items() if k.endswith("_examples") and v},
    )
    named = set(files)
    # Root findings in files the hook does not pass, and hook findings on them.
    # The hook as pre-commit runs it prints the concise format, and the JSON format
    # also builds every fix's edits (libcst), which can dominate its time: time the
    # concise runs too, best of --repeat.
    if args.repeat > 0:
        concise_flags = ["--no-cache"]
        seconds["root_concise"] = _best([detlint, "check", *concise_flags], checkout, args.repeat)
        seconds["hook_all_files_concise"] = round(
            sum(
                _best([detlint, *entry[1:], *concise_flags, *part], checkout, args.repeat)
                for part in parts
            ),
            3,
        )
    record["root_findings_outside_hook_files"] = sorted(
        {f["path"] for f in root["findings"] if f["path"] not in named}
    )[: args.examples]

    # 3. single-file commits
    sampled = []
    for kind, names in (
        ("findings", pick_findings_files(root["findings"], named, args.sample_files)),
        ("related", pick_related_files(root["findings"], named, args.sample_related)),
        ("config", pick_config_files(files, args.sample_configs)),
    ):
        for name in names:
            # A test file's run reads that file; a conftest.py's, the tests below it; a
            # dependency or config file's, the project it configures.
            reads = set(show_files(detlint, checkout, name)) | {name}
            expected = [f for f in root["findings"] if involves(f, reads)]
            result = run([*prefix, name], checkout)
            diff = compare(expected, result["findings"], args.examples)
            # A finding that involves none of the files read.
            unrelated = [_example(f) for f in result["findings"] if not involves(f, reads)]
            entry_record = _sample_record(kind, name, result, diff, unrelated, args)
            entry_record["show_files"] = len(reads)
            if kind == "findings" and name.endswith(".py"):
                entry_record["stdin_identical"] = stdin_agrees(detlint, checkout, name)
            sampled.append(entry_record)
    record["sampled_runs"] = len(sampled)
    record["sampled_disagreements"] = sum(1 for s in sampled if not s["agrees"])
    record["sampled"] = sampled
    seconds["sampled"] = {s["file"]: s["seconds"] for s in sampled}
    record["seconds"] = seconds
    return record


def stdin_agrees(detlint: str, checkout: Path, name: str) -> bool:
    """An editor's run on the file's text (``check - --stdin-filename``) gives the same
    JSON findings, fixes and their byte offsets included, as a run on the saved file."""
    flags = ["--output-format", "json", "--no-cache", "--unsafe-fixes"]
    saved = run([detlint, "check", *flags, name], checkout)
    text = (checkout / name).read_text(encoding="utf-8")
    piped = run([detlint, "check", *flags, "-", "--stdin-filename", name], checkout, stdin=text)
    return saved["rc"] in (0, 1) and saved == {**piped, "seconds": saved["seconds"]}


def _sample_record(
    kind: str,
    name: str,
    result: dict,
    diff: dict,
    unrelated: list[dict],
    args: argparse.Namespace,
) -> dict:
    record = {
        "kind": kind,
        "file": name,
        "rc": result["rc"],
        "seconds": result["seconds"],
        "files_checked": result.get("files_checked"),
        "expected": diff["both"] + diff["only_root"],
        "got": diff["both"] + diff["only_hook"],
        "both": diff["both"],
        "only_root": diff["only_root"],
        "only_hook": diff["only_hook"],
        "unrelated_in_hook": len(unrelated),
        "agrees": diff["only_root"] == 0 and diff["only_hook"] == 0 and result["rc"] in (0, 1),
    }
    if "stderr" in result:
        record["stderr"] = result["stderr"]
    for k in ("only_root_examples", "only_hook_examples", "changed_examples"):
        if diff[k]:
            record[k] = diff[k]
    if unrelated:
        record["unrelated_examples"] = unrelated[: args.examples]
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--checkouts",
        type=Path,
        required=True,
        help="a directory of git work trees, one per repository",
    )
    parser.add_argument(
        "--detlint",
        default=str(Path(sys.executable).with_name("detlint")),
        help="the detlint executable (default: the one next to this Python)",
    )
    parser.add_argument("--output", type=Path, help="write the JSON lines here (default: stdout)")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        help="check only this checkout (its directory name); repeat for more",
    )
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=100_000,
        help="split the all-files command line above this many bytes",
    )
    parser.add_argument("--sample-files", type=int, default=5)
    parser.add_argument("--sample-configs", type=int, default=3)
    parser.add_argument(
        "--sample-related",
        type=int,
        default=2,
        help="files that hold only related locations of root findings",
    )
    parser.add_argument("--examples", type=int, default=10)
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="time the concise root and all-files runs this many times (best kept); 0 skips them",
    )
    args = parser.parse_args(argv)

    files_re, entry = hook_entry()
    version = subprocess.run([args.detlint, "--version"], capture_output=True, text=True)
    args.detlint_version = f"{args.detlint}: {version.stdout.strip() or version.stderr.strip()}"
    listed = {r["name"]: r for r in tomllib.loads(REPOS.read_text())["repo"]}
    checkouts = sorted(
        p
        for p in args.checkouts.iterdir()
        if (p / ".git").exists() and (not args.only or p.name in args.only)
    )
    out = args.output.open("w") if args.output else sys.stdout
    try:
        for checkout in checkouts:
            record = check_repo(checkout, args, files_re, entry, listed)
            out.write(json.dumps(record) + "\n")
            out.flush()
            print(
                f"{record['name']}: root {record['root_findings']} hook {record['hook_findings']}"
                f" both {record['both']} only-root {record['only_root']}"
                f" only-hook {record['only_hook']}; sampled {record['sampled_runs']},"
                f" {record['sampled_disagreements']} disagree;"
                f" json: {record['seconds']['root']}s root, {record['seconds']['hook_all_files']}s"
                f" hook; concise: {record['seconds'].get('root_concise')}s root,"
                f" {record['seconds'].get('hook_all_files_concise')}s hook"
                f" ({record['hook_chunks']} chunk(s))",
                file=sys.stderr,
            )
    finally:
        if args.output:
            out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
