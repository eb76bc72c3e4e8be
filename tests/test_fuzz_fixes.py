"""Mutation fuzzing of the fix builder: ``detlint check --fix --unsafe-fixes`` on a
repository holding a mutant of a file with fixable findings.

The corpus is the fix tests' own inputs (tests/fixtures/fixes/): every Python case's
``before.py``, and every CI case's pipeline or config file, each placed where detlint
reads it. Each round mutates one with an edit that stresses a fix (deep nesting, long
call and ``+`` chains, CRLF line ends, tabs, comments inside a marker or between keys,
non-ASCII text, many markers in one file) or with the byte edits of the reader fuzzing
(test_fuzz_readers.py), and then fixes the repository twice. Every round must:

- end each run with exit status 0 or 1, never an internal error or a traceback; a
  round whose mutant nests deeply or chains long, where a native parser could crash
  or hang, runs detlint as a subprocess first, which must not end by a signal or time
  out. A mutated config file may end in a one-line usage error (exit 2), as the
  config fuzzing allows, and then nothing is written;
- leave every file detlint offered no fix for byte for byte as it was, and create or
  remove none;
- leave every file it wrote parsing (``ast``, YAML, TOML, INI) when it parsed before;
- be done after one ``--fix``: a second run changes no byte.

The two targets share one budget, ``DETLINT_FUZZ_SECONDS`` (half each; ``.ci/run``
sets 30, so they add 30 s to CI), after at least ``MIN_ROUNDS`` rounds each. Round
``n`` is mutated with the seed ``n``; a failure names it and keeps the mutant.
"""

from __future__ import annotations

import ast
import configparser
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from repo_expectations import git_repository
from ruamel.yaml import YAML
from test_fuzz_readers import mutate as garble

from detlint.cli.main import cli
from detlint.readers.project.discovery import clear_cache

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).parents[1]
CASES = ROOT / "tests" / "fixtures" / "fixes"
MIN_ROUNDS = 20
BUDGET = float(os.environ.get("DETLINT_FUZZ_SECONDS", "3")) / 2  # per target
RUN_SECONDS = 120  # one detlint run on one small file: far more is a hang
CAPPED = "fixable with the `--fix` option"  # what --fix says when it stopped early
# Mutants are cut to this size: the byte edits can repeat a piece into a file of
# hundreds of kilobytes, which takes minutes to check (not what this fuzzing is for).
MAX_BYTES = 64_000
DEEP = 0.15  # the share of rounds that nest deeply or chain long (run as a subprocess)
CONFIGS = (".toml", ".ini", ".cfg")

Mutation = Callable[[bytes, random.Random], bytes | None]


# ----------------------------------------------------------------- mutations


def _eol(data: bytes) -> bytes:
    return b"\r\n" if b"\r\n" in data else b"\n"


def _line_starts(data: bytes, pattern: bytes) -> list[int]:
    return [m.start() for m in re.finditer(pattern, data, re.MULTILINE)]


def _insert_line(data: bytes, rng: random.Random, pattern: bytes, line: bytes) -> bytes | None:
    """``line`` inserted before a random line matching ``pattern``, with its indentation."""
    starts = _line_starts(data, pattern)
    if not starts:
        return None
    at = rng.choice(starts)
    indent = re.match(rb"[ \t]*", data[at:]).group()  # type: ignore[union-attr]
    return data[:at] + indent + line + _eol(data) + data[at:]


def line_ends(data: bytes, rng: random.Random) -> bytes:
    """CRLF throughout, LF throughout, or CRLF from a random point on (mixed)."""
    lf = data.replace(b"\r\n", b"\n")
    kind = rng.randrange(3)
    if kind == 0:
        return lf.replace(b"\n", b"\r\n")
    if kind == 1:
        return lf
    cut = rng.randint(0, len(lf))
    return lf[:cut] + lf[cut:].replace(b"\n", b"\r\n")


def tabs(data: bytes, rng: random.Random) -> bytes:
    """Indentation by tabs: every four leading spaces of every line, or of one line."""
    lines = data.split(b"\n")
    chosen = range(len(lines)) if rng.random() < 0.5 else [rng.randrange(len(lines))]
    for index in chosen:
        line = lines[index]
        stripped = line.lstrip(b" ")
        width = len(line) - len(stripped)
        lines[index] = b"\t" * (width // 4) + b" " * (width % 4) + stripped
    return b"\n".join(lines)


UNICODE = (
    "é ✓ \U0001d518 \ufb01 Ω".encode(),
    "\u200b\u200d".encode(),
    "日本語のテスト".encode(),
    "\u2028".encode(),
    "e\u0301".encode(),
)


def unicode_text(data: bytes, rng: random.Random) -> bytes | None:
    """Non-ASCII text before a marker, in its strings and names, or a BOM."""
    text = rng.choice(UNICODE)
    kind = rng.randrange(4)
    if kind == 0:
        return data if data.startswith(b"\xef\xbb\xbf") else b"\xef\xbb\xbf" + data
    if kind == 1:
        return _insert_line(data, rng, rb"^[ \t]*[@\w-]", b"# " + text)
    if kind == 2:
        found = list(re.finditer(rb"""(reason=|label: |name: |- )["']?""", data))
        if not found:
            return None
        at = rng.choice(found).end()
        return data[:at] + text + b" " + data[at:]
    return data.replace(b"test_", b"test_\xc3\xa9", rng.randint(1, 3))


def many(counts: tuple[int, ...]) -> Mutation:
    """The file's own markers many times: copies of its lines, each copy's test names
    and job names made its own."""

    def copies(data: bytes, rng: random.Random) -> bytes:
        body = data.removeprefix(b"\xef\xbb\xbf")
        body = re.sub(rb"^from __future__ import.*$", b"", body, flags=re.MULTILINE)
        made = [data]
        for index in range(rng.choice(counts)):
            suffix = str(index).encode()
            copy = re.sub(rb"\b(test_?|Test)(\w*)", rb"\1\2_" + suffix, body)
            made.append(re.sub(rb"^([\w.-]+):", rb"\1_" + suffix + b":", copy, flags=re.M))
        return _eol(data).join(made)

    return copies


# Python


def py_nest(data: bytes, rng: random.Random) -> bytes | None:
    """Thousands of parentheses at the top level or in a marker's argument."""
    depth = rng.choice((30, 199, 250, 2000, 5000))
    deep = b"(" * depth + b"1" + b")" * depth
    arguments = list(re.finditer(rb"\b(reruns|max_runs|min_passes|reason|condition)=", data))
    if arguments and rng.random() < 0.5:
        at = rng.choice(arguments).end()
        return data[:at] + deep + b" or " + data[at:]
    return _insert_line(data, rng, rb"^(?:@|def |class |import |from |pytestmark)", b"x = " + deep)


def py_chain(data: bytes, rng: random.Random) -> bytes | None:
    """A long call, attribute, ``+`` or string chain in a test or at the top level."""
    length = rng.choice((50, 300, 1000, 10_000))
    chain = rng.choice(
        (b"a" + b".b()" * length, b"1" + b" + 1" * length, b"f" + b"(1)" * length, b'"a"' * length)
    )
    if rng.random() < 0.5:
        return _insert_line(data, rng, rb"^(?:@|def |class |import |pytestmark)", b"x = " + chain)
    bodies = list(re.finditer(rb"^([ \t]*)def test\w*\(.*\):[ \t]*\r?\n([ \t]+)", data, re.M))
    if not bodies:
        return None
    body = rng.choice(bodies)
    return data[: body.end()] + b"x = " + chain + _eol(data) + body.group(2) + data[body.end() :]


def py_comments(data: bytes, rng: random.Random) -> bytes | None:
    """A comment after a marker's opening parenthesis or comma, or between decorators."""
    openings = list(re.finditer(rb"(?:mark\.\w+|flaky|pytest\.param)\(|, ", data))
    if openings and rng.random() < 0.7:
        at = rng.choice(openings).end()
        return data[:at] + b'  # note (a "paren", a comma,)' + _eol(data) + b"    " + data[at:]
    return _insert_line(data, rng, rb"^[ \t]*@", b"# between the decorators")


PYTHON_DEEP: tuple[Mutation, ...] = (py_nest, py_chain)
PYTHON: tuple[Mutation, ...] = (line_ends, tabs, py_comments, unicode_text, many((3, 30, 200)))


# YAML (and the config files of the CI cases)

_YAML_KEY = rb"^[ \t]*(?:- )?[\w-]+:"


def yaml_nest(data: bytes, rng: random.Random) -> bytes | None:
    """A deep flow collection or a deep block mapping next to a key."""
    depth = rng.choice((10, 100, 1000, 5000))
    if rng.random() < 0.5:
        return _insert_line(data, rng, _YAML_KEY, b"deep: " + b"[" * depth + b"]" * depth)
    levels = min(depth, 300)
    eol = _eol(data)
    block = b"deep:" + b"".join(eol + b"  " * level + b"k:" for level in range(1, levels))
    return _insert_line(data, rng, _YAML_KEY, block + b" 1")


def yaml_chain(data: bytes, rng: random.Random) -> bytes | None:
    """A command made very long: many more commands or options after pytest's."""
    length = rng.choice((10, 300, 3000))
    piece = rng.choice((b" && echo x", b" -k a", b" || true", b" --reruns 1"))
    found = list(re.finditer(rb"pytest[^\r\n'\"]*", data))
    if not found:
        return None
    at = rng.choice(found).end()
    return data[:at] + piece * length + data[at:]


def yaml_comments(data: bytes, rng: random.Random) -> bytes | None:
    """A comment line between keys, after a value, or inside a flow collection."""
    kind = rng.randrange(3)
    if kind == 0:
        return _insert_line(data, rng, _YAML_KEY, b"# between the keys: soft_fail")
    if kind == 1:
        ends = [m.start() for m in re.finditer(rb"\r?\n", data)]
        if not ends:
            return None
        at = rng.choice(ends)
        return data[:at] + b"  # after: --reruns 2" + data[at:]
    openings = [m.end() for m in re.finditer(rb"[{\[]", data)]
    if not openings:
        return None
    at = rng.choice(openings)
    return data[:at] + b" # inside" + _eol(data) + b"   " + data[at:]


YAML_DEEP: tuple[Mutation, ...] = (yaml_nest, yaml_chain)
# Not hundreds of jobs: each fix of a pipeline re-reads the whole file, so a file with
# hundreds of fixes takes minutes to check.
YAML_MUTATIONS: tuple[Mutation, ...] = (
    line_ends,
    tabs,
    yaml_comments,
    unicode_text,
    many((3, 10, 30)),
)


def mutated(
    data: bytes, rng: random.Random, deep: tuple[Mutation, ...], plain: tuple[Mutation, ...]
) -> tuple[bytes, bool]:
    """A mutant and whether it nests deeply or chains long; a mutation that finds nothing
    to act on leaves the byte edits of the reader fuzzing to act."""
    if rng.random() < DEEP:
        result = rng.choice(deep)(data, rng)
        if result is not None:
            return result, True
    elif rng.random() < 0.8:
        result = rng.choice(plain)(data, rng)
        if result is not None:
            return result, False
    return garble(data, rng), False


# ----------------------------------------------------------------- the rounds

A_TEST = b"def test_a():\n    assert True\n"
# Where a CI case's config file goes, by the case's name.
CONFIG_PLACES = {
    "ini_tox": "tox.ini",
    "ini": "pytest.ini",
    "cfg": "setup.cfg",
    "pytest_toml": "pytest.toml",
    "toml": "pyproject.toml",
}
PIPELINE_PLACES = {"gh": ".github/workflows/ci.yml", "gl": ".gitlab-ci.yml"}


def python_layout(seed: Path) -> tuple[str, dict[str, bytes]]:
    """Where a Python case's mutant goes, and the files beside it (its conftest)."""
    other = seed.with_name("conftest_before.py")
    beside = {"tests/conftest.py": other.read_bytes()} if other.exists() else {}
    return "tests/test_marked.py", beside


def ci_layout(seed: Path) -> tuple[str, dict[str, bytes]]:
    """A pipeline where its CI system reads it, a config file where pytest does, and
    a test for their commands to run."""
    case = seed.parent.name
    if seed.suffix == ".yml":
        place = PIPELINE_PLACES.get(case[:2], ".buildkite/pipeline.yml")
    else:
        place = next(path for prefix, path in CONFIG_PLACES.items() if case.startswith(prefix))
    return place, {"tests/test_a.py": A_TEST}


def parses(path: str, data: bytes) -> bool:
    """Whether the file's own language reads it, as read independently of detlint."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ruamel's about reused anchors
        return _parses(path, data)


def _parses(path: str, data: bytes) -> bool:
    try:
        if path.endswith(".py"):
            ast.parse(data)
        elif path.endswith(".yml"):
            list(YAML(typ="safe", pure=True).load_all(data))
        elif path.endswith(".toml"):
            tomllib.loads(data.decode("utf-8"))
        else:
            parser = configparser.ConfigParser(interpolation=None)
            parser.read_string(data.decode("utf-8-sig"))
    except Exception:  # any refusal: it does not parse
        return False
    return True


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }


def in_process(*args: str) -> tuple[int, str, str]:
    """``detlint check`` in this process, in the current directory: status, standard
    output, and everything it printed."""
    clear_cache()
    result = CliRunner().invoke(
        cli, ["check", "--no-cache", *args, "."], prog_name="detlint", catch_exceptions=True
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    return result.exit_code, result.stdout, result.output


def as_subprocess(*args: str) -> tuple[int, str, str]:
    """``python -m detlint check``: a native parser's crash ends it by a signal, a hang
    by the timeout, rather than ending the test session."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "detlint", "check", "--no-cache", *args, "."],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=RUN_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        raise AssertionError(
            f"detlint check {' '.join(args)}: no end in {RUN_SECONDS} s"
        ) from error
    assert done.returncode >= 0, f"ended by signal {-done.returncode}: {done.stderr[-3000:]}"
    return done.returncode, done.stdout, done.stdout + done.stderr


def ended_well(run: tuple[int, str, str], config: bool) -> bool:
    """Exit 0 or 1 with no traceback; a config file may be refused in one line (exit
    2). Returns whether the run went on to lint (and so could fix)."""
    status, _, output = run
    assert "Traceback" not in output, output[-3000:]
    assert "internal error" not in output, output[-3000:]
    if status == 2 and config:
        assert len(output.strip().splitlines()) == 1, output[-3000:]
        return False
    assert status in (0, 1), f"exit {status}: {output[-3000:]}"
    return True


def offered(run: tuple[int, str, str]) -> set[str]:
    """The files the fixes of a JSON report would edit."""
    findings = json.loads(run[1])["findings"]
    return {edit["path"] for f in findings if f.get("fix") for edit in f["fix"]["edits"]}


def fix_round(root: Path, place: str, deep: bool) -> None:
    """One mutant: what a fix may change, then ``--fix`` twice."""
    config = place.endswith(CONFIGS)
    before = snapshot(root)
    report = ("--unsafe-fixes", "--output-format", "json")
    first = as_subprocess(*report) if deep else in_process(*report)
    if not ended_well(first, config):
        assert in_process("--fix", "--unsafe-fixes")[0] == 2
        assert snapshot(root) == before
        return
    may_change = offered(first)
    fixed = in_process("--fix", "--unsafe-fixes")
    assert ended_well(fixed, config)
    after = snapshot(root)
    assert sorted(after) == sorted(before), "--fix created or removed a file"
    for path, data in after.items():
        if data == before[path]:
            continue
        assert path in may_change, f"--fix changed {path}, for which no fix was offered"
        if parses(path, before[path]):
            assert parses(path, data), f"--fix left {path} not parsing"
    again = in_process("--fix", "--unsafe-fixes")
    assert ended_well(again, config)
    changed = [path for path, data in snapshot(root).items() if data != after[path]]
    # --fix stops after MAX_ROUNDS rounds and then says a fix is left ("[*] 1 fixable"):
    # only then may a second run go on (DET431's fix drops one `|| true` of a chain a round).
    if CAPPED not in fixed[2]:
        assert not changed, f"a second --fix changed {changed}"


def rounds(name: str) -> Iterator[tuple[int, random.Random]]:
    """Seeded rounds: MIN_ROUNDS, then more until the target's budget is spent."""
    deadline = time.monotonic() + BUDGET
    seed = 0
    while seed < MIN_ROUNDS or time.monotonic() < deadline:
        yield seed, random.Random(f"{name}-{seed}")
        seed += 1


def fuzz_fixes(
    name: str,
    seeds: list[Path],
    layout: Callable[[Path], tuple[str, dict[str, bytes]]],
    mutations: tuple[tuple[Mutation, ...], tuple[Mutation, ...]],
    tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> int:
    """Round after round, a repository holding one mutant (and the files beside it) is
    fixed; a failure is re-raised with its seed, and the mutant kept."""
    (tmp / "repo").mkdir()
    root = git_repository(tmp / "repo", {})
    monkeypatch.chdir(root)
    done = 0
    for seed, rng in rounds(name):
        source = rng.choice(seeds)
        place, beside = layout(source)
        mutant, deep = mutated(source.read_bytes(), rng, *mutations)
        mutant = mutant[:MAX_BYTES]
        for path in root.iterdir():
            if path.name != ".git":
                shutil.rmtree(path) if path.is_dir() else path.unlink()
        for relative, data in {**beside, place: mutant}.items():
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_bytes(data)
        try:
            fix_round(root, place, deep)
        except BaseException as error:
            kept = tmp / f"failing-{name}-{seed}-{Path(place).name}"
            kept.write_bytes(mutant)
            raise AssertionError(
                f"{name} seed {seed} ({source.parent.name}, as {place}): {kept}"
            ) from error
        done += 1
    return done


def test_fuzz_python_fixes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = sorted(CASES.glob("python/*/before.py"))
    assert len(seeds) > 50
    mutations = (PYTHON_DEEP, PYTHON)
    assert (
        fuzz_fixes("python", seeds, python_layout, mutations, tmp_path, monkeypatch) >= MIN_ROUNDS
    )


def test_fuzz_ci_and_config_fixes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = sorted(path for path in CASES.glob("ci/*/before.*") if path.suffix != ".sh")
    assert len(seeds) > 40
    mutations = (YAML_DEEP, YAML_MUTATIONS)
    assert fuzz_fixes("ci", seeds, ci_layout, mutations, tmp_path, monkeypatch) >= MIN_ROUNDS
