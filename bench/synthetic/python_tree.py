"""The synthetic Python tree: its whole files, and ``generate_tree`` that writes it.

Test modules (built from ``python_blocks``), conftest files, helpers and the source
modules under test; ``generate_tree`` lays them out under areas, adds the YAML of
``--pipelines``, checks that no plain file looks like a candidate, and commits.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prefilter import prefilter_words
from tree_facts import TreeFacts, git_commit

from .pipelines import PIPELINE_KINDS, PIPELINE_TARGETS, generate_pipelines
from .python_blocks import BLOCKS, KNOB_KINDS, FileContext, knob_block, skipif_block
from .vocabulary import (
    AREAS,
    CLASS_SUFFIXES,
    NOUNS,
    QUALIFIERS,
    SKIPIF_MARKS,
    VERBS,
    WORDS,
    camel,
    weighted,
)
from .yaml_check import check_yaml

GENERATOR_VERSION = 1
CANDIDATE_SHARE = 0.03  # test files with a rerun / xfail / flaky-skip knob
SKIPIF_SHARE = 0.15  # test files with platform skipif markers only (no knob, no parse needed)


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


def _check_not_candidate(path: str, text: str) -> None:
    """Guard the generator: a file meant to hold no knob must not look like one to detlint.

    It must not be parsed even with DET301 selected, so trial loops count too.
    """
    bad = prefilter_words(text.encode(), trials=True)
    if bad:
        raise AssertionError(f"generator bug: {path} should hold no knob but contains {bad}")


def _test_module(
    rng: random.Random, area: str, sub: str, size: int, kind: str, knob_kinds: list[str]
) -> str:
    nouns = rng.sample(NOUNS, 4)
    ctx = FileContext(
        rng=rng,
        area=area,
        sub=sub,
        functions=[f"{rng.choice(VERBS)}_{noun}" for noun in nouns],
        classes=[f"{camel(nouns[0])}{rng.choice(CLASS_SUFFIXES)}"],
        factories=[f"make_{noun}" for noun in rng.sample(nouns, 2)],
    )
    ctx.functions = list(dict.fromkeys(ctx.functions))
    ctx.names.update(ctx.functions + ctx.classes + ctx.factories)
    blocks: list[str] = []
    total = 1000  # the header, and half a block of overshoot on average
    while total < size:
        block = weighted(rng, BLOCKS)(ctx)
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


# Over 60 lines: one random stream (rng) runs through it in order and fixes every
# generated byte, so it is kept whole, as written, rather than split at a risk of reordering.
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
                weighted(file_rng, KNOB_KINDS) for _ in range(file_rng.choice((1, 1, 1, 2, 3)))
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
    git_commit(root, "Synthetic monorepo")

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
