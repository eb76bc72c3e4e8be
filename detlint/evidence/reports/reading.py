"""Report files and directories in, builds and problems out.

A file is read by what it holds, never by its name: its first non-blank byte
is ``<`` for JUnit XML and ``{`` for a report log. A directory is walked for
``*.xml``, ``*.json``, ``*.jsonl`` and ``*.log`` files, in sorted order.

By default every file is one build. With ``build_per_dir`` each directory
argument is one build: all the report files below it are merged into one
``Build``, and a test seen in two files of it keeps the attempts of both (its
outcome is "passed" when any file has it pass: a retried job that passed hid
the failure the same way a rerun does). When one directory holds both formats,
which CI writes for the same run, only its report logs are read.

A file byte for byte like one read before (a build downloaded twice) is
dropped with a ``ReportProblem`` naming the first, and so is a report of a
session already read in the other format (``same_run``). Nothing here raises on a bad
or unreadable file: each becomes a ``ReportProblem`` and the others are read.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from detlint.evidence.reports.junit import read_junit
from detlint.evidence.reports.records import (
    Build,
    ReportProblem,
    TestAttempts,
    earliest,
    latest,
)
from detlint.evidence.reports.report_log import read_report_log
from detlint.evidence.reports.same_run import SameRuns

REPORT_SUFFIXES = (".xml", ".json", ".jsonl", ".log")
CHUNK = 1 << 20
# Fewer files than this are read in this process: forking costs more than it saves.
PARALLEL_FILES = 8
# Files parsed together: enough to keep the cores busy, few enough to hold at once.
BATCH_FILES = 64


def read_reports(
    paths: Sequence[Path], build_per_dir: bool = False, jobs: int | None = None
) -> tuple[list[Build], list[ReportProblem]]:
    """Every build the given report files and directories hold, and the problems met."""
    builds: list[Build] = []
    problems: list[ReportProblem] = []
    for item in iter_reports(paths, build_per_dir, jobs):
        _keep(item, builds, problems)
    return builds, problems


def iter_reports(
    paths: Sequence[Path], build_per_dir: bool = False, jobs: int | None = None
) -> Iterator[Build | ReportProblem]:
    """The builds and problems, in the order of the paths, a batch of files at a time:
    a thousand reports of thousands of tests are never held at once (the caller keeps
    what it needs of each build), and each batch is parsed over the cores (``jobs``)."""
    seen = _Seen({}, SameRuns())
    for path in paths:
        if not path.is_dir():
            yield from _deduplicated(_parse_all([path], jobs), seen)
            continue
        listing: list[ReportProblem] = []
        files = _report_files(path, listing)
        yield from listing
        if not files:
            yield ReportProblem(str(path), _no_files())
            continue
        if not build_per_dir:
            for start in range(0, len(files), BATCH_FILES):
                yield from _deduplicated(_parse_all(files[start : start + BATCH_FILES], jobs), seen)
            continue
        parts = []
        for result in _deduplicated(_parse_all(files, jobs), seen):
            if isinstance(result, ReportProblem):
                yield result
            else:
                parts.append(result)
        if any(part.format == "report-log" for part in parts):
            for part in parts:
                if part.format == "junit":
                    yield ReportProblem(part.source, _set_aside())
            parts = [part for part in parts if part.format == "report-log"]
        if parts:
            yield _merge(str(path), parts)


def _parse_all(
    files: list[Path], jobs: int | None
) -> list[tuple[str | None, Build | ReportProblem]]:
    from detlint.base.cores import default_jobs
    from detlint.base.parallel import fork_map

    workers = jobs or default_jobs()
    if len(files) < PARALLEL_FILES:
        workers = 1
    return fork_map(_read_file, files, workers)


class _Seen(NamedTuple):
    """What was read so far: each file's digest (to its source), and the sessions."""

    digests: dict[str, str]
    sessions: SameRuns


def _deduplicated(
    results: list[tuple[str | None, Build | ReportProblem]], seen: _Seen
) -> list[Build | ReportProblem]:
    """Each result, a file byte for byte like an earlier one, or a session an earlier
    one recorded in the other format, replaced by a problem."""
    kept: list[Build | ReportProblem] = []
    for digest, result in results:
        if digest is not None and digest in seen.digests:
            kept.append(ReportProblem(result.source, f"duplicates {seen.digests[digest]}"))
            continue
        if digest is not None:
            seen.digests[digest] = result.source
        if isinstance(result, Build) and (first := seen.sessions.copy_of(result)) is not None:
            kept.append(ReportProblem(result.source, _same_session(first)))
            continue
        kept.append(result)
    return kept


def _same_session(first: str) -> str:
    return f"the same pytest session as {first} (JUnit XML and report log of one run); counted once"


def _keep(
    result: Build | ReportProblem, builds: list[Build], problems: list[ReportProblem]
) -> None:
    if isinstance(result, Build):
        builds.append(result)
    else:
        problems.append(result)


def _no_files() -> str:
    return "no report files (" + ", ".join(f"*{s}" for s in REPORT_SUFFIXES) + ") below it"


def _set_aside() -> str:
    return "not read: its directory also has report logs, which record the same run"


def _report_files(directory: Path, problems: list[ReportProblem]) -> list[Path]:
    def unreadable(error: OSError) -> None:
        where = error.filename or directory
        problems.append(ReportProblem(str(where), f"cannot read: {error.strerror or error}"))

    found: list[Path] = []
    for root, dirs, names in os.walk(directory, onerror=unreadable):
        dirs.sort()
        base = Path(root)
        found.extend(base / name for name in names if name.endswith(REPORT_SUFFIXES))
    return sorted(found, key=lambda file: file.relative_to(directory).parts)


def _read_file(path: Path) -> tuple[str | None, Build | ReportProblem]:
    """Hash the file and find its first non-blank byte in one pass, then parse it; the
    digest lets the caller drop a duplicate (None when the file could not be read)."""
    source = str(path)
    digest = hashlib.sha256()
    first = b""
    try:
        with path.open("rb") as stream:
            while chunk := stream.read(CHUNK):
                digest.update(chunk)
                if not first:
                    first = chunk.lstrip(b"\xef\xbb\xbf").lstrip()[:1]
    except OSError as error:
        return None, ReportProblem(source, f"cannot read: {error.strerror or error}")
    if not first:
        return None, ReportProblem(source, "empty file")
    key = digest.hexdigest()
    if first == b"<":
        return key, read_junit(path, source)
    if first == b"{":
        return key, read_report_log(path, source)
    return key, ReportProblem(
        source,
        f"neither JUnit XML nor a pytest report log (starts with {first.decode('latin-1')!r})",
    )


def _merge(source: str, parts: list[Build]) -> Build:
    merged: dict[str, TestAttempts] = {}
    for part in parts:
        for test in part.tests:
            known = merged.get(test.test)
            merged[test.test] = test if known is None else _both(known, test)
    times = [part.time for part in parts if part.time is not None]
    ends = [part.end for part in parts if part.end is not None]
    return Build(source, earliest(times), tuple(merged.values()), parts[0].format, end=latest(ends))


def _both(one: TestAttempts, other: TestAttempts) -> TestAttempts:
    outcomes = {one.outcome, other.outcome}
    outcome = next(o for o in ("passed", "xfailed", "failed", "skipped") if o in outcomes)
    return TestAttempts(
        test=one.test,
        classname=one.classname,
        name=one.name,
        file=one.file if one.file is not None else other.file,
        attempts=one.attempts + other.attempts,
        failed_attempts=one.failed_attempts + other.failed_attempts,
        outcome=outcome,
    )
