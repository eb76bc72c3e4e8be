"""The words every synthetic generator draws from, and the weighted pick they share.

One vocabulary for the Python files and the YAML files, so that pipelines name the
areas, tests and helpers the Python tree holds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

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


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def weighted(rng: random.Random, table: Sequence[tuple[Any, int]]) -> Any:
    return rng.choices([item for item, _ in table], weights=[w for _, w in table])[0]
