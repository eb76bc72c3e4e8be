"""The blocks a synthetic test module is made of, one top-level statement each.

Fixtures, parametrized tests, test classes and the like fill a module to its size;
``skipif_block`` and ``knob_block`` write the tests that hold a platform skip or a
knob (rerun, xfail, flaky skip). FileContext lets the blocks of one module refer to
each other's names.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .vocabulary import (
    EXCEPTIONS,
    KNOB_REASONS,
    NOUNS,
    QUALIFIERS,
    SKIPIF_MARKS,
    VERBS,
    WORDS,
    camel,
)


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
    cls = ctx.unique(f"{camel(noun)}Case")
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
    name = ctx.unique(f"Test{cls}{camel(ctx.pick(QUALIFIERS))}")
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
