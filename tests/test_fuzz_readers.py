"""Mutation fuzzing of the readers of files a repository or a CI run hands detlint: the
evidence readers (JUnit XML, pytest report logs) and the config readers (pyproject.toml,
pytest.ini, setup.cfg, tox.ini, detlint.toml).

Real files from the fixtures are the corpus; each round mutates one of them (slices cut,
repeated, swapped, bytes flipped, hostile pieces spliced in: deep nesting, unknown
encodings, DTDs and entities, NUL bytes, overlong lines) and reads it. Every round must
end in a result or a one-line problem, never an exception or an internal error.

Each target runs for at least ``MIN_ROUNDS`` rounds and then until its time budget,
``DETLINT_FUZZ_SECONDS`` (``.ci/run`` sets it higher than the default). Round ``n`` is
mutated with the seed ``n``, so a failure names the seed that reproduces it.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from click.testing import CliRunner
from repo_expectations import git_repository

from detlint.cli.main import cli
from detlint.evidence.reports import Build, ReportProblem
from detlint.evidence.reports.reading import read_reports

TESTS = Path(__file__).parent
FIXTURES = TESTS / "fixtures"
MIN_ROUNDS = 40
BUDGET = float(os.environ.get("DETLINT_FUZZ_SECONDS", "3"))

# Pieces that broke, or could break, a reader: spliced in at a random place.
HOSTILE = (
    b"[" * 3000 + b"]" * 3000,
    b"{" * 3000,
    b'{"a": ' * 2000,
    b'<?xml version="1.0" encoding="bogus"?>',
    b'<?xml version="1.0" encoding="utf-16"?>',
    b'<!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>',
    b'<!DOCTYPE t SYSTEM "file:///etc/passwd">',
    b"&b;&a;&lt;&#0;&#xD800;",
    b"<a>" * 2000,
    b"\x00",
    b"\xff\xfe",
    b"\xef\xbb\xbf",
    b"\r\n\r",
    b"x" * 100_000,
    b"\\\n",
    b"'''\"\"\"",
    b"= [\n",
    b"[tool.detlint]\nselect = [",
    b"[pytest]\naddopts = --reruns 99999999999999999999\n",
    b"[tool.pytest.ini_options]\naddopts = [1, {a = 2}]\n",
    b"${{ }}",
    b'"$report_type": "TestReport", "nodeid": 1',
    b"1e99999",
    b"NaN",
)


ENCODINGS = (b"bogus", b"utf-16", b"utf-32", b"latin-1", b"ascii", b"utf-7", b"cp1252", b"")


def well_placed(data: bytes, rng: random.Random) -> bytes:
    """A hostile piece where the format allows it, so that the reader parses it rather
    than rejecting the file at once: deep nesting inside an element, a JSON object or a
    TOML value, another encoding declared, a DTD before the root."""
    depth = rng.choice((10, 300, 3000, 100_000))
    lines = data.split(b"\n")
    at = rng.randrange(len(lines))
    if data.lstrip().startswith(b"<"):
        kind = rng.randrange(3)
        if kind == 0:
            body = data.split(b"?>", 1)[-1] if data.startswith(b"<?xml") else data
            return b'<?xml version="1.0" encoding="' + rng.choice(ENCODINGS) + b'"?>' + body
        if kind == 1:
            return rng.choice(HOSTILE[5:7]) + b"\n" + data.split(b"?>", 1)[-1]
        cut = data.find(b">", data.find(b"<test")) + 1
        return data[:cut] + b"<x>" * depth + b"</x>" * depth + data[cut:]
    if data.lstrip().startswith(b"{"):
        lines[at] = lines[at].replace(b"{", b'{"k": ' + b"[" * depth + b"]" * depth + b", ", 1)
        return b"\n".join(lines)
    value = rng.choice((b"[" * depth + b"]" * depth, b"{a = " * depth + b"1" + b"}" * depth))
    lines.insert(at, b"deep = " + value)
    return b"\n".join(lines)


def mutate(data: bytes, rng: random.Random) -> bytes:
    """A well-placed hostile piece, or one to four random edits of ``data``."""
    if rng.random() < 0.3:
        return well_placed(data, rng)
    for _ in range(rng.randint(1, 4)):
        size = len(data)
        start = rng.randint(0, size)
        end = rng.randint(start, min(size, start + rng.choice((1, 8, 64, 1024))))
        kind = rng.randrange(7)
        if kind == 0:
            data = data[:start] + data[end:]  # cut
        elif kind == 1:
            data = data[:end] + data[start:end] * rng.randint(2, 50) + data[end:]  # repeat
        elif kind == 2:
            data = data[:start] + rng.choice(HOSTILE) + data[start:]
        elif kind == 3 and size:
            at = rng.randrange(size)
            data = data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]
        elif kind == 4:
            data = data[:start]  # a file cut short
        elif kind == 5:
            other = rng.randint(0, size)
            piece = data[start:end]
            data = data[:start] + data[end:]
            data = data[:other] + piece + data[other:]  # move
        else:
            data = data[:start] + rng.randbytes(rng.randint(1, 16)) + data[start:]
    return data


def rounds(name: str) -> Iterator[tuple[int, random.Random]]:
    """Seeded rounds: MIN_ROUNDS, then more until the budget is spent."""
    deadline = time.monotonic() + BUDGET
    seed = 0
    while seed < MIN_ROUNDS or time.monotonic() < deadline:
        yield seed, random.Random(f"{name}-{seed}")
        seed += 1


def corpus(*patterns: str) -> list[Path]:
    files = sorted({path for pattern in patterns for path in FIXTURES.rglob(pattern)})
    assert files, patterns
    return files


def fuzz(
    name: str,
    seeds: list[Path],
    tmp: Path,
    target: Callable[[Path], None],
    place: Callable[[Path], Path],
) -> int:
    """Mutate a seed file into ``place(seed)`` and call ``target`` on it, round after
    round; a failure is re-raised with its seed and the file kept for reproducing it."""
    done = 0
    for seed, rng in rounds(name):
        source = rng.choice(seeds)
        path = place(source)
        path.write_bytes(mutate(source.read_bytes(), rng))
        try:
            target(path)
        except BaseException as error:
            kept = tmp / f"failing-{name}-{seed}{source.suffix}"
            shutil.copyfile(path, kept)
            raise AssertionError(f"{name} seed {seed} ({source.name}): {kept}") from error
        done += 1
    return done


def read_one(path: Path) -> None:
    builds, problems = read_reports([path], jobs=1)
    assert len(builds) + len(problems) == 1
    for build in builds:
        assert isinstance(build, Build)
        assert all(test.attempts >= 1 for test in build.tests)
        assert all(0 <= test.failed_attempts <= test.attempts for test in build.tests)
    for problem in problems:
        assert isinstance(problem, ReportProblem)
        assert "\n" not in problem.message


def test_fuzz_evidence_readers(tmp_path: Path) -> None:
    """JUnit files and report logs, each read alone; then every mutant of the last
    rounds together by ``detlint evidence``, which must report on them and go on."""
    seeds = corpus("*.xml", "build-*.jsonl")
    reports = tmp_path / "reports"
    reports.mkdir()
    count = 0

    def place(source: Path) -> Path:
        nonlocal count
        count += 1
        return reports / f"{count % 200:03d}{source.suffix}"

    done = fuzz("evidence", seeds, tmp_path, read_one, place)
    assert done >= MIN_ROUNDS
    result = CliRunner().invoke(cli, ["evidence", str(reports)], prog_name="detlint")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == 0, result.output
    assert "internal error" not in result.output


CONFIG_NAMES = ("pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini", "detlint.toml")


def test_fuzz_config_readers(tmp_path: Path) -> None:
    """A small project whose config files are mutated one at a time and checked: the
    run ends in findings or a one-line usage error, never an internal error."""
    seeds = corpus(*CONFIG_NAMES)
    repo = tmp_path / "repo"
    git_repository(
        repo,
        {
            "tests/test_a.py": (
                "import pytest\n\n\n@pytest.mark.flaky(reruns=2)\ndef test_a():\n    assert 1\n"
            ),
        },
    )
    runner = CliRunner()

    def place(source: Path) -> Path:
        for name in CONFIG_NAMES:
            (repo / name).unlink(missing_ok=True)
        return repo / source.name

    def check(path: Path) -> None:
        result = runner.invoke(cli, ["check", "--no-cache", str(repo)], prog_name="detlint")
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert result.exit_code in (0, 1, 2), result.output
        assert "internal error" not in result.output, result.output
        if result.exit_code == 2:  # a usage error: one line saying what is wrong
            assert len(result.output.strip().splitlines()) == 1, result.output

    assert fuzz("config", seeds, tmp_path, check, place) >= MIN_ROUNDS
