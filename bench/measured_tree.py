"""The tree a benchmark measures: built once and reused while its parameters match.

It is generated (``synthetic/``) or copied from a corpus (``corpus.py``); the
parameters and the facts are stored in a manifest inside the tree's ``.git``, so a
kept ``--tree`` is rebuilt only when they change or ``--regenerate`` asks.
"""

from __future__ import annotations

import argparse
import functools
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from corpus import CORPUS_MAX_FILE_BYTES, CORPUS_VERSION, copy_corpus, corpus_files
from synthetic.pipelines import PIPELINE_GENERATOR_VERSION
from synthetic.python_tree import GENERATOR_VERSION, generate_tree
from tree_facts import TreeFacts

MANIFEST = Path(".git") / "detlint-bench.json"  # inside .git: invisible to every tool measured


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
