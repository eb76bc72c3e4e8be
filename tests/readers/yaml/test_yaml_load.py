"""read_yaml: exact positions, YAML semantics (aliases, merges, duplicates), templates,
recovery from invalid lines, hostile input, and agreement with ruamel.yaml's safe loader."""

from __future__ import annotations

import datetime
import json
import math
import time

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from detlint.readers.yaml import load as yaml_load
from detlint.readers.yaml.load import MAX_ALIAS_NODES, read_yaml
from detlint.readers.yaml.templates import looks_templated, mask_templates
from detlint.readers.yaml.tree import YMap, YNode, YSeq

PARSERS = pytest.mark.parametrize("pure", [False, True], ids=["libyaml", "pure"])


def plain(node: YNode | None) -> object:
    """A node as plain Python, as a safe loader would build it."""
    if isinstance(node, YMap):
        return {key.value: plain(value) for key, value in node.items}
    if isinstance(node, YSeq):
        return [plain(item) for item in node]
    return None if node is None else node.value


def where(node: YNode | None) -> tuple[int, int, int, int]:
    assert node is not None
    p = node.position
    return (p.line, p.column, p.end_line, p.end_column)


def key_where(node: YNode | None, key: str) -> tuple[int, int, int, int]:
    assert isinstance(node, YMap)
    return where(node.key(key))


def read(text: str, pure: bool = False) -> yaml_load.YamlFile:
    return read_yaml(text, "pipeline.yml", pure=pure)


def test_the_c_parser_is_installed():
    # ruamel.yaml.clib is a runtime dependency: without it reading is ~8x slower.
    assert yaml_load.C_PARSER


# --- positions ------------------------------------------------------------------------

BUILDKITE = (
    "\ufeffenv:\n"  # 1 (after a byte order mark)
    '  PYTHONHASHSEED: "0"\n'  # 2
    "steps:\n"  # 3
    '  - label: ":pytest: unit"\n'  # 4
    "    command: |\n"  # 5
    "      pytest -n 4 \\\n"  # 6
    "        --reruns 2\n"  # 7
    "    retry: {automatic: {exit_status: -1, limit: 2}}\n"  # 8
    "    soft_fail:\n"  # 9
    "      - exit_status: 1\n"  # 10
    "  - wait: ~\n"  # 11
    "\n"  # 12
    "---\n"  # 13
    "steps:\n"  # 14
    "  - label: second\n"  # 15
    "    retry:\n"  # 16
    "      automatic: true\n"  # 17
)


@PARSERS
def test_positions_in_a_buildkite_pipeline_are_exact(pure):
    loaded = read(BUILDKITE, pure)
    assert loaded.problems == ()
    first, second = loaded.documents
    assert isinstance(first, YMap)
    assert key_where(first, "env") == (1, 1, 1, 4)  # the BOM is not a column
    env = first.get("env")
    assert key_where(env, "PYTHONHASHSEED") == (2, 3, 2, 17)
    assert where(env.get("PYTHONHASHSEED")) == (2, 19, 2, 22)  # the quotes are part of it

    steps = first.get("steps")
    assert isinstance(steps, YSeq)
    assert where(steps) == (4, 3, 11, 12)  # from the first "-" to the end of "~"
    step = steps.items[0]
    assert key_where(step, "label") == (4, 5, 4, 10)
    assert where(step.get("label")) == (4, 12, 4, 27)
    assert key_where(step, "command") == (5, 5, 5, 12)
    # A block scalar ends at its last character, not at the next line.
    assert where(step.get("command")) == (5, 14, 7, 19)
    assert step.get("command").value == "pytest -n 4 \\\n  --reruns 2\n"

    retry = step.get("retry")  # flow mappings
    assert where(retry) == (8, 12, 8, 52)
    assert key_where(retry, "automatic") == (8, 13, 8, 22)
    automatic = retry.get("automatic")
    assert where(automatic) == (8, 24, 8, 51)
    assert key_where(automatic, "exit_status") == (8, 25, 8, 36)
    assert where(automatic.get("exit_status")) == (8, 38, 8, 40)
    assert key_where(automatic, "limit") == (8, 42, 8, 47)
    assert where(automatic.get("limit")) == (8, 49, 8, 50)

    soft_fail = step.get("soft_fail")
    assert where(soft_fail) == (10, 7, 10, 23)
    assert key_where(soft_fail.items[0], "exit_status") == (10, 9, 10, 20)
    assert where(soft_fail.items[0].get("exit_status")) == (10, 22, 10, 23)
    # A block mapping ends with its last value, not at the next step's "-".
    assert where(step) == (4, 5, 10, 23)

    wait = steps.items[1]
    assert key_where(wait, "wait") == (11, 5, 11, 9)
    assert where(wait.get("wait")) == (11, 11, 11, 12)

    second_step = second.get("steps").items[0]  # the second document
    assert key_where(second, "steps") == (14, 1, 14, 6)
    assert where(second_step.get("label")) == (15, 12, 15, 18)
    assert key_where(second_step.get("retry"), "automatic") == (17, 7, 17, 16)
    assert where(second_step.get("retry").get("automatic")) == (17, 18, 17, 22)


@PARSERS
def test_positions_with_windows_line_endings(pure):
    text = "steps:\r\n  - command: |\r\n      pytest\r\n\r\n    retry: 2\r\n"
    (document,) = read(text, pure).documents
    step = document.get("steps").items[0]
    assert step.get("command").value == "pytest\n"
    assert where(step.get("command")) == (2, 14, 3, 13)
    assert where(step.get("retry")) == (5, 12, 5, 13)


@PARSERS
def test_values_follow_the_core_schema(pure):
    loaded = read(BUILDKITE, pure)
    first, second = loaded.documents
    assert first.get("env").get("PYTHONHASHSEED").value == "0"
    assert first.get("env").get("PYTHONHASHSEED").quoted
    assert plain(first.get("steps").items[0].get("retry")) == {
        "automatic": {"exit_status": -1, "limit": 2}
    }
    assert first.get("steps").items[1].get("wait").value is None
    assert second.get("steps").items[0].get("retry").get("automatic").value is True


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true", True),
        ("True", True),
        ("TRUE", True),
        ("false", False),
        ("yes", "yes"),  # YAML 1.1 booleans are strings in 1.2
        ("on", "on"),
        ("null", None),
        ("~", None),
        ("", None),
        ("NULL", None),
        ("12", 12),
        ("-3", -3),
        ("1_000", 1000),
        ("0o17", 15),
        ("0x1F", 31),
        ("0b101", 5),
        ("017", 17),
        ("09", 9),
        pytest.param("9" * 5000, "9" * 5000, id="more-digits-than-int-converts"),
        ("1.5", 1.5),
        ("-2e3", -2000.0),
        (".5", 0.5),
        (".inf", math.inf),
        ("-.Inf", -math.inf),
        ("1.2.3", "1.2.3"),
        ("2024-01-02", "2024-01-02"),  # timestamps stay strings
        ("_", "_"),  # matches the int pattern, spells no int
        ('"12"', "12"),
        ("'true'", "true"),
        ("!!str 12", "12"),
        ("!!int '7'", 7),
        ("!reference x", "x"),
    ],
)
def test_scalar_values(text, value):
    (document,) = read(f"key: {text}\n").documents
    assert document.get("key").value == value
    assert type(document.get("key").value) is type(value)


def test_nan_is_a_float():
    (document,) = read("key: .NaN\n").documents
    assert math.isnan(document.get("key").value)


# --- aliases, merges, duplicate keys ------------------------------------------------------


@PARSERS
def test_an_alias_is_the_anchored_node_itself(pure):
    (document,) = read("a: &x {retry: 2}\nb: *x\nc: [*x, *x]\n", pure).documents
    assert document.get("b") is document.get("a")
    assert all(item is document.get("a") for item in document.get("c"))


@PARSERS
def test_a_block_collection_ending_in_an_alias_ends_at_the_alias(pure):
    # The alias token ends it, not the anchored node written earlier.
    text = "a: &x {retry: 2}\nb:\n  c: 1\n  d: *x\nlist:\n  - 1\n  - *x\n"
    for source in (text, text.replace("\n", "\r\n")):
        (document,) = read(source, pure).documents
        assert document.get("b").get("d") is document.get("a")
        assert where(document.get("b")) == (3, 3, 4, 8)
        assert where(document.get("list")) == (6, 3, 7, 7)
        assert where(document) == (1, 1, 7, 7)


def test_keys_are_found_by_value_or_text_and_the_last_one_wins():
    text = "1: one\ntrue: yes\nnull: none\n~: tilde\nx: first\n'x': second\n[a, b]: complex\n"
    (document,) = read(text).documents
    names = ("1", "true", "null", "~", "x", "[a, b]")
    assert [document.get(name).value for name in names] == [
        *("one", "yes", "none", "tilde", "second", "complex")
    ]
    assert key_where(document, "x") == (6, 1, 6, 4)
    assert "x" in document
    assert "y" not in document
    assert document.get("y") is None
    assert document.key("y") is None
    # Anything but a string is compared with each key's value, as ``==`` compares.
    assert document.get(1).value == "yes"  # True == 1
    assert document.get(None).value == "complex"


@PARSERS
def test_anchors_are_per_document(pure):
    loaded = read("a: &x 1\n---\nb: *x\n", pure)
    assert plain(loaded.documents[1]) == {"b": None}
    (problem,) = loaded.problems
    assert (problem.span.line, problem.span.column) == (3, 4)
    assert problem.message == "alias *x is undefined; it was read as null"


@PARSERS
def test_merge_keys(pure):
    text = (
        ".defaults: &defaults\n"
        "  retry: 2\n"
        "  image: python\n"
        ".cache: &cache\n"
        "  cache: pip\n"
        "  retry: 5\n"
        "single:\n"
        "  <<: *defaults\n"
        "  retry: 0\n"
        "listed:\n"
        "  <<: [*cache, *defaults]\n"
        "nested: &nested\n"
        "  <<: *defaults\n"
        "  tags: [docker]\n"
        "outer:\n"
        "  <<: *nested\n"
        "  image: node\n"
    )
    (document,) = read(text, pure).documents
    single = document.get("single")
    assert plain(single) == {"retry": 0, "image": "python"}  # the explicit key wins
    assert single.keys() == ["image", "retry"]  # merged items stand where << was
    assert single.get("image") is document.get(".defaults").get("image")
    # Earlier maps in a list win over later ones.
    assert plain(document.get("listed")) == {"cache": "pip", "retry": 5, "image": "python"}
    assert plain(document.get("outer")) == {"retry": 2, "image": "node", "tags": ["docker"]}
    assert "<<" not in document.get("outer")


def test_merge_semantics_agree_with_ruamel():
    text = "a: &a {x: 1, y: 2}\nb: &b {y: 3, z: 4}\nc:\n  <<: [*a, *b]\n  z: 5\n"
    expected = YAML(typ="safe", pure=True).load(text)
    (document,) = read(text).documents
    assert plain(document) == expected


def test_a_merge_of_something_else_is_kept_as_a_key():
    loaded = read("job:\n  <<: 1\n  retry: 2\n")
    assert plain(loaded.documents[0]) == {"job": {"<<": 1, "retry": 2}}
    (problem,) = loaded.problems
    assert (problem.span.line, problem.span.column) == (2, 3)
    assert "merge key <<" in problem.message


@PARSERS
def test_duplicate_keys_are_kept_and_the_last_wins(pure):
    text = "retry: 1\nsoft_fail: false\nretry: 2\n"
    with pytest.raises(Exception, match="duplicate key"):
        YAML(typ="safe", pure=True).load(text)  # ruamel's constructor refuses them
    loaded = read(text, pure)
    assert loaded.problems == ()
    (document,) = loaded.documents
    assert [key.text for key, _ in document.items] == ["retry", "soft_fail", "retry"]
    assert document.get("retry").value == 2
    assert key_where(document, "retry") == (3, 1, 3, 6)


def test_complex_keys_keep_their_source_text():
    (document,) = read("? [a, b]\n: 1\n{x: 1}: 2\n").documents
    assert [key.text for key, _ in document.items] == ["[a, b]", "{x: 1}"]
    assert [key.value for key, _ in document.items] == [None, None]


# --- hostile input ---------------------------------------------------------------------

BILLION_LAUGHS = "".join(
    f"{name}: &{name} [{', '.join([f'*{previous}'] * 10)}]\n"
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True)
)


@PARSERS
def test_an_alias_bomb_is_dropped_quickly(pure):
    text = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + BILLION_LAUGHS
    text += "---\nsteps: [ok]\n"
    start = time.perf_counter()
    loaded = read(text, pure)
    assert time.perf_counter() - start < 2
    assert [plain(document) for document in loaded.documents] == [{"steps": ["ok"]}]
    (problem,) = loaded.problems
    assert problem.message.startswith(
        f"alias expansion too large: aliases reach more than {MAX_ALIAS_NODES} nodes"
    )
    assert problem.message.endswith("the document starting at line 1 was skipped")


def test_modest_alias_use_is_not_a_bomb():
    text = "base: &base {" + ", ".join(f"k{i}: {i}" for i in range(50)) + "}\n"
    text += "".join(f"job{i}: {{<<: *base, n: {i}}}\n" for i in range(500))
    loaded = read(text)
    assert loaded.problems == ()
    assert len(loaded.documents[0].items) == 501


@PARSERS
@pytest.mark.parametrize("text", ["a: &r [1, *r]\nb: 2\n", "a: &r {x: *r}\nb: 2\n"])
def test_a_recursive_alias_does_not_recurse(text, pure):
    loaded = read(text, pure)
    (document,) = loaded.documents
    assert plain(document)["b"] == 2
    (problem,) = loaded.problems
    assert problem.message == "alias *r refers to a node that contains it; it was read as null"


@pytest.mark.parametrize(
    ("depth", "pure"), [(100_000, False), (20_000, True)], ids=["libyaml", "pure"]
)
def test_deep_block_nesting_is_a_problem_not_a_crash(depth, pure):
    # ruamel's C composer recurses in C and crashes the interpreter at this depth.
    loaded = read("- " * depth + "x\n---\nok: 1\n", pure)
    assert [plain(document) for document in loaded.documents] == [{"ok": 1}]
    (problem,) = loaded.problems
    assert problem.message == (
        "YAML nested more than 200 levels deep; the document starting at line 1 was skipped"
    )


@PARSERS
def test_deep_flow_nesting_is_refused_before_parsing(pure):
    # Parsers take quadratic time on deep flow nesting: minutes for this text.
    start = time.perf_counter()
    loaded = read('x: "[[[["\n' + "y: " + "[" * 100_000 + "]" * 100_000 + "\n", pure)
    assert time.perf_counter() - start < 2
    assert loaded.documents == ()
    (problem,) = loaded.problems
    assert (problem.span.line, problem.span.column) == (2, 204)  # quoted brackets do not count
    assert problem.message == "YAML nested more than 200 levels deep; the file was not read"


def test_a_very_large_file():
    step = (
        "  - label: step {i}\n    command: pytest -k {i}\n    retry: {{automatic: {{limit: 2}}}}\n"
    )
    text = "steps:\n" + "".join(step.format(i=i) for i in range(15_000))
    assert len(text) > 1_000_000
    loaded = read(text)
    steps = loaded.documents[0].get("steps")
    assert len(steps.items) == 15_000
    assert where(steps.items[-1].get("retry")) == (3 * 15_000 + 1, 12, 3 * 15_000 + 1, 35)


@PARSERS
def test_tabs_in_indentation(pure):
    loaded = read("steps:\n  - label: a\n\t  retry: 2\n  - label: b\n", pure)
    (problem,) = loaded.problems
    assert (problem.span.line, problem.span.column) == (3, 1)
    assert "tab" in problem.message
    assert "line 3 was skipped" in problem.message
    assert plain(loaded.documents[0]) == {"steps": [{"label": "a"}, {"label": "b"}]}


@PARSERS
def test_invalid_yaml_reports_the_line_and_reads_the_rest(pure):
    text = "steps:\n  - label: a\n    retry 2\n  - label: b\n    soft_fail: true\n"
    loaded = read(text, pure)
    (problem,) = loaded.problems
    assert (problem.span.line, problem.span.column) == (3, 5)
    assert problem.message.startswith("invalid YAML: could not find expected ':'")
    assert problem.message.endswith("line 3 was skipped")
    assert plain(loaded.documents[0]) == {
        "steps": [{"label": "a"}, {"label": "b", "soft_fail": True}]
    }
    assert not loaded.templated


def test_an_unclosed_flow_sequence_skips_its_own_line():
    loaded = read("branches: [main\nretry: 2\n")
    assert plain(loaded.documents[0]) == {"retry": 2}
    assert loaded.problems[0].span.line == 1


def test_yaml_that_libyaml_refuses_is_read_by_the_pure_parser():
    # libyaml stops at a colon inside a flow plain scalar; YAML 1.2 allows it.
    loaded = read("mirrors: [http://a.example:8080, b]\nretry: 2\n")
    assert loaded.problems == ()
    assert plain(loaded.documents[0]) == {"mirrors": ["http://a.example:8080", "b"], "retry": 2}
    assert where(loaded.documents[0].get("retry")) == (2, 8, 2, 9)


def test_unreadable_characters_are_a_problem():
    loaded = read("a: \x01\nb: 2\n")
    assert plain(loaded.documents[0]) == {"b": 2}
    assert loaded.problems[0].message.startswith("invalid YAML: control characters")


def test_recovery_gives_up_after_a_bounded_number_of_lines():
    text = "".join(f"k{i}: [\n" for i in range(100))
    loaded = read(text)
    (problem,) = loaded.problems
    assert problem.message.endswith("the rest of the file could not be read")


def test_unusual_line_breaks_do_not_shift_lines():
    # libyaml counts U+2028 and a lone CR as line breaks; editors and detlint count "\n".
    (document,) = read("a: 1\u2028b: 2\nc: 3\r\nd: 'x\ry'\n").documents
    assert key_where(document, "c") == (2, 1, 2, 2)
    assert key_where(document, "d") == (3, 1, 3, 2)
    assert where(document.get("d")) == (3, 4, 3, 9)


@given(st.text())
def test_never_raises_on_any_text(text):
    loaded = read_yaml(text, "x.yml")
    assert all(problem.span.line >= 1 for problem in loaded.problems)


@given(st.binary())
def test_never_raises_on_random_bytes(data):
    for text in (data.decode("utf-8", "surrogateescape"), data.decode("latin-1")):
        assert isinstance(read_yaml(text, "x.yml"), yaml_load.YamlFile)


def test_an_internal_error_becomes_a_problem(monkeypatch):
    def broken(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(yaml_load, "mask_templates", broken)
    loaded = read("a: 1\n")
    assert loaded.documents == ()
    assert loaded.problems[0].message == "could not read YAML: RuntimeError('boom')"


# --- templates -------------------------------------------------------------------------

JINJA = (
    "{# rendered by ci/render.py #}\n"  # 1
    "steps:\n"  # 2
    '{% for py in ["3.11", "3.12"] %}\n'  # 3
    '  - label: "tests on {{ py }}"\n'  # 4
    "    command: |\n"  # 5
    "      pytest\n"  # 6
    "{% if reruns %}\n"  # 7
    "        --reruns {{ reruns }}\n"  # 8
    "{% endif %}\n"  # 9
    "    retry:\n"  # 10
    "      automatic:\n"  # 11
    "        limit: {{ retries }}\n"  # 12
    "    env: {PY: {{ py }}}\n"  # 13
    "{% endfor %}\n"  # 14
    "  - soft_fail: true\n"  # 15
)


@PARSERS
def test_a_jinja_template_is_read_around_its_tags(pure):
    loaded = read(JINJA, pure)
    assert loaded.templated
    assert loaded.problems == ()
    (document,) = loaded.documents
    first, second = document.get("steps").items
    assert first.get("label").value == "tests on {{ py }}"
    assert first.get("label").quoted
    assert where(first.get("label")) == (4, 12, 4, 31)
    # Tag lines inside a block scalar leave it intact (as lines of spaces).
    command = first.get("command").value
    assert command.startswith("pytest\n")
    assert "\n  --reruns {{ reruns }}\n" in command
    limit = first.get("retry").get("automatic").get("limit")
    assert (limit.value, limit.text) == ("{{ retries }}", "{{ retries }}")
    assert where(limit) == (12, 16, 12, 29)
    assert key_where(first.get("retry").get("automatic"), "limit") == (12, 9, 12, 14)
    assert plain(first.get("env")) == {"PY": "{{ py }}"}
    assert where(first.get("env").get("PY")) == (13, 15, 13, 23)
    assert plain(second) == {"soft_fail": True}


@PARSERS
def test_unreadable_template_lines_are_skipped_in_one_problem(pure):
    text = (
        "steps:\n"
        "  - {{ a }}: {{ b }}: c\n"  # 2: two mappings on one line
        "  - retry: {{ n }}\n"
        "  {% if x %}  oops: [\n"  # 4: an unclosed flow sequence after the tag
        "  - soft_fail: true\n"
    )
    loaded = read(text, pure)
    assert loaded.templated
    (problem,) = loaded.problems
    assert problem.message == "templated YAML: lines 2, 4 could not be read and were skipped"
    assert (problem.span.line, problem.span.column) == (2, 1)
    assert plain(loaded.documents[0]) == {"steps": [{"retry": "{{ n }}"}, {"soft_fail": True}]}


def test_erb_tags_are_masked():
    text = "<% if ci %>\nretry: <%= limit %>\n<%# note %>\nsoft_fail: true\n<% end %>\n"
    loaded = read(text)
    assert loaded.templated
    assert loaded.problems == ()
    assert plain(loaded.documents[0]) == {"retry": "<%= limit %>", "soft_fail": True}


def test_github_expressions_and_env_vars_are_not_templates():
    text = "run: echo ${{ matrix.os }} ${HOME}\nif: ${{ failure() }}\n"
    assert not looks_templated(text)
    loaded = read(text)
    assert not loaded.templated
    assert plain(loaded.documents[0]) == {
        "run": "echo ${{ matrix.os }} ${HOME}",
        "if": "${{ failure() }}",
    }


@pytest.mark.parametrize(
    ("text", "templated"),
    [
        ("a: {{ x }}", True),
        ("{% if x %}", True),
        ("{# note #}", True),
        ("a: <%= x %>", True),
        ("a: ${{ x }}", False),
        ("a: ${X}", False),
        ("a: {b: 1}", False),
        ("", False),
    ],
)
def test_looks_templated(text, templated):
    assert looks_templated(text) is templated
    assert yaml_load.looks_templated is looks_templated


@given(st.text(alphabet="{}%#<>=-$ \nab:", max_size=60))
def test_masking_keeps_every_line_and_column(text):
    masked = mask_templates(text)
    if masked is not None:
        assert len(masked.text) == len(text)
        assert [len(line) for line in masked.text.split("\n")] == [
            len(line) for line in text.split("\n")
        ]


# --- agreement with ruamel.yaml's safe loader ---------------------------------------------

INTERESTING = [
    *("true", "True", "TRUE", "false", "FALSE", "yes", "no", "on", "off", "y", "n"),
    *("null", "Null", "NULL", "~", "0", "-0", "+1", "007", "0o17", "0o8", "0x1F", "0xg"),
    *("0b101", "0b2", "1_000", "1.5", "-1.5e3", "1e5", "1E-2", ".5", "1.", "+.5", "3.14"),
    *(".inf", "-.inf", "+.INF", ".nan", ".NaN", "1.2.3", "12:30", "1:2:3", "e1", "x", "a b"),
]
plain_scalars = st.one_of(
    st.sampled_from(INTERESTING),
    st.from_regex(r"[a-zA-Z0-9][a-zA-Z0-9_.+~:#/ \t-]{0,7}", fullmatch=True),
)
quoted_scalars = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")),
    max_size=8,
).flatmap(
    lambda s: st.sampled_from([json.dumps(s, ensure_ascii=False), "'" + s.replace("'", "''") + "'"])
)
scalars = st.one_of(plain_scalars, quoted_scalars).map(lambda text: ("scalar", text))
nodes = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.tuples(st.just("seq"), st.lists(children, max_size=4), st.booleans()),
        st.tuples(
            st.just("map"),
            st.lists(st.tuples(plain_scalars | quoted_scalars, children), max_size=4),
            st.booleans(),
        ),
    ),
    max_leaves=12,
)


def flow(node) -> str:
    if node[0] == "scalar":
        return node[1]
    if node[0] == "seq":
        return "[" + ", ".join(flow(item) for item in node[1]) + "]"
    return "{" + ", ".join(f"{key}: {flow(value)}" for key, value in node[1]) + "}"


def block(node, indent: int) -> list[str]:
    """Block-style lines for a collection (an empty or flow one is written inline)."""
    pad = " " * indent
    if node[0] == "seq":
        lines = []
        for item in node[1]:
            if item[0] == "scalar" or item[2] or not item[1]:
                lines.append(f"{pad}- {flow(item)}")
            else:
                lines += [f"{pad}-", *block(item, indent + 2)]
        return lines
    lines = []
    for key, value in node[1]:
        if value[0] == "scalar" or value[2] or not value[1]:
            lines.append(f"{pad}{key}: {flow(value)}")
        else:
            lines += [f"{pad}{key}:", *block(value, indent + 2)]
    return lines


def render(node) -> str:
    if node[0] == "scalar" or node[2] or not node[1]:
        return flow(node) + "\n"
    return "\n".join(block(node, 0)) + "\n"


def comparable(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, dict):
        return {comparable(k): comparable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [comparable(item) for item in value]
    return value


def contains_timestamps(value: object) -> bool:
    if isinstance(value, datetime.date):
        return True
    if isinstance(value, dict):
        return any(contains_timestamps(item) for item in [*value.keys(), *value.values()])
    if isinstance(value, list):
        return any(contains_timestamps(item) for item in value)
    return False


@given(nodes)
def test_values_agree_with_ruamels_safe_loader(node):
    text = render(node)
    try:
        expected = YAML(typ="safe", pure=True).load(text)
    except Exception:  # not YAML, or a duplicate key: nothing to compare
        assume(False)
    assume(not contains_timestamps(expected))
    for pure in (False, True):
        loaded = read_yaml(text, "x.yml", pure=pure)
        assert loaded.problems == (), text
        (document,) = loaded.documents
        assert comparable(plain(document)) == comparable(expected), text
