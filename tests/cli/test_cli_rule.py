"""``detlint rule``: one rule's page, the whole catalogue, or with no argument a table of
every rule, as text or JSON, from the files in rules/; unknown rules are usage errors;
importing the command is cheap."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from detlint.cli.main import cli
from detlint.rules import catalogue, catalogue_pages
from detlint.rules.catalogue_pages import Example, ExampleFile, RulePage
from detlint.rules.docs import rule_page

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
RULE_FILES = sorted((ROOT / "rules").glob("DET*.toml"))


def invoke(*args: str):
    return CliRunner().invoke(cli, ["rule", *args], prog_name="detlint")


def expected_json(path: Path) -> dict:
    """What the JSON must say about a rule, read from its file with tomllib alone."""
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    fields = ("code", "name", "summary", "severity", "default", "fix")
    return {
        **{key: document[key] for key in fields},
        **{key: document[key].strip() for key in ("why", "what", "alternative")},
        "examples": [
            {
                "kind": example["kind"],
                "description": example["description"],
                "path": example.get("path"),
                "line": example.get("line"),
                "files": example["files"],
            }
            for example in document["examples"]
        ],
    }


def test_a_rule_page_as_text():
    result = invoke("DET101")
    assert result.exit_code == 0, result.output
    document = tomllib.loads((ROOT / "rules" / "DET101.toml").read_text(encoding="utf-8"))
    lines = result.output.splitlines()
    assert lines[0] == f"# DET101 {document['name']}"
    assert document["summary"][1:] in lines[2]
    for key in ("why", "what", "alternative"):
        assert document[key].strip() in result.output
    for example in document["examples"]:
        assert example["description"] in result.output
        for file in example["files"]:
            assert f"`{file['path']}`:" in result.output
            assert file["content"] in result.output
    invalid = next(e for e in document["examples"] if e["kind"] == "invalid")
    assert f"Reported at `{invalid['path']}:{invalid['line']}`." in result.output


@pytest.mark.parametrize("key", ["retry-marker", "det101", "Retry-Marker"])
def test_a_rule_by_name_or_in_any_case(key):
    assert invoke(key).output == invoke("DET101").output


def test_an_opt_in_rule_says_how_to_turn_it_on():
    assert "On by default: no (turn it on with `--extend-select DET301`)" in invoke("DET301").output
    assert "- On by default: yes\n" in invoke("DET101").output


def test_one_rule_as_json_is_the_rules_file():
    result = invoke("DET431", "--output-format", "json")
    assert result.exit_code == 0
    assert json.loads(result.output) == expected_json(ROOT / "rules" / "DET431.toml")


def test_the_catalogue_as_json():
    result = invoke("--all", "--output-format", "json")
    assert result.exit_code == 0
    document = json.loads(result.output)
    assert document["schema"] == "detlint.rules/1"
    assert document["rules"] == [expected_json(path) for path in RULE_FILES]


def test_the_catalogue_as_text_has_every_page_in_code_order():
    output = invoke("--all").output
    titles = [line for line in output.splitlines() if line.startswith("# ")]
    names = [tomllib.loads(p.read_text(encoding="utf-8"))["name"] for p in RULE_FILES]
    assert titles == [f"# {p.stem} {name}" for p, name in zip(RULE_FILES, names, strict=True)]


def test_no_argument_lists_every_rule_in_an_aligned_table_in_code_order():
    result = invoke()
    assert result.exit_code == 0, result.output
    header, *rows = result.output.splitlines()
    assert header.split() == ["code", "name", "default", "fix"]
    starts = [header.index(word) for word in ("code", "name", "default", "fix")]
    expected = []
    for path in RULE_FILES:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
        default = "yes" if document["default"] else "no"
        expected.append([path.stem, document["name"], default, document["fix"]])
    assert [row.split() for row in rows] == expected
    for row, cells in zip(rows, expected, strict=True):
        # Every cell starts under its header word, and no line ends in blanks.
        assert [row.index(cell, start) for cell, start in zip(cells, starts, strict=True)] == starts
        assert row == row.rstrip()
    # An opt-in rule says so, and a rule with a fix names its kind.
    assert [row.split()[2:] for row in rows if row.startswith("DET301")] == [["no", "none"]]
    assert [row.split()[2:] for row in rows if row.startswith("DET101")] == [["yes", "unsafe"]]


def test_the_list_reads_only_the_rules_headers(monkeypatch):
    def unread():
        raise AssertionError("the list parsed every rule's whole file")

    monkeypatch.setattr(catalogue_pages, "pages", unread)
    assert invoke().exit_code == 0


def test_the_list_as_json_is_the_whole_catalogue():
    result = invoke("--output-format", "json")
    assert result.exit_code == 0
    assert result.output == invoke("--all", "--output-format", "json").output
    assert [rule["code"] for rule in json.loads(result.output)["rules"]] == [
        path.stem for path in RULE_FILES
    ]


def test_a_malformed_catalogue_breaks_the_list_with_one_line(tmp_path, monkeypatch):
    (tmp_path / "DET101.toml").write_text('code = "DET101"\nname = "retry-marker"\n')
    monkeypatch.setattr(catalogue, "RULES", catalogue.Catalogue(tmp_path))
    monkeypatch.delenv("DETLINT_DEBUG", raising=False)
    result = invoke()
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("detlint: internal error: CatalogueError: ")
    assert str(tmp_path / "DET101.toml") in line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["DET999"], "unknown rule 'DET999'"),
        (["flaky-marker"], "unknown rule 'flaky-marker'"),
        (["DET101", "--all"], "give one rule code or name, or --all, not both"),
    ],
    ids=["unknown-code", "unknown-name", "both"],
)
def test_usage_errors_are_one_line_with_exit_status_2(args, message):
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stderr == f"detlint rule: error: {message}\n"


def test_a_malformed_catalogue_is_an_internal_error_naming_the_file(tmp_path, monkeypatch):
    (tmp_path / "DET101.toml").write_text('code = "DET101"\nname = "retry-marker"\n')
    monkeypatch.setattr(catalogue_pages, "rules_directory", lambda: tmp_path)
    monkeypatch.delenv("DETLINT_DEBUG", raising=False)
    catalogue_pages.pages.cache_clear()
    try:
        result = invoke("DET101")
    finally:
        catalogue_pages.pages.cache_clear()
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("detlint: internal error: CatalogueError: ")
    assert str(tmp_path / "DET101.toml") in line
    assert "missing key 'summary'" in line


def test_importing_the_command_imports_nothing_else_of_detlint():
    script = (
        "import sys\n"
        "import detlint.cli.rule\n"
        "print(sorted(name for name in sys.modules if name.startswith('detlint')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    # Its packages (docstrings only) and itself.
    assert result.stdout == "['detlint', 'detlint.cli', 'detlint.cli.rule']\n"


def _page(content: str, path: str = "tests/test_x.py") -> RulePage:
    info = catalogue.RuleInfo("DET999", "example-rule", "warning", True, "an example", "none")
    files = (ExampleFile(path, content),)
    examples = (Example("invalid", "bad", files, path, 1), Example("valid", "good", files))
    return RulePage(info, "why", "what", "instead", examples, Path("DET999.toml"))


def test_a_code_fence_outlasts_the_backticks_in_an_example():
    text = rule_page(_page("```\nsoft_fail: true\n```\n", ".buildkite/pipeline.yml"))
    assert "````yaml\n```\nsoft_fail: true\n```\n````\n" in text


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("tests/test_x.py", "python"),
        (".gitlab-ci.yml", "yaml"),
        ("pyproject.toml", "toml"),
        ("setup.cfg", "ini"),
        ("requirements-test.txt", "text"),
        ("Makefile", "text"),
    ],
)
def test_each_example_file_is_fenced_in_its_language(path, language):
    assert f"`{path}`:\n\n```{language}\nx = 1\n```\n" in rule_page(_page("x = 1\n", path))
