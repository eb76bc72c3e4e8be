"""The rule catalogue in rules/: complete and valid files, one per rule the code
implements, read fast at run time, shipped in the wheel, and the source of the
generated docs/rules.md."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from detlint.cli.main import cli
from detlint.rules import catalogue
from detlint.rules.catalogue import (
    HEADER_KEYS,
    RULES,
    Catalogue,
    CatalogueError,
    quick_header,
    read_info,
    read_infos,
    rules_directory,
    select_codes,
)
from detlint.rules.catalogue_pages import pages, read_page
from detlint.rules.docs import REGENERATE, catalogue_markdown

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
RULE_FILES = sorted((ROOT / "rules").glob("DET*.toml"))


def _toml(path: Path) -> dict:
    """An independent reading of a rule file: tomllib alone, no detlint code."""
    return tomllib.loads(path.read_text(encoding="utf-8"))


# --- the committed catalogue --------------------------------------------------------------


def test_a_source_checkout_reads_the_repositorys_rules_directory():
    assert rules_directory().resolve() == ROOT / "rules"


def test_every_implemented_code_has_a_file_and_every_file_a_rule():
    from detlint.rules.registry import RULE_FUNCTIONS

    # DET901 and DET902 are reported by the engine and the suppression pass, not by
    # a rule function.
    assert {path.stem for path in RULE_FILES} == set(RULE_FUNCTIONS) | {"DET901", "DET902"}
    assert list(RULES) == [path.stem for path in RULE_FILES]  # code order


@pytest.mark.parametrize("path", RULE_FILES, ids=[path.stem for path in RULE_FILES])
def test_each_file_is_complete_valid_and_read_alike_fast_and_in_full(path):
    document = _toml(path)
    assert document["code"] == path.stem
    fixed = {"fixed"} if document["fix"] != "none" else set()  # what --fix does, if anything
    assert set(document) == {*HEADER_KEYS, "why", "what", "alternative", "examples", *fixed}
    assert document["severity"] in ("info", "warning", "error")
    assert document["fix"] in ("none", "safe", "unsafe")
    assert isinstance(document["default"], bool)
    assert "\n" not in document["summary"]
    kinds = [example["kind"] for example in document["examples"]]
    assert "invalid" in kinds
    assert "valid" in kinds
    page = read_page(path)  # every field checked, or CatalogueError
    # The fast header reader must agree with TOML on every file, or fall back to it.
    text = path.read_text(encoding="utf-8")
    assert quick_header(text) == {key: document[key] for key in HEADER_KEYS}
    assert read_info(path) == page.info


def test_names_are_unique_and_kebab_case():
    names = [info.name for info in RULES.values()]
    assert len(set(names)) == len(names)
    for name in names:
        assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", name), name


def test_the_default_codes_are_the_files_marked_default():
    defaults = {path.stem for path in RULE_FILES if _toml(path)["default"]}
    assert select_codes(None, ()) == defaults
    assert "DET301" not in defaults  # opt-in rules exist, so the test can tell
    assert select_codes(None, (), ("DET301",)) == defaults | {"DET301"}


def test_the_runtime_headers_equal_the_whole_pages():
    assert {code: page.info for code, page in pages().items()} == dict(RULES)


def test_loading_the_runtime_catalogue_imports_no_toml_parser():
    script = (
        "import sys\n"
        "from detlint.rules.catalogue import RULES\n"
        "assert RULES['DET101'].name == 'retry-marker'\n"
        "print(sorted({'tomllib', 'tomli'} & set(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout == "[]\n"


# --- reading and checking one file ------------------------------------------------------------

VALID = '''\
code = "DET999"
name = "example-rule"
summary = "an example"
severity = "warning"
default = true
fix = "none"

why = """why"""
what = """what"""
alternative = """instead"""

[[examples]]
kind = "invalid"
description = "bad"
path = "tests/test_x.py"
line = 2

[[examples.files]]
path = "tests/test_x.py"
content = """
import pytest
@pytest.mark.flaky
"""

[[examples]]
kind = "valid"
description = "good"

[[examples.files]]
path = "tests/test_x.py"
content = "def test_x():\\n    pass\\n"
'''


def _write(tmp_path: Path, text: str, name: str = "DET999.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_valid_file_reads_field_by_field(tmp_path):
    page = read_page(_write(tmp_path, VALID))
    assert (page.info.code, page.info.name, page.info.default) == ("DET999", "example-rule", True)
    invalid, valid = page.examples
    assert (invalid.kind, invalid.path, invalid.line) == ("invalid", "tests/test_x.py", 2)
    assert invalid.files[0].content == "import pytest\n@pytest.mark.flaky\n"
    assert (valid.kind, valid.path, valid.line) == ("valid", None, None)


@pytest.mark.parametrize(
    "edits",
    [
        [('summary = "an example"', 'summary = "an \\"example\\""')],  # an escape
        [('severity = "warning"', 'severity = "warning"  # a comment')],
        [('name = "example-rule"', "name = 'example-rule'")],  # a literal string
        [
            ('fix = "none"\n', ""),
            ('alternative = """instead"""', 'alternative = """instead"""\nfix = "none"'),
        ],
    ],
    ids=["escape", "comment", "literal-string", "late-key"],
)
def test_headers_outside_the_fast_subset_are_read_by_tomllib(tmp_path, edits):
    text = VALID
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    assert quick_header(text) is None
    expected = _toml(_write(tmp_path, text))
    info = read_info(tmp_path / "DET999.toml")
    assert (info.summary, info.severity, info.name, info.fix) == (
        expected["summary"],
        expected["severity"],
        expected["name"],
        expected["fix"],
    )


def test_the_fast_header_reader_takes_crlf_line_ends(tmp_path):
    text = VALID.replace("\n", "\r\n")
    assert quick_header(text) == {key: _toml(_write(tmp_path, text))[key] for key in HEADER_KEYS}


HEADER_ERRORS = [
    ('severity = "warning"', 'severity = "fatal"', "'severity' must be one of"),
    ("default = true", 'default = "yes"', "'default' must be true or false"),
    ('code = "DET999"', 'code = "DET998"', "does not match the file name"),
    ('code = "DET999"', 'code = "XYZ999"', "is not DET followed by three digits"),
    ('name = "example-rule"', 'name = "Example_Rule"', "is not kebab-case"),
    ('fix = "none"', 'fix = "maybe"', "'fix' must be one of"),
    ('summary = "an example"\n', "", "missing key 'summary'"),
]
PAGE_ERRORS = [
    ('why = """why"""', 'why = """  """', "'why' must be a non-empty string"),
    ('alternative = """instead"""', 'alternative = """instead"""\nextra = 1', "unexpected key"),
    ("line = 2", "line = 9", "line 9 is past the end of tests/test_x.py"),
    ("line = 2", "line = 0", "'line' must be a positive integer"),
    ('path = "tests/test_x.py"\nline', 'path = "tests/test_y.py"\nline', "'path' must name"),
    ('description = "good"', 'description = "good"\nline = 3', "unexpected key 'line'"),
    ('kind = "valid"', 'kind = "fine"', "'kind' must be 'invalid' or 'valid'"),
    ('kind = "valid"', 'kind = "invalid"', "'path' must name one of"),
    ('path = "tests/test_x.py"\ncontent = """', 'path = "../x.py"\ncontent = """', "relative"),
    ('why = """why"""', 'why = """why', "invalid TOML"),
]


@pytest.mark.parametrize(("old", "new", "message"), HEADER_ERRORS + PAGE_ERRORS)
def test_a_malformed_file_is_an_error_naming_the_file_and_the_field(tmp_path, old, new, message):
    assert old in VALID
    path = _write(tmp_path, VALID.replace(old, new, 1))
    with pytest.raises(CatalogueError) as raised:
        read_page(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert message in str(raised.value)


@pytest.mark.parametrize(("old", "new", "message"), HEADER_ERRORS)
def test_the_fast_header_reader_checks_the_same_fields(tmp_path, old, new, message):
    path = _write(tmp_path, VALID.replace(old, new, 1))
    with pytest.raises(CatalogueError, match=re.escape(message)):
        read_info(path)


def test_a_rule_without_a_valid_example_is_an_error(tmp_path):
    text = VALID[: VALID.index('[[examples]]\nkind = "valid"')]
    with pytest.raises(CatalogueError, match="needs at least one valid example"):
        read_page(_write(tmp_path, text))


def test_two_rules_may_not_share_a_name(tmp_path):
    _write(tmp_path, VALID)
    _write(tmp_path, VALID.replace('code = "DET999"', 'code = "DET998"'), "DET998.toml")
    with pytest.raises(CatalogueError, match="DET999 and DET998 share the name 'example-rule'"):
        read_infos(tmp_path)


# --- where the files are found -----------------------------------------------------------


def test_an_installed_package_reads_its_own_copy_first(tmp_path):
    package = tmp_path / "site-packages" / "detlint"
    (package / "_rules").mkdir(parents=True)
    _write(package / "_rules", VALID)
    (tmp_path / "site-packages" / "rules").mkdir()
    _write(tmp_path / "site-packages" / "rules", VALID)
    assert rules_directory(package) == package / "_rules"


def test_a_checkout_reads_the_rules_beside_the_package(tmp_path):
    package = tmp_path / "repo" / "detlint"
    package.mkdir(parents=True)
    (package / "_rules").mkdir()  # empty: not a catalogue
    (tmp_path / "repo" / "rules").mkdir()
    _write(tmp_path / "repo" / "rules", VALID)
    assert rules_directory(package) == tmp_path / "repo" / "rules"


def test_no_catalogue_anywhere_is_an_error_naming_both_places(tmp_path):
    package = tmp_path / "detlint"
    package.mkdir()
    with pytest.raises(CatalogueError) as raised:
        rules_directory(package)
    assert str(package / "_rules") in str(raised.value)
    assert str(tmp_path / "rules") in str(raised.value)


def test_a_malformed_catalogue_is_a_one_line_internal_error(tmp_path, monkeypatch):
    _write(tmp_path, VALID.replace('severity = "warning"', 'severity = "fatal"'))
    monkeypatch.setattr(catalogue, "RULES", Catalogue(tmp_path))
    monkeypatch.delenv("DETLINT_DEBUG", raising=False)
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(cli, ["check"], prog_name="detlint")
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("detlint: internal error: CatalogueError: ")
    assert f"{tmp_path / 'DET999.toml'}: 'severity' must be one of" in line


# --- the wheel ------------------------------------------------------------------------


def test_the_wheel_ships_every_rule_file_and_the_package_finds_them(tmp_path):
    from hatchling.builders.wheel import WheelBuilder

    (wheel,) = WheelBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["standard"])
    with zipfile.ZipFile(wheel) as archive:
        for path in RULE_FILES:
            assert archive.read(f"detlint/_rules/{path.name}") == path.read_bytes()
        archive.extractall(tmp_path / "site")
    package = tmp_path / "site" / "detlint"
    assert rules_directory(package) == package / "_rules"
    assert read_infos(package / "_rules") == dict(RULES)
    # The installed package, imported ahead of this checkout, finds its own copy.
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(tmp_path / 'site')!r})\n"
        "import detlint.rules.catalogue as c\n"
        "print(c.__file__)\n"
        "print(c.rules_directory())\n"
        "print(','.join(c.RULES))\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
    )
    module, directory, codes = result.stdout.splitlines()
    assert Path(module).is_relative_to(tmp_path / "site")
    assert Path(directory) == package / "_rules"
    assert codes.split(",") == [path.stem for path in RULE_FILES]


# --- docs/rules.md ----------------------------------------------------------------------


def test_docs_rules_md_is_the_generated_text():
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == catalogue_markdown(pages().values()), (
        f"docs/rules.md is out of date with rules/: regenerate it with `{REGENERATE}`"
    )


def test_the_regeneration_command_prints_the_docs():
    result = subprocess.run(
        [sys.executable, "-m", "detlint.rules.docs"], capture_output=True, check=True
    )
    assert result.stdout.decode("utf-8") == catalogue_markdown(pages().values())


def test_the_docs_link_every_rule_to_its_section_in_code_order():
    text = catalogue_markdown(pages().values())
    anchors = [text.index(f'<a id="{path.stem.lower()}"></a>') for path in RULE_FILES]
    assert anchors == sorted(anchors)
    for path in RULE_FILES:
        document = _toml(path)
        link = f"| [{path.stem}](#{path.stem.lower()}) | {document['name']} |"
        assert link in text
        assert f"\n## {path.stem} {document['name']}\n" in text
