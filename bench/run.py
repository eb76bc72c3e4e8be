"""Benchmark detlint on a large synthetic monorepo against grep, ruff and bare imports.

Run it with the interpreter whose tools you want to measure::

    .venv/bin/python bench/run.py                     # temporary tree, removed after
    .venv/bin/python bench/run.py --tree /tmp/detlint-bench-tree   # generate once, keep
    .venv/bin/python bench/run.py --json
    .venv/bin/python bench/run.py --corpus .venv/lib/python3.11/site-packages  # real code
    .venv/bin/python bench/run.py --tree /tmp/detlint-bench-ci --pipelines 500  # with CI YAML

``--pipelines N`` adds N YAML files to the synthetic tree (Buildkite pipelines,
Jinja pipeline templates, GitHub workflows, a GitLab pipeline, and YAML that is
no pipeline) and measures ``detlint check`` on the pipeline directories too.
``--corpus DIR`` replaces the synthetic tree with a copy of every ``*.py`` file
under DIR (real test suites with real xfail/skip markers); the measurements
are the same. The reference commands (``python -c ...``) run from an empty
temporary directory, so a corpus holding ``click`` or ``libcst`` cannot shadow
the installed packages; detlint, ruff and grep run from the tree's root.

Every command runs under a small probe, ``/usr/bin/time -f %M`` (GNU) or else a
minimal ``python -I -S`` fork/exec/``os.wait4`` wrapper, which reports the
``ru_maxrss`` of that one command: the peak resident set of the largest process
in its tree (detlint's worker processes included), with no other command mixed
in. The probe is needed because Linux counts the pages a child holds before
exec towards its peak, so spawning directly from this script would report this
script's own RSS as a floor. Wall time is measured around the spawn and wait.
Each command gets one discarded warm-up run, then ``--repeat`` runs,
interleaved round-robin so that a noisy moment hits every command alike; the
table shows medians and the maximum peak RSS over the measured runs.

The commands get a private bytecode cache (``PYTHONPYCACHEPREFIX`` in a scratch
directory, ``PYTHONDONTWRITEBYTECODE`` dropped), filled by the warm-up run, so
an editable install is measured with warm ``.pyc`` files as an installed
package would be; ``--inherit-env`` measures the environment as it is. The
whole-tree rows run without caches (``--no-cache``), as a CI job's first run
does; detlint's and ruff's caches live in the scratch directory, and the rows
marked ``<warm cache>`` (and the one-file checks, as a pre-commit hook runs
them) find them filled by their warm-up run.

The script is a measurement, not a test: it exits 0 even when a target fails,
and non-zero only when a command itself fails (any exit status outside the
ones it documents as success, e.g. 0/1 for linters that exit 1 on findings).
Standard library only; POSIX only (grep, git, ``os.wait4``).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import random
import re
import shutil
import stat
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

GENERATOR_VERSION = 1
CORPUS_VERSION = 1  # bump when the corpus copy or its facts change
MANIFEST = Path(".git") / "detlint-bench.json"  # inside .git: invisible to every tool measured
CORPUS_MAX_FILE_BYTES = 2_000_000  # --corpus skips larger files (generated tables, vendored blobs)
CORPUS_SKIP_DIRS = frozenset({"__pycache__", ".git"})  # never copied: caches, and git's own

CANDIDATE_SHARE = 0.03  # test files with a rerun / xfail / flaky-skip knob
SKIPIF_SHARE = 0.15  # test files with platform skipif markers only (no knob, no parse needed)

# ---------------------------------------------------------------------------
# Vocabulary. Non-candidate files must never contain a word that makes detlint
# parse a file (see ``_check_not_candidate``): no "retry", "flaky", "xfail",
# no "accuracy" (it contains "racy"), no os.getenv/os.environ.
# ---------------------------------------------------------------------------

AREAS: dict[str, tuple[str, ...]] = {
    "billing": ("invoices", "refunds", "tax", "ledger", "currency", "subscriptions"),
    "search": ("indexing", "ranking", "query_parser", "facets", "spelling"),
    "storage": ("blobs", "replication", "compaction", "snapshots", "quotas"),
    "auth": ("sessions", "tokens", "oauth", "permissions", "audit_log"),
    "scheduler": ("queues", "leases", "cron", "priorities", "workers"),
    "ml": ("tokenizer", "batching", "attention", "sampling", "checkpoints", "metrics"),
    "network": ("http_client", "dns", "tls", "proxies", "rate_limits"),
    "api": ("graphql", "pagination", "serializers", "webhooks"),
    "analytics": ("events", "funnels", "rollups", "exports", "sketches"),
    "notifications": ("email", "push", "templates", "digests"),
    "inventory": ("stock", "warehouses", "reservations", "barcodes", "pricing"),
    "platform": ("config", "feature_flags", "logging", "tracing", "migrations", "cli"),
}

NOUNS = (
    "record", "batch", "entry", "item", "payload", "request", "response", "snapshot",
    "window", "segment", "cursor", "chunk", "bucket", "handle", "manifest", "report",
    "digest", "slot", "policy", "plan", "profile", "schema", "field", "key", "row",
    "column", "token", "event", "job", "task", "lease", "shard", "node", "route", "rule",
    "filter", "index", "label", "tag", "price", "amount", "limit", "offset", "page",
    "version", "header", "frame", "account", "order", "invoice", "tenant", "region",
)  # fmt: skip

VERBS = (
    "parse", "render", "merge", "split", "encode", "decode", "validate", "normalise",
    "compute", "resolve", "apply", "build", "load", "dump", "sort", "group", "expand",
    "collapse", "match", "schedule", "allocate", "release", "rotate", "compact", "rank",
    "sample", "serialize", "hash", "sign", "verify", "convert", "aggregate", "reconcile",
    "diff", "patch", "route", "throttle", "partition", "dedupe", "format",
)  # fmt: skip

QUALIFIERS = (
    "empty", "single", "many", "unicode", "large", "nested", "sorted", "reversed",
    "duplicate", "missing", "default", "custom", "negative", "zero", "boundary",
    "stale", "expired", "partial", "mixed", "legacy", "utc", "roundtrip", "idempotent",
)  # fmt: skip

CLASS_SUFFIXES = ("Store", "Client", "Builder", "Registry", "Cache", "Planner", "Codec", "Pool")
EXCEPTIONS = ("ValueError", "KeyError", "TypeError", "LookupError", "RuntimeError")
WORDS = (
    "alpha", "beta", "gamma", "delta", "north", "south", "east", "west", "red", "green",
    "blue", "amber", "small", "medium", "large", "first", "second", "primary", "replica",
    "euro", "dollar", "yen", "draft", "final", "open", "closed", "pending", "done",
)  # fmt: skip

SKIPIF_MARKS = (
    ('sys.platform == "win32"', "POSIX file permissions only", "sys"),
    ('sys.platform != "linux"', "needs Linux cgroups", "sys"),
    ('shutil.which("docker") is None', "needs the docker CLI", "shutil"),
    ('shutil.which("git") is None', "needs git on PATH", "shutil"),
    ("sys.version_info < (3, 11)", "uses ExceptionGroup", "sys"),
    ('sys.byteorder != "little"', "fixtures are little-endian dumps", "sys"),
    ('not hasattr(os, "fork")', "needs os.fork", "os"),
    ("(os.cpu_count() or 1) < 4", "needs at least 4 CPUs", "os"),
)

KNOB_REASONS = (
    "flaky on CI since the scheduler rewrite",
    "intermittent timeout on the shared runners, see #4312",
    "sporadic connection reset from the test server",
    "nondeterministic ordering in the thread pool, see PLAT-221",
    "unstable on macOS runners",
    "race condition in the cache warm-up, https://tracker.example.invalid/issues/981",
    "sometimes fails under load",
)


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


# ---------------------------------------------------------------------------
# Code generation
# ---------------------------------------------------------------------------


@dataclass
class FileContext:
    """What one generated module defines and needs, so blocks can refer to each other."""

    rng: random.Random
    area: str
    sub: str
    functions: list[str]
    classes: list[str]
    factories: list[str]
    fixtures: list[tuple[str, str]] = field(default_factory=list)  # (name, class)
    imports: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)

    def pick(self, options: Sequence[str]) -> str:
        return options[self.rng.randrange(len(options))]

    def pick_block(self, blocks: Sequence[Block]) -> Block:
        return blocks[self.rng.randrange(len(blocks))]

    def unique(self, base: str) -> str:
        name, index = base, 2
        while name in self.names:
            name, index = f"{base}_{index}", index + 1
        self.names.add(name)
        return name

    def literal(self) -> str:
        rng = self.rng
        kind = rng.randrange(5)
        if kind == 0:
            return str(rng.randint(-50, 5000))
        if kind == 1:
            return f"{rng.uniform(0, 1000):.3f}"
        if kind == 2:
            return repr(f"{self.pick(WORDS)}-{rng.randint(1, 999)}")
        if kind == 3:
            return repr([self.pick(WORDS) for _ in range(rng.randint(0, 4))])
        return self.pick(("None", "True", "False", "()", "{}"))


Block = Callable[[FileContext], str]


def block_helper_loop(ctx: FileContext) -> str:
    noun, verb = ctx.pick(NOUNS), ctx.pick(VERBS)
    name = ctx.unique(f"_{verb}_{noun}s")
    return f'''def {name}(
    {noun}s: list[dict[str, object]], limit: int = {ctx.rng.randint(5, 200)}
) -> list[dict[str, object]]:
    """{verb.capitalize()} up to ``limit`` {noun}s, dropping empty fields.

    Order is preserved; a {noun} that is empty after cleaning is left out
    so that the assertions below compare only meaningful content.
    """
    result: list[dict[str, object]] = []
    for index, item in enumerate({noun}s):
        if index >= limit:
            break
        cleaned = {{k: v for k, v in sorted(item.items()) if v not in (None, "", [])}}
        if not cleaned:
            continue
        result.append(cleaned)
    return result'''


def block_constants(ctx: FileContext) -> str:
    noun = ctx.pick(NOUNS)
    name = ctx.unique(f"{noun.upper()}_SAMPLES")
    rows = "\n".join(
        f'    "{ctx.pick(WORDS)}_{i}": {ctx.literal()},' for i in range(ctx.rng.randint(4, 14))
    )
    comment = f"# Reference {noun}s captured from production traffic (anonymised)."
    return f"{comment}\n{name} = {{\n{rows}\n}}"


def block_dataclass(ctx: FileContext) -> str:
    ctx.imports.add("from dataclasses import dataclass")
    noun = ctx.pick(NOUNS)
    cls = ctx.unique(f"{_camel(noun)}Case")
    table = ctx.unique(f"{noun.upper()}_CASES")
    f1, f2 = ctx.pick(NOUNS), ctx.pick(QUALIFIERS)
    if f1 == f2:
        f2 = f"{f2}_flag"
    rows = "\n".join(
        f'    {cls}("{ctx.pick(WORDS)}-{i}", {ctx.rng.randint(0, 999)}, '
        f'"{ctx.pick(WORDS)}", ({", ".join(repr(ctx.pick(WORDS)) for _ in range(2))},)),'
        for i in range(ctx.rng.randint(3, 10))
    )
    return f'''@dataclass(frozen=True)
class {cls}:
    """One row of the {noun} table: input, expectation and labels."""

    name: str
    {f1}: int
    {f2}: str = ""
    tags: tuple[str, ...] = ()


{table} = [
{rows}
]'''


def block_fixture(ctx: FileContext) -> str:
    ctx.imports.update({"from pathlib import Path", "from collections.abc import Iterator"})
    cls = ctx.pick(ctx.classes)
    noun = ctx.pick(NOUNS)
    name = ctx.unique(f"{noun}_{cls.lower()}")
    scope = ctx.pick(("", "", "", '(scope="module")', "(autouse=False)"))
    ctx.fixtures.append((name, cls))
    return f'''@pytest.fixture{scope}
def {name}(tmp_path: Path) -> Iterator[{cls}]:
    """A {cls} rooted in a temporary directory, closed after the test."""
    instance = {cls}(root=tmp_path / "{noun}", capacity={ctx.rng.randint(1, 512)})
    instance.open()
    try:
        yield instance
    finally:
        instance.close()'''


def _test_name(ctx: FileContext, func: str) -> str:
    return ctx.unique(f"test_{func}_{ctx.pick(QUALIFIERS)}")


def block_parametrize(ctx: FileContext) -> str:
    func = ctx.pick(ctx.functions)
    a, b = ctx.pick(NOUNS), ctx.pick(QUALIFIERS)
    rows = []
    for _ in range(ctx.rng.randint(3, 12)):
        x, y = ctx.rng.randint(-100, 1000), ctx.rng.randint(0, 64)
        if ctx.rng.random() < 0.3:
            rows.append(f'        pytest.param({x}, {y}, {x + y}, id="{ctx.pick(WORDS)}-{x}"),')
        else:
            rows.append(f"        ({x}, {y}, {x + y}),")
    body = "\n".join(rows)
    return f'''@pytest.mark.parametrize(
    ("{a}", "{b}", "expected"),
    [
{body}
    ],
)
def {_test_name(ctx, func)}({a}: int, {b}: int, expected: int) -> None:
    """{func} combines {a} and {b} the documented way."""
    assert {func}({a}, {b}) == expected'''


def block_raises(ctx: FileContext) -> str:
    func, exc = ctx.pick(ctx.functions), ctx.pick(EXCEPTIONS)
    bad = ctx.pick(("negative", "empty", "unknown", "malformed", "oversized"))
    value = {
        "negative": "-1",
        "empty": '""',
        "unknown": '"no-such-key"',
        "malformed": '"{{not json"',
        "oversized": "10**9",
    }[bad]
    return f'''def {ctx.unique(f"test_{func}_rejects_{bad}_input")}() -> None:
    with pytest.raises({exc}, match="{bad}"):
        {func}({value})'''


def block_monotonic(ctx: FileContext) -> str:
    func = ctx.pick(ctx.functions)
    n = ctx.rng.randint(8, 300)
    return f'''def {ctx.unique(f"test_{func}_is_monotonic")}() -> None:
    """Larger inputs never produce smaller outputs."""
    previous = {func}(0)
    for value in range(1, {n}):
        current = {func}(value)
        assert current >= previous, f"{func}({{value}}) decreased"
        previous = current'''


def block_roundtrip(ctx: FileContext) -> str:
    ctx.imports.update({"import json", "from pathlib import Path"})
    factory, func = ctx.pick(ctx.factories), ctx.pick(ctx.functions)
    noun = factory.removeprefix("make_")
    key, value = ctx.pick(QUALIFIERS), ctx.literal()
    return f'''def {ctx.unique(f"test_{noun}_roundtrip_through_json")}(tmp_path: Path) -> None:
    payload = {factory}({key}={value})
    path = tmp_path / "{noun}.json"
    path.write_text(json.dumps(payload, sort_keys=True), encoding="utf-8")
    loaded = json.loads(path.read_text(encoding="utf-8"))
    assert loaded == payload
    assert {func}(loaded) == {func}(payload)'''


def block_approx(ctx: FileContext) -> str:
    func = ctx.pick(ctx.functions)
    values = ", ".join(f"{ctx.rng.uniform(-10, 10):.4f}" for _ in range(ctx.rng.randint(3, 12)))
    return f"""def {_test_name(ctx, func)}() -> None:
    values = [{values}]
    expected = sum(values) / len(values)
    assert {func}(values) == pytest.approx(expected, rel=1e-{ctx.rng.randint(3, 9)})"""


def block_monkeypatch(ctx: FileContext) -> str:
    func, noun = ctx.pick(ctx.functions), ctx.pick(NOUNS)
    n = ctx.rng.randint(1, 1000)
    var = f"{ctx.area.upper()}_{noun.upper()}_LIMIT"
    name = ctx.unique(f"test_{func}_reads_{noun}_limit")
    return f'''def {name}(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("{var}", "{n}")
    assert {func}(limit=None) == {n}
    monkeypatch.delenv("{var}")
    assert {func}(limit=None) != {n}'''


def block_caplog(ctx: FileContext) -> str:
    ctx.imports.add("import logging")
    func, factory = ctx.pick(ctx.functions), ctx.pick(ctx.factories)
    noun = factory.removeprefix("make_")
    name = ctx.unique(f"test_{func}_logs_{noun}")
    return f'''def {name}(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="monorepo.{ctx.area}.{ctx.sub}"):
        {func}({factory}())
    assert any("{noun}" in record.getMessage() for record in caplog.records)'''


def block_class(ctx: FileContext) -> str:
    if not ctx.fixtures:
        ctx.imports.update({"from pathlib import Path", "from collections.abc import Iterator"})
        fixture = block_fixture(ctx)
    else:
        fixture = ""
    fname, cls = ctx.fixtures[ctx.rng.randrange(len(ctx.fixtures))]
    factory = ctx.pick(ctx.factories)
    noun = factory.removeprefix("make_")
    name = ctx.unique(f"Test{cls}{_camel(ctx.pick(QUALIFIERS))}")
    methods = [
        f"""    def test_starts_empty(self, {fname}: {cls}) -> None:
        assert len({fname}) == 0
        assert list({fname}) == []""",
    ]
    for _ in range(ctx.rng.randint(1, 5)):
        kind = ctx.rng.randrange(3)
        n = ctx.rng.randint(2, 64)
        verb = ctx.pick(VERBS)
        if kind == 0:
            methods.append(f'''    def test_{verb}_{n}_{noun}s(self, {fname}: {cls}) -> None:
        for i in range({n}):
            {fname}.add({factory}(id=f"{noun}-{{i}}"))
        assert len({fname}) == {n}
        assert sorted(item["id"] for item in {fname})[0] == "{noun}-0"''')
        elif kind == 1:
            ranks = ", ".join(str(ctx.rng.randint(0, 99)) for _ in range(5))
            methods.append(f'''    def test_{verb}_keeps_order(self, {fname}: {cls}) -> None:
        """Items come back in insertion order after a {verb}."""
        items = [{factory}(rank=rank) for rank in ({ranks})]
        for item in items:
            {fname}.add(item)
        {fname}.{verb}()
        assert [item["rank"] for item in {fname}] == [item["rank"] for item in items]''')
        else:
            methods.append(f'''    def test_{verb}_missing_{noun}(self, {fname}: {cls}) -> None:
        with pytest.raises(KeyError):
            {fname}.get("{noun}-{n}")''')
    body = "\n\n".join(dict.fromkeys(methods))
    doc = f'    """Behaviour of {cls} with {noun}s: insertion, ordering and lookup."""\n\n'
    return (fixture + "\n\n\n" if fixture else "") + f"class {name}:\n{doc}{body}"


def block_section(ctx: FileContext) -> str:
    title = f"{ctx.pick(VERBS).capitalize()} {ctx.pick(NOUNS)}s ({ctx.pick(QUALIFIERS)} cases)"
    return f"# {'-' * 75}\n# {title}\n# {'-' * 75}"


BLOCKS: tuple[tuple[Block, int], ...] = (
    (block_helper_loop, 3),
    (block_constants, 2),
    (block_dataclass, 2),
    (block_fixture, 2),
    (block_parametrize, 6),
    (block_raises, 3),
    (block_monotonic, 2),
    (block_roundtrip, 2),
    (block_approx, 2),
    (block_monkeypatch, 1),
    (block_caplog, 1),
    (block_class, 4),
    (block_section, 1),
)
TEST_BLOCKS: tuple[Block, ...] = (
    block_parametrize,
    block_raises,
    block_monotonic,
    block_roundtrip,
    block_approx,
)


def skipif_block(ctx: FileContext) -> str:
    condition, reason, module = SKIPIF_MARKS[ctx.rng.randrange(len(SKIPIF_MARKS))]
    ctx.imports.add(f"import {module}")
    test = ctx.pick_block(TEST_BLOCKS)(ctx)
    return f'@pytest.mark.skipif({condition}, reason="{reason}")\n{test}'


def knob_block(ctx: FileContext, kind: str) -> str:
    """One test with a knob of ``kind``; env-driven trial loops for some flaky markers."""
    rng = ctx.rng
    reason = ctx.pick(KNOB_REASONS)
    if kind == "flaky-trials":
        ctx.imports.add("import os")
        func, factory = ctx.pick(ctx.functions), ctx.pick(ctx.factories)
        noun = factory.removeprefix("make_")
        const = ctx.unique(f"{ctx.sub.upper()}_TRIALS")
        backends = ", ".join(repr(ctx.pick(WORDS)) for _ in range(rng.randint(1, 3)))
        return f'''{const} = int(os.getenv("{const}", "{rng.choice((3, 5, 10, 20))}"))


@pytest.mark.flaky(reruns={rng.randint(1, 5)})
@pytest.mark.parametrize("backend", [{backends}])
def {ctx.unique(f"test_{func}_is_deterministic_across_{noun}s")}(backend: str) -> None:
    """Repeated {func} calls on the same {noun} agree, whatever the batch."""
    expected = {func}({factory}(), backend=backend)
    for _ in range({const}):
        assert {func}({factory}(), backend=backend) == expected'''
    test = ctx.pick_block(TEST_BLOCKS)(ctx)
    if kind == "flaky":
        args = ctx.pick(
            (
                f"reruns={rng.randint(1, 5)}",
                f"reruns={rng.randint(1, 3)}, reruns_delay={rng.randint(1, 5)}",
                f'reruns={rng.randint(2, 4)}, only_rerun=["TimeoutError"]',
                "",
            )
        )
        mark = f"@pytest.mark.flaky({args})" if args else "@pytest.mark.flaky"
    elif kind == "xfail":
        strict = ctx.pick(("", ", strict=False", ", strict=True"))
        mark = f'@pytest.mark.xfail(reason="{reason}"{strict})'
    elif kind == "skip":
        mark = f'@pytest.mark.skip(reason="{reason}")'
    else:  # skipif with a flaky-sounding reason
        ctx.imports.add("import sys")
        mark = f'@pytest.mark.skipif(sys.platform == "darwin", reason="{reason}")'
    return f"{mark}\n{test}"


KNOB_KINDS = (
    ("flaky-trials", 3),
    ("flaky", 3),
    ("xfail", 2),
    ("skip", 1),
    ("skipif-flaky", 1),
)


def _weighted(rng: random.Random, table: Sequence[tuple[Any, int]]) -> Any:
    return rng.choices([item for item, _ in table], weights=[w for _, w in table])[0]


def _header(ctx: FileContext, docstring: str, api_module: str) -> str:
    stdlib = sorted(i for i in ctx.imports if i.startswith("import "))
    froms = sorted(i for i in ctx.imports if i.startswith("from "))
    api = sorted(set(ctx.functions) | set(ctx.classes), key=str.lower)
    api_lines = "".join(f"    {name},\n" for name in api)
    parts = [f'"""{docstring}"""\n\nfrom __future__ import annotations\n']
    if stdlib or froms:
        parts.append("\n".join(stdlib + froms) + "\n")
    parts.append("import pytest\n")
    parts.append(
        f"from {api_module} import (\n{api_lines})\n"
        f"from tests.{ctx.area}.helpers import {', '.join(sorted(set(ctx.factories)))}\n"
    )
    return "\n".join(parts)


# The words of detlint's byte prefilter (detlint/python_pass/prefilter.py and the
# FLAKY_STEMS of detlint/reasons.py) at the time of writing. A file whose lowercased
# bytes hold one of them is parsed; update these when those change.
KNOB_WORDS = (b"flaky", b"xfail", b"retry", b"backoff", b"add_marker", b"quarantin")
FLAKY_WORDS = (
    *(b"flak", b"intermitten", b"nondetermin", b"non-determin", b"sporadic", b"racy"),
    *(b"race condition", b"race", b"timing", b"probabilistic", b"unstable", b"unreliable"),
    *(b"sometimes", b"occasional", b"randomly", b"too often", b"random fail"),
)
TRIAL_WORDS = (b"getenv", b"environ")


def prefilter_words(data: bytes, *, trials: bool) -> list[str]:
    """The prefilter words ``data`` holds: empty when detlint would not parse the file.

    A knob word anywhere, or "skip" together with a flaky-sounding word. With ``trials``
    (DET301, not selected by default) also "range(" together with an environment read.
    """
    lowered = data.lower()
    hits = [w.decode() for w in KNOB_WORDS if w in lowered]
    if b"skip" in lowered:
        hits += [w.decode() for w in FLAKY_WORDS if w in lowered]
    if trials and b"range(" in lowered and any(w in lowered for w in TRIAL_WORDS):
        hits.append("range( + getenv/environ")
    return hits


def _check_not_candidate(path: str, text: str) -> None:
    """Guard the generator: a file meant to hold no knob must not look like one to detlint.

    It must not be parsed even with DET301 selected, so trial loops count too.
    """
    bad = prefilter_words(text.encode(), trials=True)
    if bad:
        raise AssertionError(f"generator bug: {path} should hold no knob but contains {bad}")


@dataclass
class TreeFacts:
    """What the tree holds; stored in the manifest and printed with the table.

    For a synthetic tree every field comes from the generator. For a ``--corpus``
    copy, ``corpus`` names the source, the generator-only fields (``seed``,
    ``helper_files``, ``skipif_files``, ``no_knob_files``) are None, test files are
    the ``test_*.py`` files, and candidates are judged by ``prefilter_words``.
    """

    root: str
    python_files: int
    python_bytes: int
    test_files: int
    candidate_files: int  # test files that hold a knob (synthetic) / a prefilter word (corpus)
    file_no_candidates: str | None  # None: no such file, the one-file row is skipped
    file_with_marker: str | None
    conftest_files: int = 0
    seed: int | None = None
    helper_files: int | None = None
    skipif_files: int | None = None
    no_knob_files: int | None = None
    corpus: str | None = None
    corpus_candidate_files: int | None = None  # every file with a prefilter word, not only tests
    marker: str = "flaky"  # the marker ``file_with_marker`` holds: flaky, xfail or both
    # --pipelines: the YAML files added (pipelines, templates and other YAML), their bytes,
    # files per PIPELINE_KINDS kind, and the pipelines and templates holding a CI knob.
    pipeline_files: int = 0
    pipeline_bytes: int = 0
    pipeline_kinds: dict[str, int] | None = None
    ci_knob_files: int = 0
    # What `detlint check <pipeline dirs>` is given (tree-relative), and the YAML files
    # under it; None when the tree has no pipelines.
    pipeline_targets: list[str] | None = None
    pipeline_target_files: int = 0


def _test_module(
    rng: random.Random, area: str, sub: str, size: int, kind: str, knob_kinds: list[str]
) -> str:
    nouns = rng.sample(NOUNS, 4)
    ctx = FileContext(
        rng=rng,
        area=area,
        sub=sub,
        functions=[f"{rng.choice(VERBS)}_{noun}" for noun in nouns],
        classes=[f"{_camel(nouns[0])}{rng.choice(CLASS_SUFFIXES)}"],
        factories=[f"make_{noun}" for noun in rng.sample(nouns, 2)],
    )
    ctx.functions = list(dict.fromkeys(ctx.functions))
    ctx.names.update(ctx.functions + ctx.classes + ctx.factories)
    blocks: list[str] = []
    total = 1000  # the header, and half a block of overshoot on average
    while total < size:
        block = _weighted(rng, BLOCKS)(ctx)
        blocks.append(block)
        total += len(block) + 3
    specials = []
    if kind == "skipif":
        specials = [skipif_block(ctx) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.15:
            condition, reason, module = SKIPIF_MARKS[rng.randrange(len(SKIPIF_MARKS))]
            ctx.imports.add(f"import {module}")
            blocks.insert(0, f'pytestmark = pytest.mark.skipif({condition}, reason="{reason}")')
    elif kind == "candidate":
        specials = [knob_block(ctx, k) for k in knob_kinds]
    for special in specials:
        blocks.insert(rng.randint(min(1, len(blocks)), len(blocks)), special)
    doc = (
        f"Tests for monorepo.{area}.{sub}: {rng.choice(VERBS)} and {rng.choice(VERBS)} "
        f"of {nouns[0]}s.\n\nThe cases below mirror the contract documented in "
        f"docs/{area}/{sub}.md; keep them in sync.\n"
    )
    header = _header(ctx, doc, f"monorepo.{area}.{sub}")
    return header + "\n\n" + "\n\n\n".join(blocks) + "\n"


def _conftest(rng: random.Random, area: str | None) -> str:
    scope = area or "repository"
    nouns = rng.sample(NOUNS, rng.randint(2, 5))
    fixtures = "\n\n\n".join(
        f'''@pytest.fixture(scope="session")
def {noun}_defaults() -> dict[str, object]:
    """Default {noun} settings shared by the {scope} tests."""
    return {{
        "name": "{rng.choice(WORDS)}",
        "size": {rng.randint(1, 4096)},
        "labels": {[rng.choice(WORDS) for _ in range(3)]!r},
    }}'''
        for noun in nouns
    )
    hook = f"""def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: takes more than a second ({scope})")
    config.addinivalue_line("markers", "integration: uses a real {rng.choice(NOUNS)} service")"""
    return (
        f'"""Shared fixtures for the {scope} tests."""\n\nfrom __future__ import annotations\n\n'
        f"import pytest\n\n\n{hook}\n\n\n{fixtures}\n"
    )


def _helpers(rng: random.Random, area: str) -> str:
    parts = []
    for noun in NOUNS:
        parts.append(f'''def make_{noun}(**overrides: object) -> dict[str, object]:
    """A valid {noun} with defaults; ``overrides`` replace single fields."""
    base: dict[str, object] = {{
        "id": "{noun}-{rng.randint(1, 9999)}",
        "{rng.choice(QUALIFIERS)}": {rng.randint(0, 100)},
        "region": "{rng.choice(WORDS)}",
        "created_at": "2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T12:00:00Z",
    }}
    base.update(overrides)
    return base''')
    return (
        f'"""Factories shared by the {area} tests."""\n\nfrom __future__ import annotations\n\n\n'
        + "\n\n\n".join(parts)
        + "\n"
    )


def _source_module(rng: random.Random, area: str, sub: str, size: int) -> str:
    parts = [f'"""monorepo.{area}.{sub}: the code under test (synthetic)."""\n\nimport math\n']
    total = 0
    while total < size:
        verb, noun = rng.choice(VERBS), rng.choice(NOUNS)
        text = f'''def {verb}_{noun}(value: object = None, *, limit: int | None = None) -> object:
    """{verb.capitalize()} a {noun}; ``limit`` caps the work done."""
    if value is None:
        return limit or 0
    if isinstance(value, (list, tuple)):
        items = [item for item in value if item is not None]
        return sum(items) / len(items) if items else 0.0
    if isinstance(value, int) and value < 0:
        raise ValueError("negative {noun}")
    return math.floor(float(value) * {rng.randint(1, 9)}) if isinstance(value, int) else value'''
        parts.append(text)
        total += len(text)
    return "\n\n".join(parts) + "\n"


# ---------------------------------------------------------------------------
# CI pipelines and other YAML (--pipelines N)
#
# A separate random stream (seeded from --seed) writes these files after the
# Python tree, so --pipelines 0 leaves the tree exactly as it was without it.
# ---------------------------------------------------------------------------

DEFAULT_PIPELINES = 0  # YAML files --pipelines adds when not given
PIPELINE_GENERATOR_VERSION = 1  # bump when the YAML files change (recorded only when N > 0)
# Shares of the N YAML files. One .gitlab-ci.yml and its GITLAB_INCLUDES included files
# come out of the Buildkite share, which takes what the others leave (about 40%).
TEMPLATE_SHARE = 0.15  # ci/templates/*.yml.j2
GITHUB_SHARE = 0.05  # .github/workflows/*.yml
OTHER_YAML_SHARE = 0.40  # k8s, helm, docker-compose, mkdocs, openapi, app config
GITLAB_INCLUDES = 4  # ci/gitlab/*.yml (with at least 20 files in all)
CI_KNOB_SHARE = 0.15  # Buildkite pipelines and templates that hold a knob
GITHUB_KNOB_SHARE = 0.20  # GitHub workflows that hold one (continue-on-error, retry action)
BIG_YAML_BYTES = (200_000, 120_000, 70_000)  # an OpenAPI spec, a k8s bundle, helm values
# `detlint check <pipeline dirs>` gets those of these that the tree has.
PIPELINE_TARGETS = (".buildkite", "buildkite", "ci", ".github", ".gitlab-ci.yml")
PIPELINE_KINDS = ("buildkite", "template", "github", "gitlab", "other")

# Every spelling of a CI knob the generator writes (lowercased). A pipeline or
# template meant to hold no knob holds none of them; one meant to hold a knob holds
# at least one. Other YAML may hold some ("retry:" in helm values): it is no pipeline.
CI_KNOB_WORDS = (
    *("soft_fail", "retry", "retries", "continue-on-error", "continue_on_failure"),
    *("allow_failure", "--reruns", "--retries", "--count", "||", "set +e", "| tee"),
    *("skip", "fail-fast", "when: manual", "mirror:"),
)

BK_EMOJI = ("python", "pytest", "test_tube", "docker", "package", "hammer_and_wrench", "snake")
BK_QUEUES = ("ci-linux-small", "ci-linux-medium", "ci-linux-large", "ci-arm64", "ci-gpu-a10")
CI_IMAGES = (
    "python:3.11-slim",
    "python:3.12-slim",
    "registry.example.invalid/monorepo/ci-base:2024.06.1",
    "registry.example.invalid/monorepo/ci-gpu:cuda12.4-py3.11",
)
# Variables pipelines set. The engine makes every name of 4+ characters a word of its
# Python prefilter (DET302), so none of these may occur in a Python file without knobs
# (``_check_env_names``); steps also set the X_TRIALS variables that candidates read.
CI_ENV = (
    ("PYTHONHASHSEED", '"0"'),
    ("LOG_LEVEL", "info"),
    ("PIP_INDEX_URL", "https://pypi.internal.example.invalid/simple"),
    ("COVERAGE_FILE", "reports/.coverage.${BUILDKITE_JOB_ID}"),
    ("DATABASE_URL", "postgresql://ci:ci@postgres:5432/monorepo"),
    ("REDIS_URL", "redis://redis:6379/0"),
    ("AWS_DEFAULT_REGION", "eu-west-1"),
    ("UV_CACHE_DIR", "/cache/uv"),
    ("PYTEST_ADDOPTS", '"--color=yes -p no:cacheprovider"'),
    ("MONOREPO_ENV", "ci"),
    ("TZ", "UTC"),
)
PLUGINS = (
    (
        "docker#v5.11.0",
        ("image: {image}", "propagate-environment: true", "mount-buildkite-agent: false"),
    ),
    ("docker-compose#v5.2.0", ("run: app", "config: ci/docker/docker-compose.ci.yml")),
    ("artifacts#v1.9.3", ('download: "dist/*.whl"',)),
    ("cache#v1.0.1", ("path: .cache/pip", "manifest: requirements/test.txt", "restore: file")),
    ("test-collector#v1.10.1", ('files: "reports/junit-*.xml"', "format: junit")),
)
COMPOSE_IMAGES = ("postgres:16", "redis:7", "minio/minio:latest", "bitnami/kafka:3.7")
INSTANCE_TYPES = ("c7i.2xlarge", "c7i.8xlarge", "g5.xlarge", "m7g.4xlarge")
K_EXPRESSIONS = (
    "not slow",
    "not slow and not integration",
    "roundtrip or monotonic",
    "{verb} and not {qualifier}",
    "Test{cls}",
    "{noun} or {verb}",
)
BK_KNOBS = (
    ("soft-fail", 3),
    ("soft-fail-statuses", 2),
    ("retry-automatic", 2),
    ("retry-agent-lost", 2),  # rules on -1 only: act on agent loss, not on test failures
    ("retry-any-status", 1),
    ("reruns", 2),
    ("or-true", 2),
    ("mirror", 1),
)

_PLAIN_UNSAFE_START = tuple("-?:,[]{}#&*!|>'\"%@`")


def _q(text: str) -> str:
    """``text`` as a YAML scalar: plain when that is safe, else single-quoted."""
    if (
        not text
        or text.startswith(_PLAIN_UNSAFE_START)
        or ": " in text
        or " #" in text
        or text.endswith(":")
        or text != text.strip()
    ):
        return "'" + text.replace("'", "''") + "'"
    return text


def _indent(lines: Sequence[str], spaces: int) -> list[str]:
    pad = " " * spaces
    return [pad + line if line else line for line in lines]


@dataclass
class PipelineContext:
    """The random stream and the tree's test layout that pipeline steps refer to."""

    rng: random.Random
    test_files: dict[tuple[str, str], list[str]]  # (area, sub) -> test file paths
    trial_vars: dict[tuple[str, str], list[str]]  # (area, sub) -> X_TRIALS variables its tests read
    keys: set[str] = field(default_factory=set)  # step keys of the current file
    env_names: set[str] = field(default_factory=set)  # every variable a pipeline sets

    def pick(self, options: Sequence[Any]) -> Any:
        return options[self.rng.randrange(len(options))]

    def area_sub(self, area: str | None = None) -> tuple[str, str]:
        area = area or self.pick(tuple(AREAS))
        return area, self.pick(AREAS[area])

    def key(self, base: str) -> str:
        name, index = base, 2
        while name in self.keys:
            name, index = f"{base}-{index}", index + 1
        self.keys.add(name)
        return name

    def env(self, count: int, area: str | None = None, sub: str | None = None) -> list[str]:
        """``count`` settings for an ``env:`` map; a trial count for the tests of ``sub``."""
        chosen = self.rng.sample(CI_ENV, min(count, len(CI_ENV)))
        trials = self.trial_vars.get((area or "", sub or ""))
        if trials and self.rng.random() < 0.5:
            chosen.append((self.pick(trials), f'"{self.pick((1, 3, 20, 50))}"'))
        self.env_names.update(name for name, _ in chosen)
        return [f"{name}: {value}" for name, value in chosen]

    def pytest(self, area: str, sub: str, knob: str | None = None) -> str:
        """One pytest command line, with ``--reruns`` or ``|| true`` for those knobs."""
        rng = self.rng
        form = rng.randrange(8)
        target = f"tests/{area}/{sub}"
        if form == 0:
            target = f"tests/{area}"
        elif form == 1 and self.test_files.get((area, sub)):
            target = self.pick(self.test_files[(area, sub)])
        words = ["python -m pytest" if rng.random() < 0.3 else "pytest"]
        if rng.random() < 0.3:
            expression = self.pick(K_EXPRESSIONS).format(
                verb=self.pick(VERBS),
                noun=self.pick(NOUNS),
                qualifier=self.pick(QUALIFIERS),
                cls=_camel(self.pick(NOUNS)),
            )
            words.append(f'-k "{expression}"')
        if rng.random() < 0.15:
            words.append(f"-m {self.pick(('integration', 'slow', 'not integration'))!r}")
        words.append(target)
        words += rng.sample(
            ["-q", "-n 4", "-n auto", "--durations=20", "-p no:cacheprovider", "--maxfail=20"],
            rng.randint(0, 2),
        )
        if rng.random() < 0.4:
            words.append(f"--junitxml=reports/junit-{area}-{sub}.xml")
        if knob == "reruns":
            words.append(self.pick(("--reruns 2", "--reruns 3 --reruns-delay 5", "--reruns=1")))
        text = " ".join(words)
        return text + " || true" if knob == "or-true" else text


# --- Buildkite -----------------------------------------------------------------------


def _bk_knob_lines(ctx: PipelineContext, knob: str) -> list[str]:
    """The step keys that make ``knob`` (the command-line knobs live in the command)."""
    rng = ctx.rng
    if knob == "soft-fail":
        return ["soft_fail: true"]
    if knob == "soft-fail-statuses":
        codes = sorted(rng.sample((1, 2, 3, 137, 143, 255), rng.randint(1, 2)))
        return ["soft_fail:", *(f"  - exit_status: {code}" for code in codes)]
    if knob == "retry-automatic":
        lines = ["retry:", "  automatic: true"]
        if rng.random() < 0.3:
            lines += ["  manual:", "    permit_on_passed: true"]
        return lines
    if knob == "retry-agent-lost":
        lines = [
            "retry:",
            "  automatic:",
            "    - exit_status: -1",
            f"      limit: {rng.randint(1, 3)}",
        ]
        if rng.random() < 0.5:
            lines += ["    - exit_status: 255", "      limit: 2"]
        return lines
    if knob == "retry-any-status":
        return [
            "retry:",
            "  automatic:",
            '    - exit_status: "*"',
            f"      limit: {rng.randint(1, 3)}",
        ]
    if knob == "mirror":
        return [
            "mirror:",
            "  amd:",
            "    soft_fail: true",
            "    agents:",
            "      queue: ci-amd-large",
        ]
    return []


def _bk_command_step(
    ctx: PipelineContext, area: str, sub: str, knob: str | None, verbosity: int, keys: list[str]
) -> list[str]:
    """A command step as list-item lines (``- label: ...``), unindented."""
    rng = ctx.rng
    suite = ctx.pick(("unit", "integration", "contract", "smoke", "property", "regression"))
    key = ctx.key(f"{area}-{sub}-{suite}".replace("_", "-"))
    label = f":{ctx.pick(BK_EMOJI)}: {area}/{sub} {suite}"
    body = [f"label: {_q(label)}", f"key: {key}"]
    command = ctx.pytest(area, sub, knob)
    lean = verbosity == 1 and rng.random() < 0.4  # label, key, command and little else
    form = 0 if lean else rng.randrange(3)
    if form == 0 and verbosity == 1:
        body.append(f"command: {_q(command)}")
    elif form == 1 and verbosity == 1:
        setup = rng.sample(
            [
                "pip install -r requirements/test.txt",
                "pip install -e .",
                "make -C services up",
                f"./scripts/ci/wait-for-services.sh {area}",
                'buildkite-agent artifact download "dist/*.whl" dist/',
            ],
            rng.randint(1, 3),
        )
        commands = [*setup, command]
        if rng.random() < 0.3:
            commands.append('buildkite-agent artifact upload "reports/*.xml"')
        body += ["commands:", *(f"  - {_q(c)}" for c in commands)]
    else:
        script = ["set -euo pipefail", f'echo "--- :python: {area}/{sub} ({suite})"']
        for _ in range(verbosity - 1):
            script += [
                f"python scripts/ci/prepare_{ctx.pick(NOUNS)}.py --area {area} --out .ci/{sub}",
                f'echo "prepared {ctx.pick(WORDS)} {ctx.pick(NOUNS)}s for {sub}"',
                f"make -C services {ctx.pick(('up', 'seed', 'migrate', 'warm'))} AREA={area}",
            ]
        if rng.random() < 0.3:
            name = f"MONOREPO_{area.upper()}_SHARD"
            ctx.env_names.add(name)
            script.append(f"export {name}=${{BUILDKITE_PARALLEL_JOB:-0}}")
        script.append(command)
        if rng.random() < 0.4:
            script.append('buildkite-agent artifact upload "reports/**/*.xml"')
        body += ["command: |", *(f"  {line}" for line in script)]
    if rng.random() < 0.7:
        body += ["agents:", f"  queue: {ctx.pick(BK_QUEUES)}"]
    if rng.random() < 0.5:
        body.append(f"timeout_in_minutes: {ctx.pick((10, 15, 20, 30, 45, 60))}")
    if lean:
        body += _bk_knob_lines(ctx, knob) if knob is not None else []
        keys.append(key)
        return [f"- {body[0]}", *_indent(body[1:], 2)]
    if rng.random() < 0.5:
        body += ["env:", *_indent(ctx.env(rng.randint(1, 4), area, sub), 2)]
    if rng.random() < 0.5:
        body.append("plugins:")
        for name, options in rng.sample(PLUGINS, rng.randint(1, 2)):
            body.append(f"  - {name}:")
            body += [f"      {option.format(image=ctx.pick(CI_IMAGES))}" for option in options]
            if name.startswith("docker#") and rng.random() < 0.3:
                body += [
                    "      environment:",
                    "        - PYTHONHASHSEED",
                    "        - BUILDKITE_BUILD_ID",
                ]
    if keys and rng.random() < 0.4:
        if rng.random() < 0.5:
            body.append(f"depends_on: {ctx.pick(keys)}")
        else:
            body += ["depends_on:", *(f"  - {k}" for k in rng.sample(keys, min(len(keys), 2)))]
    if rng.random() < 0.3:
        body.append(f"parallelism: {ctx.pick((2, 4, 8))}")
    if rng.random() < 0.3:
        body.append('artifact_paths: "reports/**/*"')
    if rng.random() < 0.15:
        body.append('if: build.branch == "main"')
    if knob is not None:
        body += _bk_knob_lines(ctx, knob)
    keys.append(key)
    return [f"- {body[0]}", *_indent(body[1:], 2)]


def _bk_steps(
    ctx: PipelineContext, area: str, size: int, knobs: list[str], upload: list[str]
) -> tuple[list[str], int]:
    """The ``steps:`` list of a pipeline of about ``size`` bytes: 10 to 60 command steps."""
    rng = ctx.rng
    steps: list[list[str]] = []
    keys: list[str] = []
    for target in upload:
        key = ctx.key("upload-" + target.rsplit("/", 1)[-1].split(".")[0])
        steps.append(
            [
                f"- label: {_q(':pipeline: ' + target)}",
                f"  key: {key}",
                f"  command: buildkite-agent pipeline upload {target}",
                "  agents:",
                "    queue: ci-linux-small",
            ]
        )
    # Enough command steps for the size; steps grow (longer scripts) past 60.
    wanted = max(10, min(60, round(size / 420)))
    verbosity = max(1, round(size / (wanted * 420)))
    knob_at = {rng.randrange(wanted): knob for knob in knobs}
    done = 0
    if rng.random() < 0.5:
        steps.append(
            [
                '- label: ":docker: build CI image"',
                f"  key: {ctx.key('build-image')}",
                "  command: docker build -f ci/docker/Dockerfile -t ci-base .",
                "  agents:",
                "    queue: ci-linux-large",
            ]
        )
        keys.append(steps[-1][1].split(": ", 1)[1])
    while done < wanted:
        roll = rng.random()
        if roll < 0.06 and steps:
            steps.append(["- wait"])
        elif roll < 0.08:
            steps.append(
                [
                    f"- block: {_q(':rocket: Release ' + area + '?')}",
                    f"  key: {ctx.key('release-' + area)}",
                ]
            )
        elif roll < 0.1:
            steps.append(
                [
                    f"- trigger: monorepo-deploy-{area}",
                    f"  label: {_q(':rocket: deploy ' + area)}",
                    "  build:",
                    '    branch: "${BUILDKITE_BRANCH}"',
                    '    commit: "${BUILDKITE_COMMIT}"',
                ]
            )
        elif roll < 0.25 and wanted - done >= 2:
            count = min(wanted - done, rng.randint(2, 6))
            sub_area = ctx.pick(tuple(AREAS))
            inner: list[str] = []
            for offset in range(count):
                inner += _bk_command_step(
                    ctx, *ctx.area_sub(sub_area), knob_at.get(done + offset), verbosity, keys
                )
            steps.append(
                [
                    f"- group: {_q(':test_tube: ' + sub_area)}",
                    f"  key: {ctx.key(sub_area.replace('_', '-') + '-group')}",
                    "  steps:",
                    *_indent(inner, 4),
                ]
            )
            done += count
        else:
            steps.append(
                _bk_command_step(ctx, *ctx.area_sub(area), knob_at.get(done), verbosity, keys)
            )
            done += 1
    return [line for step in steps for line in step], done


def _buildkite_pipeline(
    ctx: PipelineContext, path: str, area: str, size: int, knobs: list[str], upload: list[str]
) -> str:
    rng = ctx.rng
    ctx.keys.clear()
    lines = [
        f"# {path}: {area} tests. Owned by the {area} team; see docs/{area}/ci.md.",
        "# Steps run on the shared queues unless they say otherwise.",
    ]
    if upload:
        lines = [f"# {path}: the entry pipeline; uploads the area pipelines under buildkite/."]
    if rng.random() < 0.6:
        lines += ["env:", *_indent(ctx.env(rng.randint(2, 5)), 2)]
    if rng.random() < 0.5:
        lines += ["agents:", f"  queue: {ctx.pick(BK_QUEUES)}"]
    steps, _ = _bk_steps(ctx, area, size, knobs, upload)
    lines += ["", "steps:", *_indent(steps, 2)]
    return "\n".join(lines) + "\n"


# --- Jinja templates -------------------------------------------------------------------


def _template_block(ctx: PipelineContext, area: str, index: int) -> list[str]:
    """A loop, a conditional or a literal step of a pipeline template."""
    rng = ctx.rng
    sub = ctx.pick(AREAS[area])
    kind = rng.randrange(4)
    if kind == 0:
        suite = ctx.pick(("unit", "integration", "contract", "smoke"))
        subs = ctx.pick(("subs", f"{suite}_subs", "changed_subs"))
        return [
            f"{{% for sub in {subs} %}}",
            f'  - label: ":python: {{{{ area }}}}/{{{{ sub }}}} {suite}"',
            f'    key: "{{{{ area }}}}-{{{{ sub }}}}-{ctx.key(f"{suite}-{index}")}"',
            f"    command: pytest tests/{{{{ area }}}}/{{{{ sub }}}} -m {suite} "
            f"-n {{{{ workers | default({ctx.pick((2, 4, 8))}) }}}}",
            "    agents:",
            f"      queue: {{{{ queue | default('{ctx.pick(BK_QUEUES)}') }}}}",
            "    plugins:",
            f"      - {ctx.pick(('docker#v5.11.0', 'docker#v5.10.0'))}:",
            '          image: "{{ image }}"',
            "{% endfor %}",
        ]
    if kind == 1:
        test_dir = f"tests/{area}/{sub}"
        return [
            "{% for shard in range(shards) %}",
            f'  - label: ":pytest: {area}/{sub} shard {{{{ shard + 1 }}}}/{{{{ shards }}}}"',
            f'    key: "{ctx.key(f"{area}-{sub}-shard".replace("_", "-"))}-{{{{ shard }}}}"',
            "    command: |",
            f"      pip install -r requirements/{ctx.pick(('test.txt', 'ci.txt'))}",
            f"      python -m pytest {test_dir} --shard-id={{{{ shard }}}} "
            "--num-shards={{ shards }}",
            "{% endfor %}",
        ]
    if kind == 2:
        flag = ctx.pick(("nightly", "full_run", "release_branch"))
        return [
            f"{{% if {flag} %}}",
            "  - wait",
            f'  - label: ":crescent_moon: {area}/{sub} {flag.replace("_", " ")}"',
            f"    key: {ctx.key(f'{area}-{sub}-{flag}'.replace('_', '-'))}",
            f"    command: {_q(ctx.pytest(area, sub))}",
            f"    timeout_in_minutes: {{{{ {flag}_timeout | default({ctx.pick((60, 120))}) }}}}",
            "{% endif %}",
        ]
    return _indent(_bk_command_step(ctx, area, sub, None, 1, []), 2)


def _template_knob(ctx: PipelineContext, area: str) -> list[str]:
    """A quarantine step with a knob, literal or templated."""
    sub = ctx.pick(AREAS[area])
    choice = ctx.rng.randrange(4)
    command = f"pytest tests/{{{{ area }}}}/{sub} -m quarantine"
    extra: list[str] = []
    if choice == 0:
        extra = ["    soft_fail: true"]
    elif choice == 1:
        extra = [
            "    retry:",
            "      automatic:",
            '        - exit_status: "*"',
            "          limit: {{ retry_limit | default(2) }}",
        ]
    elif choice == 2:
        extra = ["    soft_fail: {{ soft_fail_" + area + " | default(false) | lower }}"]
    else:
        command += " --reruns {{ reruns }}"
    return [
        "{% if quarantine %}",
        f'  - label: ":warning: {area}/{sub} quarantined tests"',
        f"    key: {ctx.key(f'{area}-{sub}-quarantine'.replace('_', '-'))}",
        f"    command: {command}",
        *extra,
        "{% endif %}",
    ]


def _template(ctx: PipelineContext, path: str, area: str, size: int, knob: bool) -> str:
    """A Buildkite pipeline template rendered by a generator (``{{ }}``, ``{% %}`` lines)."""
    ctx.keys.clear()
    lines = [
        f"# Rendered by ci/render.py into .buildkite/generated/; edit {path}, not the output.",
        "{# inputs: area, subs, queue, image, workers, nightly, shards #}",
        "env:",
        '  PYTHONHASHSEED: "{{ hash_seed | default(0) }}"',
        "  MONOREPO_ENV: {{ environment }}",
        "steps:",
    ]
    total = sum(len(line) + 1 for line in lines)
    blocks: list[list[str]] = []
    while total < size or len(blocks) < 3:
        blocks.append(_template_block(ctx, area, len(blocks)))
        total += sum(len(line) + 1 for line in blocks[-1])
    if knob:
        blocks.insert(ctx.rng.randint(0, len(blocks)), _template_knob(ctx, area))
    return "\n".join(lines + [line for block in blocks for line in block]) + "\n"


# --- GitHub Actions and GitLab ---------------------------------------------------------


def _github_workflow(ctx: PipelineContext, area: str, size: int, knob: bool) -> str:
    rng = ctx.rng
    lines = [
        f"name: tests-{area}",
        "on:",
        "  push:",
        "    branches: [main]",
        "  pull_request:",
        "    paths:",
        f'      - "tests/{area}/**"',
        f'      - "src/monorepo/{area}/**"',
        "permissions:",
        "  contents: read",
        "concurrency:",
        "  group: ${{ github.workflow }}-${{ github.ref }}",
        "  cancel-in-progress: true",
        "jobs:",
    ]
    knob_kind = rng.randrange(4) if knob else -1
    total, jobs = sum(len(line) + 1 for line in lines), 0
    used: set[str] = set()
    while total < size or jobs < 1:
        sub = ctx.pick(AREAS[area])
        job = f"test-{sub}".replace("_", "-")
        if job in used:
            job = f"{job}-{jobs}"
        used.add(job)
        matrix = rng.random() < 0.6 or (knob_kind in (0, 1) and jobs == 0)
        block = [f"  {job}:"]
        if matrix:
            block += [
                "    name: ${{ matrix.os }} / py${{ matrix.python }}",
                "    runs-on: ${{ matrix.os }}",
                "    strategy:",
            ]
            if knob_kind == 0 and jobs == 0:
                block.append("      fail-fast: false")
            block += [
                "      matrix:",
                "        os: [ubuntu-22.04, ubuntu-24.04]",
                '        python: ["3.10", "3.11", "3.12"]',
            ]
            if knob_kind == 1 and jobs == 0:
                block += [
                    "        experimental: [false]",
                    "        include:",
                    "          - os: ubuntu-24.04",
                    '            python: "3.13"',
                    "            experimental: true",
                ]
        else:
            block.append(f"    runs-on: {ctx.pick(('ubuntu-latest', 'ubuntu-24.04'))}")
        if knob_kind == 1 and jobs == 0:
            block.append("    continue-on-error: ${{ matrix.experimental == true }}")
        block += [
            f"    timeout-minutes: {ctx.pick((15, 20, 30, 45))}",
            "    steps:",
            "      - uses: actions/checkout@v4",
            "      - uses: actions/setup-python@v5",
            "        with:",
            "          python-version: ${{ matrix.python }}"
            if matrix
            else '          python-version: "3.11"',
            "          cache: pip",
            "      - name: Install",
            "        run: pip install -r requirements/test.txt",
        ]
        if knob_kind == 2 and jobs == 0:
            block += [
                "      - name: Test (retried)",
                "        uses: nick-fields/retry@v3",
                "        with:",
                "          max_attempts: 3",
                "          timeout_minutes: 20",
                f"          command: {_q(ctx.pytest(area, sub))}",
            ]
        else:
            block += ["      - name: Test", f"        run: {_q(ctx.pytest(area, sub))}"]
            if knob_kind == 3 and jobs == 0:
                block.append("        continue-on-error: true")
        if rng.random() < 0.5:
            block += ["        env:", *_indent(ctx.env(rng.randint(1, 3)), 10)]
        if rng.random() < 0.5:
            block += [
                "      - uses: actions/upload-artifact@v4",
                "        if: always()",
                "        with:",
                f"          name: junit-{job}"
                + ("-${{ matrix.os }}-${{ matrix.python }}" if matrix else ""),
                "          path: reports/",
            ]
        lines += block
        total += sum(len(line) + 1 for line in block)
        jobs += 1
    return "\n".join(lines) + "\n"


def _gitlab_root(includes: list[str]) -> str:
    lines = [
        "include:",
        *(f"  - local: {path}" for path in includes),
        "stages:",
        "  - lint",
        "  - test",
        "  - deploy",
        "variables:",
        '  PIP_CACHE_DIR: "$CI_PROJECT_DIR/.cache/pip"',
        '  PYTHONHASHSEED: "0"',
        "default:",
        "  image: python:3.11-slim",
        "  tags: [docker]",
        "  before_script:",
        "    - pip install -r requirements/test.txt",
        ".pytest:",
        "  stage: test",
        "  script:",
        "    - pytest $TEST_PATH --junitxml=report.xml",
        "  artifacts:",
        "    when: always",
        "    reports:",
        "      junit: report.xml",
        "lint:",
        "  stage: lint",
        "  script:",
        "    - pip install ruff",
        "    - ruff check .",
    ]
    return "\n".join(lines) + "\n"


def _gitlab_include(ctx: PipelineContext, area: str, size: int, knob: bool) -> str:
    rng = ctx.rng
    lines = [f"# Test jobs for monorepo.{area}; included by .gitlab-ci.yml."]
    total, jobs = len(lines[0]) + 1, 0
    used: set[str] = set()
    while total < size or jobs < 2:
        sub = ctx.pick(AREAS[area])
        name = f"test-{area}-{sub}".replace("_", "-")
        if name in used:
            name = f"{name}-{jobs}"
        used.add(name)
        if rng.random() < 0.6:
            block = [
                f"{name}:",
                "  extends: .pytest",
                "  variables:",
                f"    TEST_PATH: tests/{area}/{sub}",
            ]
        else:
            block = [
                f"{name}:",
                "  stage: test",
                "  script:",
                "    - pip install -e .",
                f"    - {_q(ctx.pytest(area, sub))}",
            ]
            if rng.random() < 0.4:
                block.append(f"  parallel: {ctx.pick((2, 3, 4))}")
        block += [
            "  rules:",
            "    - changes:",
            f"        - tests/{area}/{sub}/**/*",
            f"        - src/monorepo/{area}/**/*",
        ]
        if knob and jobs == 0:
            block.append("  allow_failure: true")
        elif knob and jobs == 1:
            block += ["  retry:", "    max: 2", "    when: [runner_system_failure, script_failure]"]
        lines += block
        total += sum(len(line) + 1 for line in block)
        jobs += 1
    return "\n".join(lines) + "\n"


# --- YAML that is not a pipeline -------------------------------------------------------


def _k8s_manifest(ctx: PipelineContext, area: str, size: int) -> str:
    """Deployments, services and config maps; some Istio routes with ``retryOn``."""
    rng = ctx.rng
    docs: list[str] = []
    total = 0
    while total < size or not docs:
        name = f"{area}-{ctx.pick(NOUNS)}-{rng.randint(1, 99)}".replace("_", "-")
        kind = rng.randrange(4)
        if kind == 0:
            doc = f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels:
    app.kubernetes.io/name: {name}
    app.kubernetes.io/part-of: monorepo
spec:
  replicas: {rng.randint(1, 12)}
  selector:
    matchLabels:
      app.kubernetes.io/name: {name}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: {name}
    spec:
      containers:
        - name: app
          image: registry.example.invalid/monorepo/{area}:{rng.randint(100, 999)}
          args: ["serve", "--port", "8080"]
          ports:
            - containerPort: 8080
          env:
            - name: LOG_FORMAT
              value: json
          readinessProbe:
            httpGet:
              path: /healthz
              port: 8080
            failureThreshold: {rng.randint(2, 6)}
          resources:
            limits:
              cpu: "{rng.randint(1, 4)}"
              memory: {rng.choice((256, 512, 1024, 2048))}Mi"""
        elif kind == 1:
            doc = f"""apiVersion: v1
kind: Service
metadata:
  name: {name}
spec:
  selector:
    app.kubernetes.io/name: {name}
  ports:
    - port: 80
      targetPort: 8080"""
        elif kind == 2:
            data = "\n".join(
                f"  {ctx.pick(NOUNS)}_{i}: {_q(str(ctx.pick(WORDS)))}"
                for i in range(rng.randint(3, 12))
            )
            doc = (
                f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}-config\ndata:\n{data}"
            )
        else:
            doc = f"""apiVersion: networking.istio.io/v1beta1
kind: VirtualService
metadata:
  name: {name}
spec:
  hosts:
    - {name}
  http:
    - route:
        - destination:
            host: {name}
      timeout: {rng.randint(2, 30)}s
      retries:
        attempts: {rng.randint(1, 5)}
        perTryTimeout: 2s
        retryOn: 5xx,reset,connect-failure"""
        docs.append(doc)
        total += len(doc) + 4
    return "---\n" + "\n---\n".join(docs) + "\n"


def _helm_values(ctx: PipelineContext, area: str, size: int) -> str:
    rng = ctx.rng
    lines = [
        f"# Default values for the {area} chart.",
        "replicaCount: 2",
        "image:",
        f"  repository: registry.example.invalid/monorepo/{area}",
        "  pullPolicy: IfNotPresent",
        '  tag: ""',
        "retry:",
        "  enabled: true",
        f"  maxAttempts: {rng.randint(2, 6)}",
        "  backoffSeconds: 2",
        "migrations:",
        "  skipOnUpgrade: false",
    ]
    total, index = sum(len(line) + 1 for line in lines), 0
    while total < size:
        noun = ctx.pick(NOUNS)
        block = [
            f"{noun}{_camel(ctx.pick(QUALIFIERS))}{index}:",
            f"  enabled: {ctx.pick(('true', 'false'))}",
            f"  size: {rng.randint(1, 500)}",
            f"  region: {ctx.pick(WORDS)}",
            "  annotations:",
            f"    monorepo.example.invalid/owner: {area}",
            f"    monorepo.example.invalid/tier: {ctx.pick(('gold', 'silver', 'bronze'))}",
        ]
        lines += block
        total += sum(len(line) + 1 for line in block)
        index += 1
    return "\n".join(lines) + "\n"


def _compose(ctx: PipelineContext, area: str, size: int) -> str:
    rng = ctx.rng
    lines = ["services:"]
    total, index = 10, 0
    while total < size or index < 2:
        name = f"{ctx.pick(('postgres', 'redis', 'minio', 'kafka', 'app', 'worker'))}{index}"
        block = [
            f"  {name}:",
            f"    image: {ctx.pick(COMPOSE_IMAGES)}",
            "    restart: on-failure",
            "    environment:",
            f"      {area.upper()}_MODE: test",
            "    healthcheck:",
            '      test: ["CMD", "true"]',
            "      interval: 5s",
            f"      retries: {rng.randint(3, 10)}",
            "    ports:",
            f'      - "{rng.randint(5000, 9000)}:{rng.randint(5000, 9000)}"',
        ]
        lines += block
        total += sum(len(line) + 1 for line in block)
        index += 1
    lines += ["volumes:", "  data: {}"]
    return "\n".join(lines) + "\n"


def _mkdocs(ctx: PipelineContext, area: str, size: int) -> str:
    lines = [
        f"site_name: monorepo {area}",
        "theme:",
        "  name: material",
        "plugins:",
        "  - search",
        "  - mkdocstrings:",
        "      handlers:",
        "        python:",
        "          paths: [src]",
        "exclude_docs: |",
        "  drafts/",
        "  *.skip.md",
        "markdown_extensions:",
        "  - admonition",
        "  - toc:",
        "      permalink: true",
        "nav:",
        "  - Home: index.md",
    ]
    total = sum(len(line) + 1 for line in lines)
    while total < size:
        sub = ctx.pick(AREAS[area])
        page = f"{ctx.pick(VERBS)}-{ctx.rng.randint(1, 999)}.md"
        page = f"  - {_camel(sub)} {ctx.pick(NOUNS)}s: {area}/{sub}/{page}"
        lines.append(page)
        total += len(page) + 1
    return "\n".join(lines) + "\n"


def _openapi(ctx: PipelineContext, area: str, size: int) -> str:
    """An OpenAPI spec whose list endpoints take a ``skip`` parameter."""
    rng = ctx.rng
    lines = [
        "openapi: 3.0.3",
        "info:",
        f"  title: monorepo {area} API",
        f"  version: 1.{rng.randint(0, 40)}.0",
        "paths:",
    ]
    total, seen = 60, set[str]()
    while total < size or len(seen) < 2:
        noun = ctx.pick(NOUNS)
        route = f"/v1/{area}/{noun}s/{rng.randint(1, 10**6)}"
        if route in seen:
            continue
        seen.add(route)
        block = [
            f"  {route}:",
            "    get:",
            f"      operationId: list{_camel(noun)}s{len(seen)}",
            f"      summary: {ctx.pick(VERBS).capitalize()} {noun}s page by page",
            "      parameters:",
            "        - name: skip",
            "          in: query",
            "          schema: {type: integer, minimum: 0}",
            "        - name: limit",
            "          in: query",
            f"          schema: {{type: integer, maximum: {rng.choice((50, 100, 500))}}}",
            "      responses:",
            '        "200":',
            f"          description: A page of {noun}s",
            "          content:",
            "            application/json:",
            "              schema:",
            f"                $ref: '#/components/schemas/{_camel(noun)}Page'",
        ]
        lines += block
        total += sum(len(line) + 1 for line in block)
    lines += ["components:", "  schemas:", "    Page:", "      type: object"]
    return "\n".join(lines) + "\n"


def _app_config(ctx: PipelineContext, area: str, size: int) -> str:
    rng = ctx.rng
    lines = [f"# {area} service settings; overridden per environment."]
    total, index = 60, 0
    while total < size or index < 1:
        noun = ctx.pick(NOUNS)
        block = [
            f"{noun}_client_{index}:",
            f"  base_url: https://{noun}.{area}.internal.example.invalid",
            f"  timeout_seconds: {rng.randint(1, 30)}",
            "  retry:",
            f"    attempts: {rng.randint(1, 5)}",
            f"    backoff: {ctx.pick(('exponential', 'linear', 'constant'))}",
            f"  pool_size: {rng.randint(1, 64)}",
        ]
        lines += block
        total += sum(len(line) + 1 for line in block)
        index += 1
    return "\n".join(lines) + "\n"


def _ci_config(ctx: PipelineContext, area: str, size: int) -> str:
    """CI settings that are not a pipeline (queues, owners), kept next to the pipelines."""
    lines = ["# Agent queues and the areas that own them; read by ci/render.py.", "queues:"]
    total = 80
    while total < size or len(lines) < 6:
        queue = ctx.pick(BK_QUEUES)
        block = [
            f"  - name: {queue}-{len(lines)}",
            f"    instance_type: {ctx.pick(INSTANCE_TYPES)}",
            f"    owners: [{area}, {ctx.pick(tuple(AREAS))}]",
            f"    max_agents: {ctx.rng.randint(4, 200)}",
        ]
        lines += block
        total += sum(len(line) + 1 for line in block)
    return "\n".join(lines) + "\n"


def _dependabot(ctx: PipelineContext, area: str, size: int) -> str:
    lines = ["version: 2", "updates:"]
    total = 20
    while total < size or len(lines) < 8:
        block = [
            f"  - package-ecosystem: {ctx.pick(('pip', 'docker', 'github-actions'))}",
            f'    directory: "/{ctx.pick(("", "requirements", "ci/docker"))}"',
            "    schedule:",
            f"      interval: {ctx.pick(('daily', 'weekly'))}",
        ]
        lines += block
        total += sum(len(line) + 1 for line in block)
    return "\n".join(lines) + "\n"


OTHER_YAML: tuple[tuple[str, Callable[[PipelineContext, str, int], str], str, int], ...] = (
    # (kind, generator, path pattern, weight)
    ("k8s", _k8s_manifest, "deploy/k8s/{area}/{noun}-{n}.yaml", 6),
    ("helm", _helm_values, "deploy/helm/{area}/values-{word}-{n}.yaml", 3),
    ("compose", _compose, "services/{area}/docker-compose.{word}-{n}.yml", 2),
    ("mkdocs", _mkdocs, "docs/{area}/mkdocs-{word}-{n}.yml", 1),
    ("openapi", _openapi, "api/openapi/{area}-{noun}-{n}.yaml", 2),
    ("config", _app_config, "config/{area}/{word}-{n}.yml", 4),
    ("ci-config", _ci_config, "ci/config/{area}-{word}-{n}.yml", 1),
    ("ci-compose", _compose, "ci/docker/docker-compose.{area}-{n}.yml", 1),
)


# --- The whole set ---------------------------------------------------------------------


def _render_for_check(text: str) -> str:
    """A template as a generator would render it: tag-only lines dropped, ``{{ x }}`` -> x."""
    kept = [
        line
        for line in text.split("\n")
        if not (line.strip().startswith(("{%", "{#")) and line.strip().endswith(("%}", "#}")))
    ]
    rendered = "\n".join(kept)
    return re.sub(r"\{\{\s*([A-Za-z_]\w*)[^}]*\}\}", r"\1", rendered)


def _looks_like_pipeline(documents: list[Any]) -> bool:
    """The top level of a pipeline: a step list, ``steps:``, jobs with steps, or script jobs."""
    for document in documents:
        if isinstance(document, list) and any(
            isinstance(item, dict) and ("command" in item or "commands" in item)
            for item in document
        ):
            return True
        if not isinstance(document, dict):
            continue
        if isinstance(document.get("steps"), list):
            return True
        jobs = document.get("jobs")
        if isinstance(jobs, dict) and any(
            isinstance(job, dict) and "steps" in job for job in jobs.values()
        ):
            return True
        if any(
            isinstance(v, dict) and ("script" in v or "extends" in v) for v in document.values()
        ):
            return True
    return False


def check_yaml(files: dict[str, str], kinds: dict[str, str], knobs: set[str]) -> bool:
    """Guard the YAML generator; False when ruamel.yaml is not importable (check skipped).

    Every file must load with ruamel.yaml's safe loader (a template once rendered:
    ``{% %}``/``{# #}`` lines dropped, ``{{ x }}`` replaced by the word x); pipelines
    and templates must look like a pipeline at the top level and other YAML must not;
    a pipeline holds a CI_KNOB_WORDS word exactly when it is meant to hold a knob.
    """
    try:
        from ruamel.yaml import YAML
    except ImportError:
        return False
    yaml = YAML(typ="safe", pure=True)
    for path, text in files.items():
        kind = kinds[path]
        source = _render_for_check(text) if kind == "template" else text
        try:
            documents = [doc for doc in yaml.load_all(source) if doc is not None]
        except Exception as error:  # any ruamel error: a generator bug
            raise AssertionError(f"generator bug: {path} is not valid YAML: {error}") from error
        if _looks_like_pipeline(documents) != (kind != "other"):
            raise AssertionError(f"generator bug: {path} ({kind}) looks wrong at the top level")
        if kind == "other":
            continue
        words = [word for word in CI_KNOB_WORDS if word in text.lower()]
        if bool(words) != (path in knobs):
            raise AssertionError(
                f"generator bug: {path} should {'' if path in knobs else 'not '}hold a CI knob "
                f"but holds {words or 'none'}"
            )
    return True


def _shares(count: int) -> dict[str, int]:
    gitlab = 1 + GITLAB_INCLUDES if count >= 20 else 0
    split = {
        "template": round(count * TEMPLATE_SHARE),
        "github": round(count * GITHUB_SHARE),
        "gitlab": gitlab,
        "other": round(count * OTHER_YAML_SHARE),
    }
    split["buildkite"] = max(0, count - sum(split.values()))
    return {kind: split[kind] for kind in PIPELINE_KINDS}


def _size(rng: random.Random, median: float, sigma: float, low: int, high: int) -> int:
    return max(low, min(high, int(rng.lognormvariate(math.log(median), sigma))))


@dataclass
class PipelineTree:
    """The YAML files ``--pipelines`` adds, by tree-relative path."""

    files: dict[str, str]  # path -> text
    kinds: dict[str, str]  # path -> one of PIPELINE_KINDS
    knobs: set[str]  # the pipelines and templates that hold a CI knob
    env_names: set[str]  # every variable a pipeline step sets


_TRIAL_VARIABLE = re.compile(r"^([A-Z][A-Z0-9_]*_TRIALS) = int\(os\.getenv\(", re.M)


def generate_pipelines(seed: int, count: int, tests: dict[str, str]) -> PipelineTree:
    """``count`` YAML files for a tree whose test files are ``tests`` (path -> text).

    Pipeline steps run the tree's test directories and files; some set the
    ``X_TRIALS`` variable that a test with an env-driven trial loop reads.
    """
    rng = random.Random(f"{seed}:pipelines")
    test_files: dict[tuple[str, str], list[str]] = {}
    trial_vars: dict[tuple[str, str], list[str]] = {}
    for path, text in tests.items():
        _, area, sub, _ = path.split("/", 3)
        test_files.setdefault((area, sub), []).append(path)
        trial_vars.setdefault((area, sub), []).extend(_TRIAL_VARIABLE.findall(text))
    ctx = PipelineContext(rng, test_files, {k: v for k, v in trial_vars.items() if v})
    split = _shares(count)
    files: dict[str, str] = {}
    kinds: dict[str, str] = {}
    knobs: set[str] = set()

    def add(path: str, kind: str, text: str, knob: bool = False) -> None:
        files[path], kinds[path] = text, kind
        if knob:
            knobs.add(path)

    def unique(pattern: str, area: str) -> str:
        for n in range(1, 10_000):
            path = pattern.format(
                area=area,
                noun=ctx.pick(NOUNS),
                word=ctx.pick(WORDS),
                n=n,
                sub=ctx.pick(AREAS[area]),
            )
            if path not in files:
                return path
        raise AssertionError("generator bug: no free path")

    areas = tuple(AREAS)
    # Buildkite: the entry pipeline uploads the ones under buildkite/; ~CI_KNOB_SHARE hold knobs.
    n_bk = split["buildkite"]
    bk_knobs = set(rng.sample(range(n_bk), round(n_bk * CI_KNOB_SHARE)))
    paths: list[tuple[str, str]] = []
    for index in range(n_bk):
        area = areas[index % len(areas)]
        if index == 0:
            path = ".buildkite/pipeline.yml"
        elif rng.random() < 0.5:
            path = unique(".buildkite/{area}-{sub}-{n}.yml", area)
        else:
            path = unique("buildkite/{area}/{word}-{n}.yml", area)
        files[path] = ""  # reserve the name
        paths.append((path, area))
    uploads = [path for path, _ in paths if path.startswith("buildkite/")][:12]
    for index, (path, area) in enumerate(paths):
        knob_list = []
        if index in bk_knobs:
            knob_list = [_weighted(rng, BK_KNOBS) for _ in range(rng.choice((1, 1, 1, 2, 3)))]
        size = _size(rng, 5500, 1.0, 1500, 60_000)
        text = _buildkite_pipeline(ctx, path, area, size, knob_list, uploads if index == 0 else [])
        add(path, "buildkite", text, bool(knob_list))

    n_templates = split["template"]
    template_knobs = set(rng.sample(range(n_templates), round(n_templates * CI_KNOB_SHARE)))
    for index in range(n_templates):
        area = areas[index % len(areas)]
        pattern = ctx.pick(
            ("pipeline-{area}-{n}.yml.j2", "{area}-{word}-{n}.yml.j2", "steps-{area}-{n}.yml.j2")
        )
        path = unique("ci/templates/" + pattern, area)
        knob = index in template_knobs
        add(
            path,
            "template",
            _template(ctx, path, area, _size(rng, 3000, 0.5, 900, 30_000), knob),
            knob,
        )

    n_github = split["github"]
    github_knobs = set(rng.sample(range(n_github), round(n_github * GITHUB_KNOB_SHARE)))
    for index in range(n_github):
        area = areas[index % len(areas)]
        path = unique(".github/workflows/tests-{area}-{n}.yml", area)
        knob = index in github_knobs
        add(
            path,
            "github",
            _github_workflow(ctx, area, _size(rng, 2500, 0.5, 800, 20_000), knob),
            knob,
        )

    if split["gitlab"]:
        gitlab_areas = rng.sample(areas, GITLAB_INCLUDES)
        includes = [f"ci/gitlab/tests-{area}.yml" for area in gitlab_areas]
        add(".gitlab-ci.yml", "gitlab", _gitlab_root(includes))
        ctx.env_names.update(("PIP_CACHE_DIR", "PYTHONHASHSEED", "TEST_PATH"))
        for index, (area, path) in enumerate(zip(gitlab_areas, includes, strict=True)):
            text = _gitlab_include(ctx, area, _size(rng, 3000, 0.4, 1000, 20_000), index == 0)
            add(path, "gitlab", text, index == 0)

    n_other = split["other"]
    big_files = (
        ("api/openapi/monorepo.yaml", _openapi),
        ("deploy/k8s/bundle.yaml", _k8s_manifest),
        ("deploy/helm/monorepo/values.yaml", _helm_values),
    )
    named: list[tuple[str, Callable[[PipelineContext, str, int], str], int | None]] = [
        (path, make, size) for (path, make), size in zip(big_files, BIG_YAML_BYTES, strict=True)
    ]
    if n_other < 20:  # a small tree gets no big file
        named = []
    named += [
        ("docker-compose.yml", _compose, None),
        ("mkdocs.yml", _mkdocs, None),
        (".github/dependabot.yml", _dependabot, None),
    ]
    for index in range(n_other):
        area = areas[index % len(areas)]
        if index < len(named):
            path, make, fixed_size = named[index]
        else:
            _, make, pattern, _ = _weighted(rng, [(entry, entry[3]) for entry in OTHER_YAML])
            path, fixed_size = unique(pattern, area), None
        size = fixed_size or _size(rng, 1800, 1.1, 400, 40_000)
        add(path, "other", make(ctx, area, size))
    return PipelineTree(files, kinds, knobs, ctx.env_names)


def _check_env_names(names: set[str], written: dict[str, str], candidates: set[str]) -> None:
    """Guard the generator: no variable a pipeline sets may occur in a file without knobs.

    The engine makes every such name of 4+ characters a word of its Python prefilter
    (a test reading it may have its trial count overridden), so one that occurs in
    ordinary test files would make detlint parse them all.
    """
    tokens = sorted(name.lower() for name in names if len(name) >= 4)
    for path, text in written.items():
        if path in candidates:
            continue
        lowered = text.lower()
        hits = [token for token in tokens if token in lowered]
        if hits:
            raise AssertionError(f"generator bug: {path} holds pipeline variables {hits}")


def generate_tree(
    root: Path,
    files: int,
    megabytes: float,
    seed: int,
    pipelines: int = 0,
    log: Callable[[str], None] = lambda message: None,
) -> TreeFacts:
    """Write the synthetic monorepo under ``root`` (which must be empty) and commit it.

    ``pipelines`` YAML files (see ``generate_pipelines``) come from their own random
    stream, so the Python files are the same whatever their number.
    """
    rng = random.Random(seed)
    dirs = [(area, sub) for area, subs in AREAS.items() for sub in subs]
    written: dict[str, str] = {}

    # Fixed scaffolding: conftest files, __init__ files, helpers and source modules.
    written["tests/__init__.py"] = ""
    written["tests/conftest.py"] = _conftest(rng, None)
    for area in AREAS:
        written[f"tests/{area}/__init__.py"] = ""
        written[f"tests/{area}/conftest.py"] = _conftest(rng, area)
        written[f"tests/{area}/helpers.py"] = _helpers(rng, area)
        written[f"src/monorepo/{area}/__init__.py"] = f'"""monorepo.{area}."""\n'
    for area, sub in dirs:
        written[f"tests/{area}/{sub}/__init__.py"] = ""
        if rng.random() < 0.4:
            written[f"tests/{area}/{sub}/conftest.py"] = _conftest(rng, f"{area}.{sub}")
        written[f"src/monorepo/{area}/{sub}.py"] = _source_module(
            rng, area, sub, rng.randint(2000, 9000)
        )
    written["src/monorepo/__init__.py"] = '"""The monorepo package."""\n'

    tests = files - len(written)
    if tests < len(dirs):
        raise SystemExit(f"--files must be at least {len(written) + len(dirs)}")
    budget = megabytes * 1_000_000 - sum(len(text) for text in written.values())
    weights = [rng.lognormvariate(0.0, 0.75) for _ in range(tests)]
    scale = budget / sum(weights)
    sizes = [max(700, min(int(w * scale), 150_000)) for w in weights]

    n_candidates = max(1, round(tests * CANDIDATE_SHARE))
    n_skipif = round(tests * SKIPIF_SHARE)
    kinds = ["candidate"] * n_candidates + ["skipif"] * n_skipif
    kinds += ["plain"] * (tests - len(kinds))
    rng.shuffle(kinds)
    # The first candidate is needle-like (flaky marker + env trial loop): the one-file target.
    kinds[kinds.index("candidate")] = "needle"

    used: set[str] = set()
    test_paths: list[tuple[str, str]] = []
    for index in range(tests):
        area, sub = dirs[index % len(dirs)] if index < len(dirs) else rng.choice(dirs)
        for _ in range(1000):
            name = f"test_{rng.choice(VERBS)}_{rng.choice(NOUNS)}"
            if rng.random() < 0.4:
                name += f"_{rng.choice(QUALIFIERS)}"
            path = f"tests/{area}/{sub}/{name}.py"
            if path not in used:
                break
        else:
            path = f"tests/{area}/{sub}/test_generated_{index}.py"
        used.add(path)
        kind = kinds[index]
        file_rng = random.Random(f"{seed}:{path}")
        if kind == "needle":
            knobs = ["flaky-trials"]
        elif kind == "candidate":
            knobs = [
                _weighted(file_rng, KNOB_KINDS) for _ in range(file_rng.choice((1, 1, 1, 2, 3)))
            ]
        else:
            knobs = []
        text = _test_module(
            file_rng,
            area,
            sub,
            sizes[index],
            "candidate" if kind == "needle" else kind,
            knobs,
        )
        written[path] = text
        test_paths.append((path, kind))

    candidates = {p for p, k in test_paths if k in ("candidate", "needle")}
    for path, text in written.items():
        if path not in candidates:
            _check_not_candidate(path, text)
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (root / "requirements").mkdir()
    (root / "requirements" / "test.txt").write_text(
        "# Test dependencies, pinned by the release tooling.\n"
        "pytest==8.3.4\npytest-rerunfailures==16.7\npytest-xdist==3.6.1\n"
        "pytest-cov==6.0.0\nhypothesis==6.122.3\nfreezegun==1.5.1\n",
        encoding="utf-8",
    )
    (root / "pyproject.toml").write_text(
        '[project]\nname = "monorepo"\nversion = "0.1.0"\nrequires-python = ">=3.10"\n\n'
        "[tool.pytest.ini_options]\n"
        'testpaths = ["tests"]\naddopts = "-ra --strict-markers -p no:cacheprovider"\n'
        'pythonpath = ["src", "."]\nxfail_strict = false\n'
        'markers = [\n    "slow: takes more than a second",\n'
        '    "integration: talks to a real service",\n]\n',
        encoding="utf-8",
    )
    (root / ".gitignore").write_text("__pycache__/\n*.pyc\n.pytest_cache/\n.venv/\n")
    (root / "README.md").write_text("# monorepo\n\nSynthetic tree generated by bench/run.py.\n")
    yaml_facts: dict[str, Any] = {}
    if pipelines > 0:
        yaml_tree = generate_pipelines(seed, pipelines, {p: written[p] for p, _ in test_paths})
        _check_env_names(yaml_tree.env_names, written, candidates)
        if check_yaml(yaml_tree.files, yaml_tree.kinds, yaml_tree.knobs):
            log(f"{len(yaml_tree.files)} YAML files load with ruamel.yaml (templates rendered)")
        else:
            log("ruamel.yaml is not importable: the YAML self-check is skipped")
        for path, text in yaml_tree.files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        targets = [name for name in PIPELINE_TARGETS if (root / name).exists()]
        yaml_facts = {
            "pipeline_files": len(yaml_tree.files),
            "pipeline_bytes": sum(len(t.encode()) for t in yaml_tree.files.values()),
            "pipeline_kinds": {
                kind: sum(1 for k in yaml_tree.kinds.values() if k == kind)
                for kind in PIPELINE_KINDS
            },
            "ci_knob_files": len(yaml_tree.knobs),
            "pipeline_targets": targets,
            "pipeline_target_files": sum(
                1
                for path in yaml_tree.files
                if any(path == name or path.startswith(name + "/") for name in targets)
            ),
        }
    _git_commit(root, "Synthetic monorepo")

    plain = [p for p, k in test_paths if k == "plain"]
    by_size = sorted(plain, key=lambda p: len(written[p]))
    needle = next(p for p, k in test_paths if k == "needle")
    return TreeFacts(
        root=str(root),
        seed=seed,
        python_files=len(written),
        python_bytes=sum(len(t.encode()) for t in written.values()),
        test_files=len(test_paths),
        conftest_files=sum(1 for p in written if p.endswith("conftest.py")),
        helper_files=sum(1 for p in written if not p.startswith("tests/") or "helpers" in p),
        candidate_files=sum(1 for _, k in test_paths if k in ("candidate", "needle")),
        skipif_files=sum(1 for _, k in test_paths if k == "skipif"),
        no_knob_files=len(plain),
        file_no_candidates=by_size[len(by_size) // 2],
        file_with_marker=needle,
        **yaml_facts,
    )


def _git_commit(root: Path, message: str) -> None:
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    git += ["-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {"GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", message]):
        subprocess.run([*git, *args], cwd=root, env=env, check=True, stdin=subprocess.DEVNULL)


def corpus_files(corpus: Path, skip: Path) -> list[tuple[str, int]]:
    """The ``*.py`` files under ``corpus`` to copy, as sorted (relative path, size) pairs.

    Files over CORPUS_MAX_FILE_BYTES, anything under a CORPUS_SKIP_DIRS directory
    (``__pycache__``, and ``.git``, which git would refuse to add) and the tree
    ``skip`` itself are left out. Symbolic links to directories are not followed;
    a link to a file is copied as the file it points to.
    """
    found: list[tuple[str, int]] = []
    for directory, dirnames, filenames in os.walk(corpus):
        here = Path(directory)
        dirnames[:] = sorted(
            name for name in dirnames if name not in CORPUS_SKIP_DIRS and here / name != skip
        )
        for name in filenames:
            if not name.endswith(".py"):
                continue
            try:
                info = os.stat(here / name)
            except OSError:  # a broken symbolic link
                continue
            if stat.S_ISREG(info.st_mode) and info.st_size <= CORPUS_MAX_FILE_BYTES:
                found.append(((here / name).relative_to(corpus).as_posix(), info.st_size))
    return sorted(found)


def _is_test_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.startswith("test_") and name.endswith(".py")


def _median_by_size(paths: list[str], sizes: dict[str, int]) -> str | None:
    """The median-sized path (ties broken by path), or None for an empty list."""
    ordered = sorted(paths, key=lambda path: (sizes[path], path))
    return ordered[len(ordered) // 2] if ordered else None


def copy_corpus(root: Path, corpus: Path, files: list[tuple[str, int]]) -> TreeFacts:
    """Copy ``files`` from ``corpus`` into ``root`` (which must be empty) and commit them.

    The one-file targets are picked by bytes, deterministically: the median-sized
    ``test_*.py`` file holding no prefilter word (not even with DET301's trial loops),
    and the median-sized ``test_*.py`` file holding ``mark.xfail`` or ``mark.flaky``.
    """
    sizes: dict[str, int] = {}
    tests = candidates = candidate_tests = conftests = 0
    plain: list[str] = []
    marked: dict[str, str] = {}
    for rel, _ in files:
        data = (corpus / rel).read_bytes()
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        sizes[rel] = len(data)
        is_candidate = bool(prefilter_words(data, trials=False))  # what a default run parses
        candidates += is_candidate
        conftests += rel.rsplit("/", 1)[-1] == "conftest.py"
        if not _is_test_file(rel):
            continue
        tests += 1
        candidate_tests += is_candidate
        if not prefilter_words(data, trials=True):
            plain.append(rel)
        kinds = [kind for kind in ("xfail", "flaky") if f"mark.{kind}".encode() in data]
        if kinds:
            marked[rel] = " and ".join(kinds)
    _git_commit(root, f"Copy of the *.py files under {corpus}")
    with_marker = _median_by_size(list(marked), sizes)
    return TreeFacts(
        root=str(root),
        python_files=len(files),
        python_bytes=sum(sizes.values()),
        test_files=tests,
        candidate_files=candidate_tests,
        file_no_candidates=_median_by_size(plain, sizes),
        file_with_marker=with_marker,
        conftest_files=conftests,
        corpus=str(corpus),
        corpus_candidate_files=candidates,
        marker=marked[with_marker] if with_marker is not None else "flaky",
    )


def prepare_tree(args: argparse.Namespace, log: Callable[[str], None]) -> TreeFacts:
    root = Path(args.tree).absolute()
    manifest = root / MANIFEST
    build: Callable[[], TreeFacts]
    if args.corpus is not None:
        corpus = Path(args.corpus).resolve()
        if not corpus.is_dir():
            raise SystemExit(f"bench: --corpus {args.corpus} is not a directory")
        real_root = root.resolve()
        if corpus == real_root or real_root in corpus.parents:
            # Rebuilding the tree would delete the corpus.
            raise SystemExit(f"bench: the corpus {corpus} is inside the tree {root}; refusing")
        files = corpus_files(corpus, skip=real_root)
        if not files:
            raise SystemExit(f"bench: no *.py files to copy under {corpus}")
        total = sum(size for _, size in files)
        # The file count and size notice an upgraded environment; the path is the key.
        wanted: dict[str, Any] = {
            "version": CORPUS_VERSION,
            "corpus": str(corpus),
            "max_file_bytes": CORPUS_MAX_FILE_BYTES,
            "files": len(files),
            "bytes": total,
        }
        what = f"copying {len(files)} *.py files, {total / 1e6:.1f} MB, from {corpus} to {root}"
        build = functools.partial(copy_corpus, root, corpus, files)
    else:
        wanted = {
            "version": GENERATOR_VERSION,
            "files": args.files,
            "mb": args.mb,
            "seed": args.seed,
        }
        what = f"generating {args.files} files, ~{args.mb:g} MB, seed {args.seed}"
        if args.pipelines > 0:  # without pipelines, the parameters of older trees
            wanted |= {"pipelines": args.pipelines, "pipelines_version": PIPELINE_GENERATOR_VERSION}
            what += f", {args.pipelines} YAML files"
        what += f" in {root}"
        build = functools.partial(
            generate_tree, root, args.files, args.mb, args.seed, args.pipelines, log
        )
    if manifest.is_file():
        stored = json.loads(manifest.read_text())
        if stored["params"] == wanted and not args.regenerate:
            log(f"reusing the tree in {root}")
            return TreeFacts(**stored["facts"])
        log(f"rebuilding {root} (different parameters, a changed corpus or --regenerate)")
        shutil.rmtree(root)
    elif root.exists() and any(root.iterdir()):
        raise SystemExit(f"bench: {root} exists, is not empty and is not a bench tree; refusing")
    root.mkdir(parents=True, exist_ok=True)
    log(f"{what} ...")
    start = time.perf_counter()
    facts = build()
    log(f"built and committed in {time.perf_counter() - start:.1f} s")
    manifest.write_text(json.dumps({"params": wanted, "facts": asdict(facts)}, indent=2))
    return facts


# ---------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    key: str
    label: str
    argv: tuple[str, ...]
    ok: frozenset[int] = frozenset({0})
    # Run from an empty temporary directory instead of the tree's root: ``python -c``
    # puts its working directory first on sys.path, and a corpus may hold click or libcst.
    neutral_cwd: bool = False


@dataclass(frozen=True)
class Skipped:
    key: str
    label: str
    reason: str


@dataclass
class Measurement:
    key: str
    label: str
    argv: list[str]
    seconds: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    exit_codes: list[int] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def peak_mb(self) -> float:
        return max(self.rss_mb)


class CommandFailed(Exception):
    pass


# The fallback RSS probe when GNU time is missing: fork, exec the command, write the
# child's ru_maxrss to a file. -I -S keep the probe small, since the RSS the forked
# child holds before exec counts towards its peak.
_PROBE = r"""import os, sys
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    except OSError as error:
        os.write(2, f"bench probe: cannot run {sys.argv[2]}: {error}\n".encode())
    os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


@dataclass(frozen=True)
class Runner:
    """Runs one command under a small RSS probe and reads back its peak RSS.

    The probe matters: Linux counts the pages a child holds just before exec towards
    its ``ru_maxrss``, so a command spawned directly from this (large) script would
    inherit this script's RSS as a floor. ``/usr/bin/time`` (GNU) holds about 2 MB;
    the Python probe about 8 MB.
    """

    method: str
    probe: tuple[str, ...]
    rss_file: Path
    unit_bytes: int  # bytes per unit of the number the probe writes
    env: dict[str, str]

    @classmethod
    def create(cls, scratch: Path, inherit_env: bool) -> Runner:
        env = dict(os.environ)
        if not inherit_env:
            # Warm bytecode caches, as an installed package has them, in a private place:
            # PYTHONDONTWRITEBYTECODE would make every run recompile editable installs.
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
        # Both linters keep their caches in the scratch directory, never in the tree
        # or the user's cache: a row without --no-cache is warm after the warm-up run.
        env["DETLINT_CACHE_DIR"] = str(scratch / "detlint-cache")
        env["RUFF_CACHE_DIR"] = str(scratch / "ruff-cache")
        env.pop("DETLINT_NO_CACHE", None)
        rss_file = scratch / "maxrss"
        gnu_time = ("/usr/bin/time", "-f", "%M", "-o", str(rss_file))
        if Path(gnu_time[0]).is_file():
            result = subprocess.run([*gnu_time, "true"], capture_output=True, check=False, env=env)
            if result.returncode == 0 and rss_file.read_text().strip().isdigit():
                return cls("GNU time %M", gnu_time, rss_file, 1024, env)
        probe = (sys.executable, "-I", "-S", "-c", _PROBE, str(rss_file))
        unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, else KB
        return cls("python wait4 probe", probe, rss_file, unit, env)

    def run(
        self, command: Command, cwd: Path, stdout: Path | None = None
    ) -> tuple[float, float, int]:
        """Wall seconds, peak RSS (MB) and exit status of one run of ``command``."""
        self.rss_file.unlink(missing_ok=True)
        with (
            tempfile.TemporaryFile() as err,
            open(stdout if stdout is not None else os.devnull, "wb") as out,
        ):
            start = time.perf_counter()
            result = subprocess.run(
                [*self.probe, *command.argv],
                cwd=cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                check=False,
            )
            elapsed = time.perf_counter() - start
            code = result.returncode
            if code not in command.ok:
                err.seek(0)
                message = err.read().decode(errors="replace")[-4000:]
                raise CommandFailed(
                    f"{command.label}: exit status {code} (expected {sorted(command.ok)})\n"
                    f"  command: {' '.join(command.argv)}\n  stderr:\n{message}"
                )
        # GNU time writes "Command exited with non-zero status 1" before the number.
        lines = self.rss_file.read_text().split()
        if not lines or not lines[-1].isdigit():
            raise CommandFailed(f"{command.label}: the RSS probe wrote no number: {lines!r}")
        return elapsed, int(lines[-1]) * self.unit_bytes / 2**20, code


def _tool(name: str) -> str:
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"bench: {name} not found beside {sys.executable} or on PATH")
    return found


def commands(facts: TreeFacts) -> tuple[list[Command], list[Skipped]]:
    """The commands to measure, and the one-file rows the tree has no file for."""
    root = facts.root
    python, detlint, ruff = sys.executable, _tool("detlint"), _tool("ruff")
    lint = frozenset({0, 1})  # linters exit 1 when they have findings
    todo = [
        Command("python", "python -c pass", (python, "-c", "pass"), neutral_cwd=True),
        Command(
            "click", 'python -c "import click"', (python, "-c", "import click"), neutral_cwd=True
        ),
        Command(
            "libcst", 'python -c "import libcst"', (python, "-c", "import libcst"), neutral_cwd=True
        ),
        Command(
            "grep",
            "grep -rlE 'flaky|xfail|skip'",
            # .git is left out: it holds compressed copies no linter reads.
            ("grep", "-rlE", "--exclude-dir=.git", "flaky|xfail|skip", root),
            lint,  # grep exits 1 when nothing matches
        ),
        Command(
            "ruff",
            "ruff check --select PT --no-cache",
            (ruff, "check", "--select", "PT", "--no-cache", root),
            lint,
        ),
        Command("audit", "detlint audit --no-cache", (detlint, "audit", "--no-cache", root), lint),
        Command("check", "detlint check --no-cache", (detlint, "check", "--no-cache", root), lint),
    ]
    if facts.pipeline_targets:
        # Repeat runs: both tools keep their caches in the scratch directory (the
        # warm-up run fills them), so these rows time a run over an unchanged tree.
        todo += [
            Command(
                "ruff_warm",
                "ruff check --select PT <warm cache>",
                (ruff, "check", "--select", "PT", root),
                lint,
            ),
            Command("audit_warm", "detlint audit <warm cache>", (detlint, "audit", root), lint),
        ]
    skipped: list[Skipped] = []
    one_file = (
        (
            "one_plain",
            "detlint check <1 file, no candidates>",
            facts.file_no_candidates,
            "no test_*.py file without prefilter words in the tree",
        ),
        (
            "one_marker",
            f"detlint check <1 file, {facts.marker if facts.file_with_marker else 'a'} marker>",
            facts.file_with_marker,
            "no test_*.py file with mark.xfail or mark.flaky in the tree",
        ),
    )
    for key, label, path, missing in one_file:
        if path is None:
            skipped.append(Skipped(key, label, missing))
        else:
            todo.append(Command(key, label, (detlint, "check", os.path.join(root, path)), lint))
    if facts.pipeline_targets and facts.file_with_marker:
        # The marker check reads the pipelines that can retry its test; a pre-commit
        # hook's repeat runs find them in the cache, its first run does not.
        label = f"detlint check <1 file, {facts.marker} marker> --no-cache"
        argv = (detlint, "check", "--no-cache", os.path.join(root, facts.file_with_marker))
        todo.append(Command("one_marker_cold", label, argv, lint))
    if facts.pipeline_targets:
        label = f"detlint check --no-cache <{facts.pipeline_target_files} pipeline files>"
        targets = tuple(os.path.join(root, name) for name in facts.pipeline_targets)
        todo.append(Command("pipelines", label, (detlint, "check", "--no-cache", *targets), lint))
    else:
        why = "a --corpus copy holds *.py files only" if facts.corpus else "--pipelines 0"
        skipped.append(
            Skipped("pipelines", "detlint check <pipeline files>", f"no pipelines ({why})")
        )
    return todo, skipped


def check_reference_imports(runner: Runner, cwd: Path, tree: Path) -> None:
    """Make sure the reference commands import the installed click and libcst, not a copy."""
    code = "import click, libcst; print(click.__file__); print(libcst.__file__)"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=runner.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise CommandFailed(f"python -c {code!r}: exit status {result.returncode}\n{result.stderr}")
    for location in result.stdout.split():
        if Path(location).resolve().is_relative_to(tree.resolve()):
            raise CommandFailed(f"the reference imports load {location}, inside the tree")


@dataclass(frozen=True)
class Ratio:
    label: str
    numerator: str
    denominator: str
    limit: float | None  # None: informational
    strict: bool  # True: value < limit; False: value <= limit

    def judge(self, value: float) -> str:
        if self.limit is None:
            return "info"
        ok = value < self.limit if self.strict else value <= self.limit
        return "PASS" if ok else "FAIL"

    @property
    def target(self) -> str:
        if self.limit is None:
            return "-"
        return f"{'<' if self.strict else '<='} {self.limit:g}"


RATIOS = (
    Ratio("detlint audit / ruff check --select PT", "audit", "ruff", 1.0, strict=True),
    Ratio("detlint audit / grep", "audit", "grep", None, strict=True),
    Ratio(
        'one-file check (no candidates) / python -c "import click"',
        "one_plain",
        "click",
        1.5,
        strict=False,
    ),
    Ratio(
        'one-file check (marker) / python -c "import libcst"',
        "one_marker",
        "libcst",
        1.5,
        strict=False,
    ),
    # The YAML pass's share of a whole-repository audit: "pipelines must not dominate".
    Ratio("pipelines check / detlint audit", "pipelines", "audit", None, strict=True),
    Ratio("audit, warm caches: detlint / ruff", "audit_warm", "ruff_warm", None, strict=True),
    Ratio("detlint audit: warm cache / --no-cache", "audit_warm", "audit", None, strict=True),
)


def _audit_summary(path: Path) -> dict[str, int]:
    """What the warm-up audit found: a sanity check that detlint did the work."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    knob_files = {knob["path"] for knob in document.get("knobs", []) if "path" in knob}
    summary = {
        "audit_knobs": len(document.get("knobs", [])),
        "audit_knob_files": len(knob_files),
        "audit_tests": len(document.get("tests", [])),
        "audit_findings": len(document.get("findings", [])),
    }
    ci = document.get("ci")
    if isinstance(ci, dict):  # detlint with a CI pass
        ci_knob_files = {knob["path"] for knob in ci.get("knobs", []) if "path" in knob}
        summary |= {
            "audit_pipelines": len(ci.get("pipelines", [])),
            "audit_ci_knobs": len(ci.get("knobs", [])),
            "audit_ci_knob_files": len(ci_knob_files),
            "audit_ci_runs": len(ci.get("runs", [])),
        }
    return summary


def measure(
    facts: TreeFacts,
    todo: list[Command],
    repeat: int,
    runner: Runner,
    scratch: Path,
    log: Callable[[str], None],
) -> tuple[list[Measurement], dict[str, int]]:
    tree = Path(facts.root)
    neutral = scratch / "neutral-cwd"  # empty: nothing in it can shadow an installed package
    neutral.mkdir()
    check_reference_imports(runner, neutral, tree)

    def cwd(command: Command) -> Path:
        return neutral if command.neutral_cwd else tree

    results = {c.key: Measurement(c.key, c.label, list(c.argv)) for c in todo}
    audit_out = scratch / "audit.json"
    for command in todo:
        out = audit_out if command.key == "audit" else None
        elapsed, _, _ = runner.run(command, cwd(command), out)
        log(f"warm-up  {command.label:<40} {elapsed:7.3f} s")
    summary = _audit_summary(audit_out)
    for round_number in range(1, repeat + 1):
        for command in todo:
            elapsed, rss, code = runner.run(command, cwd(command))
            result = results[command.key]
            result.seconds.append(elapsed)
            result.rss_mb.append(rss)
            result.exit_codes.append(code)
        log(f"round {round_number}/{repeat} done")
    return list(results.values()), summary


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def _one_file(facts: TreeFacts, path: str | None, what: str) -> dict[str, Any] | None:
    if path is None:
        return None
    size = os.path.getsize(os.path.join(facts.root, path))
    return {"path": path, "kb": round(size / 1000, 1), "holds": what}


def report(
    facts: TreeFacts,
    todo: list[Command],
    skipped: list[Skipped],
    results: list[Measurement],
    summary: dict[str, int],
    repeat: int,
) -> dict[str, Any]:
    by_key = {r.key: r for r in results}
    neutral = {c.key for c in todo if c.neutral_cwd}
    ratios: list[dict[str, Any]] = []
    for ratio in RATIOS:
        if ratio.numerator not in by_key or ratio.denominator not in by_key:
            ratios.append(
                {"ratio": ratio.label, "value": None, "target": ratio.target, "result": "skipped"}
            )
            continue
        value = by_key[ratio.numerator].median / by_key[ratio.denominator].median
        ratios.append(
            {
                "ratio": ratio.label,
                "value": round(value, 3),
                "target": ratio.target,
                "result": ratio.judge(value),
            }
        )
    return {
        "tree": asdict(facts)
        | {
            "python_mb": round(facts.python_bytes / 1e6, 2),
            "pipeline_mb": round(facts.pipeline_bytes / 1e6, 2),
        },
        "one_file": {
            "no_candidates": _one_file(facts, facts.file_no_candidates, "no prefilter word"),
            "marker": _one_file(facts, facts.file_with_marker, f"{facts.marker} marker"),
        },
        "detlint_found": summary,
        "runs": repeat,
        "warmup_runs": 1,
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "commands": [
            {
                "command": r.label,
                "argv": r.argv,
                "cwd": "neutral empty directory" if r.key in neutral else "tree root",
                "median_seconds": round(r.median, 4),
                "min_seconds": round(min(r.seconds), 4),
                "max_seconds": round(max(r.seconds), 4),
                "peak_rss_mb": round(r.peak_mb, 1),
                "exit_codes": sorted(set(r.exit_codes)),
            }
            for r in results
        ],
        "skipped_commands": [{"command": s.label, "reason": s.reason} for s in skipped],
        "ratios": ratios,
    }


def _tree_line(tree: dict[str, Any]) -> str:
    if tree.get("corpus") is None:
        line = (
            f"tree {tree['root']}: {tree['python_files']} Python files, {tree['python_mb']} MB; "
            f"{tree['test_files']} test files: {tree['candidate_files']} candidates "
            f"(rerun/xfail/flaky-skip), {tree['skipif_files']} platform-skipif only, "
            f"{tree['no_knob_files']} without markers"
        )
        if tree.get("pipeline_files"):
            line += f"; {tree['pipeline_files']} YAML files, {tree['pipeline_mb']} MB"
        return line
    return (
        f"tree {tree['root']}: copy of {tree['corpus']}: {tree['python_files']} Python files, "
        f"{tree['python_mb']} MB; {tree['test_files']} test files (test_*.py), "
        f"{tree['candidate_files']} of them candidates; {tree['corpus_candidate_files']} "
        f"candidate files in all (candidate: holds a word of detlint's byte prefilter)"
    )


def _pipelines_line(tree: dict[str, Any]) -> str | None:
    kinds = tree.get("pipeline_kinds")
    if not tree.get("pipeline_files") or not kinds:
        return None
    return (
        f"YAML files: {kinds['buildkite']} Buildkite pipelines, {kinds['template']} Jinja "
        f"templates, {kinds['github']} GitHub workflows, {kinds['gitlab']} GitLab files, "
        f"{kinds['other']} other YAML (k8s, helm, compose, mkdocs, openapi, config); "
        f"{tree['ci_knob_files']} with a CI knob; the pipelines check reads "
        f"{' '.join(tree['pipeline_targets'] or ())} ({tree['pipeline_target_files']} files)"
    )


def render_text(document: dict[str, Any]) -> str:
    found = document["detlint_found"]
    tree = document["tree"]
    lines = [_tree_line(tree)]
    pipelines = _pipelines_line(tree)
    if pipelines:
        lines.append(pipelines)
    picks = [
        f"{pick['path']} ({pick['kb']:g} KB, {pick['holds']})"
        for pick in document["one_file"].values()
        if pick is not None
    ]
    if picks:
        lines.append(f"one-file checks: {'; '.join(picks)}")
    if found:
        lines.append(
            f"detlint audit found {found['audit_knobs']} knobs in {found['audit_knob_files']} "
            f"files, {found['audit_tests']} tests, {found['audit_findings']} findings"
        )
    if found and pipelines and "audit_pipelines" in found:
        lines.append(
            f"detlint audit read {found['audit_pipelines']} pipelines: "
            f"{found['audit_ci_knobs']} CI knobs in {found['audit_ci_knob_files']} files, "
            f"{found['audit_ci_runs']} pytest runs"
        )
    lines.append(
        f"median of {document['runs']} runs after 1 warm-up; {document['cpus']} CPUs; "
        f"Python {document['python']}; RSS via {document.get('rss_method', '?')}; "
        f"bytecode cache: {document.get('bytecode_cache', '?')}"
    )
    lines.append("")
    skipped = document.get("skipped_commands", [])
    width = max(len(c["command"]) for c in [*document["commands"], *skipped])
    lines.append(f"{'command':<{width}}  {'median s':>9}  {'min s':>8}  {'peak RSS MB':>11}")
    for c in document["commands"]:
        lines.append(
            f"{c['command']:<{width}}  {c['median_seconds']:>9.3f}  {c['min_seconds']:>8.3f}  "
            f"{c['peak_rss_mb']:>11.1f}"
        )
    for c in skipped:
        lines.append(f"{c['command']:<{width}}  skipped: {c['reason']}")
    lines.append("")
    width = max(len(r["ratio"]) for r in document["ratios"])
    lines.append(f"{'ratio (of medians)':<{width}}  {'value':>7}  {'target':>7}  result")
    for r in document["ratios"]:
        value = "-" if r["value"] is None else f"{r['value']:.2f}"
        lines.append(f"{r['ratio']:<{width}}  {value:>7}  {r['target']:>7}  {r['result']}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tree", help="build the tree here and keep it (reused if it matches)")
    parser.add_argument("--regenerate", action="store_true", help="rebuild an existing --tree")
    parser.add_argument(
        "--corpus",
        metavar="DIR",
        help="instead of generating a tree, copy every *.py file under DIR (up to 2 MB each, "
        "no __pycache__), e.g. .venv/lib/python3.11/site-packages",
    )
    parser.add_argument("--repeat", type=int, default=5, help="measured runs per command")
    parser.add_argument("--files", type=int, help="Python files in the synthetic tree (4500)")
    parser.add_argument("--mb", type=float, help="total size of the synthetic files (40)")
    parser.add_argument("--seed", type=int, help="generator seed (0)")
    parser.add_argument(
        "--pipelines",
        type=int,
        metavar="N",
        help=f"YAML files (CI pipelines, templates, other YAML) in the synthetic tree "
        f"({DEFAULT_PIPELINES})",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--inherit-env",
        action="store_true",
        help="run the commands in this environment as is (by default they get a private, "
        "warm bytecode cache via PYTHONPYCACHEPREFIX, and PYTHONDONTWRITEBYTECODE is dropped)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.corpus is not None:
        given = [
            f"--{name}"
            for name in ("files", "mb", "seed", "pipelines")
            if getattr(args, name) is not None
        ]
        if given:
            parser.error(f"{', '.join(given)}: only for the synthetic tree, not with --corpus")
    else:
        args.files = 4500 if args.files is None else args.files
        args.mb = 40.0 if args.mb is None else args.mb
        args.seed = 0 if args.seed is None else args.seed
        args.pipelines = DEFAULT_PIPELINES if args.pipelines is None else args.pipelines
        if args.pipelines < 0:
            parser.error("--pipelines must not be negative")
    if shutil.which("git") is None or shutil.which("grep") is None:
        raise SystemExit("bench: git and grep must be on PATH")

    def log(message: str) -> None:
        if not args.quiet:
            print(f"bench: {message}", file=sys.stderr, flush=True)

    temporary = None
    if args.tree is None:
        temporary = tempfile.mkdtemp(prefix="detlint-bench-")
        args.tree = temporary
    try:
        facts = prepare_tree(args, log)
        with tempfile.TemporaryDirectory(prefix="detlint-bench-scratch-") as scratch:
            runner = Runner.create(Path(scratch), args.inherit_env)
            log(f"peak RSS via {runner.method}")
            todo, skipped = commands(facts)
            for row in skipped:
                log(f"skipping {row.label}: {row.reason}")
            try:
                results, summary = measure(facts, todo, args.repeat, runner, Path(scratch), log)
            except CommandFailed as error:
                print(f"bench: COMMAND FAILED: {error}", file=sys.stderr)
                return 3
        document = report(facts, todo, skipped, results, summary, args.repeat)
        document["rss_method"] = runner.method
        document["bytecode_cache"] = (
            "inherited environment" if args.inherit_env else "private PYTHONPYCACHEPREFIX, warm"
        )
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
    print(json.dumps(document, indent=2) if args.json else render_text(document), end="")
    if args.json:
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
