"""The output formats of ``detlint check``: each one checked against what reads it.

SARIF against the official 2.1.0 schema, JSON against detlint's own published
schema, JUnit and the GitHub workflow commands by parsing them back, the full
format by where its carets land, the Buildkite annotation by its table and
its ranking. Findings come both from real runs on the fixture repositories and
from synthetic ones built to hit the edges (no numbers, related spans, tabs,
wide characters, CRLF, undecodable and missing files, text that is markup).
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import jsonschema
import pytest

from detlint import __version__
from detlint.base.span import Span
from detlint.engine import analyse
from detlint.readers.project.settings import Settings
from detlint.report import buildkite, colour, github, gitlab, sarif
from detlint.report.formats import FORMATS, RULES_URL, Report, render
from detlint.report.statistics import render_statistics
from detlint.rules.catalogue import RULES, select_codes
from detlint.rules.finding import Finding, Loss

ROOT = Path(__file__).resolve().parents[2]
REPOS = ROOT / "tests" / "fixtures" / "repos"
SARIF_SCHEMA = ROOT / "tests" / "schemas" / "sarif-schema-2.1.0.json"
GITLAB_SCHEMA = ROOT / "tests" / "schemas" / "gitlab-code-quality.json"
CHECK_SCHEMA = ROOT / "docs" / "json-schema" / "check-1.json"
REAL_REPOS = ("broken", "ci_pipelines", "spellings", "quarantine", "trials", "flaky_pkg")


# -- building reports ----------------------------------------------------------


@pytest.fixture(scope="module")
def real_reports(tmp_path_factory):
    """Reports from real runs (every rule selected, so that info findings appear too).

    Each repository is copied out of this one first, so that it is a project of
    its own and this repository's other pipelines play no part.
    """
    reports = {}
    for name in REAL_REPOS:
        repo = tmp_path_factory.mktemp("repos") / name
        shutil.copytree(REPOS / name, repo)
        analysis = analyse([repo], repo, Settings(), select_codes(("ALL",), ()), jobs=1)
        reports[name] = Report(analysis.findings, analysis.files_checked, repo)
    assert sum(len(report.findings) for report in reports.values()) > 30
    return reports


def loss(reported, without, rate=0.1):
    return Loss(
        reference_rate=rate,
        target=0.95,
        trials=5,
        trials_env="TRIALS",
        reported=reported,
        reported_without=without,
        visible=reported,
        trials_needed=29,
        instances=None,
    )


def finding(path, line, column, end_line=None, end_column=None, **fields):
    defaults = {
        "code": "DET101",
        "name": "retry-marker",
        "severity": "warning",
        "message": "rerun marker hides intermittent failures",
        "help": "drop the marker",
    }
    defaults.update(fields)
    span = Span(path, line, column, end_line or line, end_column or column + 1)
    return Finding(span=span, **defaults)


def report_of(tmp_path, findings, **counts):
    return Report(tuple(sorted(findings, key=lambda f: f.sort_key)), 3, tmp_path, **counts)


@pytest.fixture
def synthetic(tmp_path):
    """Findings on real files with awkward text, with and without numbers and related spans."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "import pytest\n\n@pytest.mark.flaky(reruns=3)\ndef test_a():\n    pass\n"
    )
    (tmp_path / "ci.yml").write_bytes(b"steps:\r\n  - command: pytest || true\r\n")
    return report_of(
        tmp_path,
        [
            finding(
                "tests/test_a.py",
                3,
                2,
                end_column=29,
                loss=loss(0.028, 0.41),
                related=(Span("tests/test_a.py", 1, 1, 1, 14),),
            ),
            finding(
                "ci.yml",
                2,
                14,
                end_column=28,
                code="DET431",
                name="masked-exit-status",
                message="`|| true` hides 100% of failures, a, b: c <b>x</b> *y*",
                help="",
                loss=loss(0.0, 0.1),
            ),
            finding(
                "missing.py",
                1,
                1,
                end_column=1,
                code="DET901",
                name="unreadable-file",
                severity="error",
                message="vanished while reading",
            ),
            finding(
                "tests/test_a.py",
                5,
                5,
                code="DET301",
                name="low-trial-count",
                severity="info",
                message="5 trials",
                loss=loss(0.41, 0.41),
            ),
        ],
        suppressed=2,
        baselined=1,
        baseline_gone=0,
    )


def empty_report(tmp_path):
    return Report((), 4, tmp_path)


# -- every format ------------------------------------------------------------------


@pytest.mark.parametrize("output_format", FORMATS)
def test_every_format_renders_no_findings_and_synthetic_findings(
    output_format, synthetic, tmp_path
):
    empty = render(output_format, empty_report(tmp_path))
    assert empty.endswith("\n") or (output_format == "github" and empty == "")
    text = render(output_format, synthetic)
    assert text.endswith("\n")
    # Every finding's code shows up, whatever the format.
    for code in ("DET101", "DET431", "DET901", "DET301"):
        assert code in text


def test_unknown_format_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        render("xml", empty_report(tmp_path))


# -- concise and statistics ----------------------------------------------------------


def test_concise_is_unchanged_for_a_plain_run(synthetic):
    plain = Report(synthetic.findings, 3, synthetic.cwd)
    expected = []
    for finding in plain.findings:
        span = finding.span
        expected.append(f"{span.path}:{span.line}:{span.column}: {finding.code} {finding.message}")
        if finding.help:
            expected.append(f"  help: {finding.help}")
    assert render("concise", plain).splitlines() == [*expected, "Found 4 findings in 3 files."]


@pytest.mark.parametrize(
    ("counts", "summary"),
    [
        ({"suppressed": 2}, "Found 1 finding in 3 files (2 suppressed)."),
        ({"baselined": 5, "baseline_gone": 0}, "Found 1 finding in 3 files (5 in baseline)."),
        # A baseline in use is named even when it hid nothing.
        ({"baseline_gone": 0}, "Found 1 finding in 3 files (0 in baseline)."),
        (
            {"suppressed": 2, "baselined": 5, "baseline_gone": 1},
            "Found 1 finding in 3 files (2 suppressed, 5 in baseline; 1 baseline entry gone).",
        ),
        (
            {"baselined": 1, "baseline_gone": 3},
            "Found 1 finding in 3 files (1 in baseline; 3 baseline entries gone).",
        ),
    ],
)
def test_concise_summary_says_what_was_hidden(tmp_path, counts, summary):
    report = report_of(tmp_path, [finding("a.py", 1, 1)], **counts)
    assert render("concise", report).splitlines()[-1] == summary


def test_clean_summary_with_hidden_findings(tmp_path):
    report = Report((), 3, tmp_path, suppressed=1)
    assert render("concise", report) == "All checks passed (3 files; 1 suppressed).\n"


def test_statistics_count_per_code(real_reports):
    report = real_reports["spellings"]
    lines = render_statistics(report).splitlines()
    rows = [line.split("\t") for line in lines]
    expected = Counter(f.code for f in report.findings)
    assert {code: int(count) for count, code, _ in rows} == dict(expected)
    counts = [int(count) for count, _, _ in rows]
    assert counts == sorted(counts, reverse=True)
    assert all(name == RULES[code].name for _, code, name in rows)
    assert len(expected) > 1  # the ordering above compared something


def test_statistics_of_a_clean_run(tmp_path):
    assert render_statistics(empty_report(tmp_path)) == "All checks passed (4 files).\n"
    assert render_statistics(empty_report(tmp_path), "json") == "[]\n"


def test_statistics_json_counts_and_order_match_the_text_lines(real_reports):
    report = real_reports["spellings"]
    rows = json.loads(render_statistics(report, "json"))
    lines = [line.split("\t") for line in render_statistics(report).splitlines()]
    assert [(row["code"], row["count"], row["name"]) for row in rows] == [
        (code, int(count), name) for count, code, name in lines
    ]
    assert sum(row["count"] for row in rows) == len(report.findings)


@pytest.mark.parametrize("output_format", ["concise", "full", "sarif", "gitlab"])
def test_statistics_text_for_every_format_but_json(real_reports, output_format):
    report = real_reports["spellings"]
    assert render_statistics(report, output_format) == render_statistics(report)


# -- JSON --------------------------------------------------------------------------


def check_schema():
    schema = json.loads(CHECK_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def test_json_validates_against_the_published_schema(real_reports, synthetic, tmp_path):
    validator = jsonschema.Draft202012Validator(check_schema())
    for report in [*real_reports.values(), synthetic, empty_report(tmp_path)]:
        document = json.loads(render("json", report))
        validator.validate(document)
        assert len(document["findings"]) == len(report.findings)
        assert document["version"] == __version__


def test_json_schema_rejects_what_it_should(synthetic):
    """The schema is not vacuous: a wrong type or a missing key fails it."""
    validator = jsonschema.Draft202012Validator(check_schema())
    document = json.loads(render("json", synthetic))
    broken = json.loads(json.dumps(document))
    broken["findings"][0]["line"] = 0
    assert not validator.is_valid(broken)
    broken = json.loads(json.dumps(document))
    del broken["findings"][0]["numbers"]["reported"]
    assert not validator.is_valid(broken)
    broken = json.loads(json.dumps(document))
    broken["schema"] = "detlint.check/2"
    assert not validator.is_valid(broken)


def test_json_schema_documents_every_key(synthetic):
    """Every key detlint writes is described in the schema (which still allows
    unknown keys, so that consumers of version 1 keep validating later additions)."""
    schema = check_schema()
    document = json.loads(render("json", synthetic))
    assert set(document) == set(schema["properties"])
    with_numbers = next(f for f in document["findings"] if f["numbers"] is not None)
    # fix_unavailable is written only where a rule's fix cannot be made (test_fix_cli.py)
    assert set(with_numbers) | {"fix_unavailable"} == set(schema["$defs"]["finding"]["properties"])
    assert set(with_numbers["numbers"]) == set(schema["$defs"]["numbers"]["properties"])
    related = next(f for f in document["findings"] if f["related"])["related"][0]
    assert set(related) == set(schema["$defs"]["position"]["properties"])


def test_json_carries_hidden_counts(synthetic):
    document = json.loads(render("json", synthetic))
    assert (document["suppressed"], document["baselined"], document["baseline_gone"]) == (2, 1, 0)
    plain = json.loads(render("json", Report(synthetic.findings, 3, synthetic.cwd)))
    assert plain["baseline_gone"] is None


# -- SARIF -------------------------------------------------------------------------


def sarif_validator():
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    # Every reference is inside the document, so validation never fetches anything.
    refs = re.findall(r'"\$ref":\s*"([^"]*)"', SARIF_SCHEMA.read_text(encoding="utf-8"))
    assert refs
    assert all(ref.startswith("#/") for ref in refs)
    assert schema["$schema"] == "http://json-schema.org/draft-04/schema#"
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


def test_sarif_validates_against_the_official_schema(real_reports, synthetic, tmp_path):
    validator = sarif_validator()
    for report in [*real_reports.values(), synthetic, empty_report(tmp_path)]:
        log = json.loads(render("sarif", report))
        errors = sorted(validator.iter_errors(log), key=str)
        assert not errors, errors[0]
        assert len(log["runs"][0]["results"]) == len(report.findings)


def test_sarif_schema_check_is_not_vacuous(synthetic):
    log = json.loads(render("sarif", synthetic))
    log["runs"][0]["results"][0]["level"] = "fatal"
    assert not sarif_validator().is_valid(log)


def test_sarif_rules_and_results(synthetic):
    log = json.loads(render("sarif", synthetic))
    (run,) = log["runs"]
    assert log["version"] == "2.1.0"
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("detlint", __version__)
    rules = driver["rules"]
    assert [rule["id"] for rule in rules] == sorted(RULES)
    for rule in rules:
        assert rule["helpUri"] == f"{RULES_URL}#{rule['id'].lower()}"
        assert rule["name"] == RULES[rule["id"]].name
    levels = {"warning": "warning", "error": "error", "info": "note"}
    for result, original in zip(run["results"], synthetic.findings, strict=True):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == original.code
        assert result["level"] == levels[original.severity]
        assert result["message"]["text"].startswith(original.message)
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {"uri": original.span.path, "uriBaseId": "%SRCROOT%"}
        span = original.span
        assert location["region"] == {
            "startLine": span.line,
            "startColumn": span.column,
            "endLine": span.end_line,
            "endColumn": span.end_column,
        }
        if original.loss is None:
            assert "numbers" not in result["properties"]
        else:
            assert result["properties"]["numbers"]["reported"] == original.loss.reported
        assert "fixes" not in result  # findings carry no fixes yet
    with_related = run["results"][[f.code for f in synthetic.findings].index("DET101")]
    (related,) = with_related["relatedLocations"]
    assert related["id"] == 1
    assert related["physicalLocation"]["region"]["startLine"] == 1
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/")


def test_sarif_paths_outside_the_working_directory_are_file_uris(tmp_path):
    report = report_of(
        tmp_path, [finding("/elsewhere/my tests/t.py", 1, 1), finding("a b.py", 1, 1)]
    )
    results = json.loads(render("sarif", report))["runs"][0]["results"]
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in results]
    assert {"uri": "file:///elsewhere/my%20tests/t.py"} in locations
    assert {"uri": "a%20b.py", "uriBaseId": "%SRCROOT%"} in locations


def test_sarif_fingerprints_survive_moved_lines_and_tell_duplicates_apart(tmp_path):
    source = tmp_path / "test_x.py"
    marker = "@pytest.mark.flaky(reruns=2)\n"
    source.write_text(f"{marker}def test_a(): pass\n{marker}def test_b(): pass\n")

    def fingerprints(first_line):
        findings = [finding("test_x.py", first_line, 2), finding("test_x.py", first_line + 2, 2)]
        results = json.loads(render("sarif", report_of(tmp_path, findings)))["runs"][0]["results"]
        return [r["partialFingerprints"][sarif.FINGERPRINT_KEY] for r in results]

    before = fingerprints(1)
    assert before[0] != before[1]  # two identical lines: told apart by occurrence
    assert before[0].split(":")[0] == before[1].split(":")[0]
    source.write_text("import pytest\n\n\n" + source.read_text())
    assert fingerprints(4) == before


# -- JUnit -------------------------------------------------------------------------


def test_junit_one_testcase_per_rule_per_file(real_reports):
    for report in real_reports.values():
        root = ET.fromstring(render("junit", report).encode("utf-8"))
        (suite,) = root.findall("testsuite")
        cases = suite.findall("testcase")
        pairs = Counter((f.span.path, f.code) for f in report.findings)
        assert len(cases) == len(pairs) == int(suite.get("failures")) == int(suite.get("tests"))
        for case in cases:
            code = case.get("name").split()[0]
            (failure,) = case.findall("failure")
            # One line per finding starts with its path; help lines are indented.
            starts = [
                line
                for line in failure.text.splitlines()
                if line.startswith(case.get("classname") + ":")
            ]
            assert len(starts) == pairs[(case.get("classname"), code)]


def test_junit_without_findings_has_one_passing_case(tmp_path):
    root = ET.fromstring(render("junit", empty_report(tmp_path)).encode("utf-8"))
    (case,) = root.iter("testcase")
    assert list(case) == []
    assert root.get("failures") == "0"
    assert root.get("tests") == "1"


def test_junit_escapes_markup_and_drops_characters_xml_cannot_hold(tmp_path):
    message = 'a <tag> & "quote" \x1b[31m red \x00 nul \udcff'
    report = report_of(tmp_path, [finding("t.py", 1, 1, message=message)])
    root = ET.fromstring(render("junit", report).encode("utf-8"))
    failure = next(root.iter("failure"))
    assert 'a <tag> & "quote" ' in failure.get("message")
    assert "\x1b" not in failure.text
    assert "\x00" not in failure.text


# -- GitHub ------------------------------------------------------------------------

COMMAND = re.compile(r"^::(error|warning|notice) ([^:]*)::(.*)$")


def unescape(text):
    """The runner's unescaping (``@actions/core``), applied in the reverse order."""
    for escaped, raw in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, raw)
    return text


def parse_command(line):
    match = COMMAND.match(line)
    assert match, line
    kind, properties, data = match.groups()
    fields = dict(item.split("=", 1) for item in properties.split(","))
    return kind, {key: unescape(value) for key, value in fields.items()}, unescape(data)


def test_github_commands_parse_back_to_the_findings(real_reports, synthetic):
    kinds = {"error": "error", "warning": "warning", "info": "notice"}
    for report in [*real_reports.values(), synthetic]:
        lines = render("github", report).splitlines()
        assert len(lines) == len(report.findings)
        for line, original in zip(lines, report.findings, strict=True):
            kind, fields, data = parse_command(line)
            assert kind == kinds[original.severity]
            assert fields["file"] == original.span.path
            assert int(fields["line"]) == original.span.line
            assert fields["title"] == f"{original.code} {original.name}"
            message, *rest = data.split("\n")
            assert message == original.message
            if original.help:
                assert rest[0] == f"help: {original.help}"


def test_github_escapes_separators_and_line_breaks(tmp_path):
    message = "100% of a, b: c\r\n::error::injected"
    report = report_of(tmp_path, [finding("dir,with:odd%.py", 2, 3, 2, 7, message=message)])
    text = render("github", report)
    (line,) = text.splitlines()  # the message's line break cannot start a second command
    assert text == line + "\n"
    _, fields, data = parse_command(line)
    assert fields == {
        "file": "dir,with:odd%.py",
        "line": "2",
        "col": "3",
        "endLine": "2",
        "endColumn": "7",
        "title": "DET101 retry-marker",
    }
    assert data.split("\nhelp: ")[0] == message


def test_github_multi_line_span_has_no_columns(tmp_path):
    report = report_of(tmp_path, [finding("t.py", 2, 3, 5, 7)])
    _, fields, _ = parse_command(render("github", report).strip())
    assert (fields["line"], fields["endLine"]) == ("2", "5")
    assert "col" not in fields
    assert "endColumn" not in fields


# -- full --------------------------------------------------------------------------


def block_of(text, header_start):
    """The lines of one finding's block in the full output."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i]), len(lines))
    return lines[start:end]


def carets_under(block, number):
    """(source text shown, caret line) for gutter line ``number``."""
    index = next(i for i, line in enumerate(block) if re.match(rf"^ *{number} \| ", line))
    source, carets = block[index], block[index + 1]
    return source, carets


def underlined(source, carets):
    """The part of the shown source line above the carets."""
    start = carets.index("^")
    end = carets.rindex("^") + 1
    return source[start:end]


def test_full_shows_the_source_line_and_the_caret_under_the_span(real_reports):
    report = real_reports["spellings"]
    text = render("full", report)
    for original in report.findings:
        span = original.span
        if span.end_line != span.line:
            continue
        lines = (report.cwd / span.path).read_text(encoding="utf-8").splitlines()
        expected = lines[span.line - 1][span.column - 1 : span.end_column - 1]
        block = block_of(text, f"{span.path}:{span.line}:{span.column}: {original.code}")
        source, carets = carets_under(block, span.line)
        assert underlined(source, carets) == expected
        assert carets.endswith(f"^ {original.code}")
        assert f"  = help: {original.help}" in block


def test_full_aligns_carets_under_tabs_and_wide_characters(tmp_path):
    line = "\tx = f('值值', arg)"
    (tmp_path / "t.py").write_text(f"{line}\n")
    column = line.index("arg") + 1
    report = report_of(tmp_path, [finding("t.py", 1, column, end_column=column + 3)])
    source, carets = carets_under(block_of(render("full", report), "t.py:1:"), 1)
    # The tab is shown as four spaces and each wide character takes two columns,
    # so "arg" starts 4 + len("x = f('") + 2 * 2 + len("', ") = 18 display columns
    # after the gutter ("1 | "), not at its character index.
    assert source.endswith("    x = f('值值', arg)")
    offset = 4 + len("x = f('") + 2 * 2 + len("', ")
    gutter = carets.index("|") + 2
    assert carets.index("^") - gutter == offset
    assert carets.count("^") == 3


def test_full_reads_crlf_and_undecodable_text(tmp_path):
    (tmp_path / "ci.yml").write_bytes(b"a: 1\r\nb: caf\xe9 || true\r\n")
    report = report_of(tmp_path, [finding("ci.yml", 2, 4, end_column=8)])
    source, carets = carets_under(block_of(render("full", report), "ci.yml:2:"), 2)
    assert "\r" not in source
    assert source.endswith("b: caf\N{REPLACEMENT CHARACTER} || true")
    assert underlined(source, carets) == "caf\N{REPLACEMENT CHARACTER}"


def test_full_without_readable_source_shows_the_finding_alone(tmp_path):
    (tmp_path / "blob.py").write_bytes(b"\x89PNG\x00\x00binary")
    (tmp_path / "folder.py").mkdir()
    findings = [finding(name, 1, 1) for name in ("blob.py", "folder.py", "gone.py")]
    text = render("full", report_of(tmp_path, findings))
    for name in ("blob.py", "folder.py", "gone.py"):
        block = block_of(text, f"{name}:1:1:")
        assert block == [f"{name}:1:1: DET101 {findings[0].message}", "  = help: drop the marker"]


def test_full_multi_line_span_shows_first_lines_and_last(tmp_path):
    (tmp_path / "t.py").write_text("".join(f"line{n}\n" for n in range(1, 11)))
    report = report_of(tmp_path, [finding("t.py", 2, 3, 7, 4)])
    block = block_of(render("full", report), "t.py:2:3:")
    shown = [line for line in block if re.match(r"^ *\d+ \| ", line)]
    assert [line.split("|")[1].strip() for line in shown] == ["line2", "line3", "line7"]
    assert "  | ..." in block  # the elided lines, marked in the gutter's column
    source, carets = carets_under(block, 2)
    assert underlined(source, carets) == "ne2"  # the first line, from the span's column on


def test_full_neutralises_terminal_controls(tmp_path):
    (tmp_path / "t.py").write_text("x = 1  # \x1b[2J\u202e evil\n")
    report = report_of(tmp_path, [finding("t.py", 1, 1)])
    text = render("full", report)
    assert "\x1b" not in text
    assert "\u202e" not in text


def test_full_cuts_a_long_line_around_the_span(tmp_path):
    line = "x" * 5000 + "TARGET" + "y" * 5000
    (tmp_path / "t.py").write_text(line + "\n")
    column = line.index("TARGET") + 1
    report = report_of(tmp_path, [finding("t.py", 1, column, end_column=column + 6)])
    source, carets = carets_under(block_of(render("full", report), "t.py:1:"), 1)
    assert len(source) < 300
    assert underlined(source, carets) == "TARGET"


def test_full_lists_related_locations(synthetic):
    text = render("full", synthetic)
    assert "  = related: tests/test_a.py:1:1" in block_of(text, "tests/test_a.py:3:2:")


# -- Buildkite ---------------------------------------------------------------------


def test_buildkite_table_counts_every_rule(real_reports):
    report = real_reports["ci_pipelines"]
    text = render("buildkite", report)
    rows = [line for line in text.splitlines() if line.startswith("| [DET")]
    counted = {re.match(r"\| \[(DET\d+)\]", row).group(1): int(row.split("|")[3]) for row in rows}
    assert counted == dict(Counter(f.code for f in report.findings))
    assert text.startswith(f"### detlint: Found {len(report.findings)} findings in ")


def test_buildkite_ranks_by_chance_lost_then_severity(tmp_path):
    findings = [
        finding("a.py", 1, 1, message="half", loss=loss(0.2, 0.4)),
        finding("b.py", 1, 1, message="no numbers", severity="error"),
        finding("c.py", 1, 1, message="all hidden", loss=loss(0.0, 0.4)),
        finding("d.py", 1, 1, message="a tenth", loss=loss(0.01, 0.1)),
        finding("e.py", 1, 1, message="a tenth, error", loss=loss(0.04, 0.4), severity="error"),
    ]
    text = render("buildkite", report_of(tmp_path, findings))
    items = re.findall(r"^\d+\. .*?`(\w)\.py", text, re.M)
    # Chance lost: c 0.4, e 0.36, a 0.2, d 0.09 (though its ratio, 0.1, is below a's 0.5);
    # b has no numbers and comes last.
    assert items == ["c", "e", "a", "d", "b"]


def test_buildkite_caps_the_list_and_the_size(tmp_path):
    long = "x" * 100_000
    findings = [
        finding(f"t{n:03}.py", 1, 1, message=long, help=long, loss=loss(n / 1000, 0.5))
        for n in range(120)
    ]
    text = render("buildkite", report_of(tmp_path, findings))
    assert len(text.encode("utf-8")) < buildkite.ANNOTATION_LIMIT
    assert len(re.findall(r"^\d+\. \*\*DET", text, re.M)) == buildkite.MAX_DETAILED
    assert "70 more findings are not shown here" in text
    assert "<details>" in text


def test_buildkite_escapes_markup_outside_code_spans(synthetic):
    text = render("buildkite", synthetic)
    line = next(line for line in text.splitlines() if "hides 100%" in line)
    assert "`|| true`" in line  # code span kept as written
    assert "<b>" not in line
    assert r"\<b\>" in line
    assert r"\*y\*" in line


def test_buildkite_style_follows_the_worst_severity(synthetic, tmp_path):
    assert buildkite.annotation_style(synthetic) == "error"
    warning = report_of(tmp_path, [finding("a.py", 1, 1)])
    assert buildkite.annotation_style(warning) == "warning"
    info = report_of(tmp_path, [finding("a.py", 1, 1, severity="info")])
    assert buildkite.annotation_style(info) == "info"
    assert buildkite.annotation_style(empty_report(tmp_path)) == "success"
    clean = render("buildkite", empty_report(tmp_path))
    assert clean == "### detlint: All checks passed (4 files)\n"


def test_code_span_survives_backticks():
    assert buildkite.code_span("a`b") == "``a`b``"
    assert buildkite.code_span("`x`") == "`` `x` ``"


def test_github_escape_helpers_are_the_runner_rules():
    assert github.escape_data("50%\r\n:,") == "50%25%0D%0A:,"
    assert github.escape_property("50%\r\n:,") == "50%25%0D%0A%3A%2C"


# -- GitLab ------------------------------------------------------------------------


def gitlab_validator():
    schema = json.loads(GITLAB_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_gitlab_validates_against_gitlabs_documented_format(real_reports, synthetic, tmp_path):
    validator = gitlab_validator()
    for report in [*real_reports.values(), synthetic, empty_report(tmp_path)]:
        issues = json.loads(render("gitlab", report))
        errors = sorted(validator.iter_errors(issues), key=str)
        assert not errors, errors[0]
        assert len(issues) == len(report.findings)
        prints = [issue["fingerprint"] for issue in issues]
        assert len(set(prints)) == len(prints)


def test_gitlab_severities_keep_detlints_order(synthetic):
    issues = json.loads(render("gitlab", synthetic))
    by_severity = {
        f.severity: i["severity"] for f, i in zip(synthetic.findings, issues, strict=True)
    }
    assert by_severity == {"info": "info", "warning": "major", "error": "critical"}
    order = ["info", "minor", "major", "critical", "blocker"]
    ranks = [order.index(by_severity[s]) for s in ("info", "warning", "error")]
    assert ranks == sorted(ranks)
    assert len(set(ranks)) == 3
    assert gitlab.gitlab_severity("fatal") == "critical"  # unknown counts as an error


def test_gitlab_fingerprints_tell_identical_knobs_apart_and_survive_moves(tmp_path):
    source = tmp_path / "test_x.py"
    marker = "@pytest.mark.flaky(reruns=2)\n"
    source.write_text(f"{marker}def test_a(): pass\n{marker}def test_b(): pass\n")

    def issues(first_line):
        findings = [finding("test_x.py", first_line, 2), finding("test_x.py", first_line + 2, 2)]
        return json.loads(render("gitlab", report_of(tmp_path, findings)))

    before = issues(1)
    assert before[0]["fingerprint"] != before[1]["fingerprint"]
    source.write_text("import pytest\n\n\n" + source.read_text())
    after = issues(4)
    assert [i["fingerprint"] for i in after] == [i["fingerprint"] for i in before]
    assert [i["location"]["lines"]["begin"] for i in after] == [4, 6]


def test_gitlab_description_and_lines(synthetic):
    issues = json.loads(render("gitlab", synthetic))
    for issue, original in zip(issues, synthetic.findings, strict=True):
        help_part = f"; help: {original.help}" if original.help else ""
        assert issue["description"] == f"{original.code} {original.message}{help_part}"
        assert issue["location"]["lines"] == {
            "begin": original.span.line,
            "end": original.span.end_line,
        }


# -- JUnit times -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("elapsed", "shown"), [(None, "0"), (1.23456, "1.235"), (0.0004, "0.000"), (12.0, "12.000")]
)
def test_junit_times(synthetic, elapsed, shown):
    root = ET.fromstring(render("junit", synthetic._replace(elapsed=elapsed)).encode("utf-8"))
    (suite,) = root.findall("testsuite")
    assert root.get("time") == suite.get("time") == shown
    cases = suite.findall("testcase")
    assert cases
    assert {case.get("time") for case in cases} == {"0"}


def test_junit_clean_case_has_a_time_too(tmp_path):
    root = ET.fromstring(render("junit", empty_report(tmp_path)._replace(elapsed=2.5)).encode())
    assert [case.get("time") for case in root.iter("testcase")] == ["0"]
    assert root.get("time") == "2.500"


# -- quiet ---------------------------------------------------------------------------


@pytest.mark.parametrize("output_format", ["concise", "full"])
def test_quiet_prints_the_findings_and_nothing_else(synthetic, output_format):
    loud = render(output_format, synthetic)
    quiet = render(output_format, synthetic._replace(quiet=True))
    assert "Found 4 findings" in loud
    assert "Found" not in quiet
    # The findings as before; only the closing summary (and the blank line before it
    # in the full format) is gone.
    gap = "\n" if output_format == "full" else ""
    assert loud == quiet + gap + "Found 4 findings in 3 files (2 suppressed, 1 in baseline).\n"
    for original in synthetic.findings:
        assert f"{original.span.path}:{original.span.line}:{original.span.column}: " in quiet


@pytest.mark.parametrize("output_format", ["concise", "full"])
def test_quiet_clean_run_prints_nothing(tmp_path, output_format):
    assert render(output_format, empty_report(tmp_path)._replace(quiet=True)) == ""
    assert render_statistics(empty_report(tmp_path)._replace(quiet=True)) == ""


def test_quiet_leaves_the_machine_formats_alone(synthetic):
    for output_format in ("json", "sarif", "gitlab", "github", "buildkite"):
        assert render(output_format, synthetic._replace(quiet=True)) == render(
            output_format, synthetic
        )


# -- summaries at 0 and 1 ------------------------------------------------------------


@pytest.mark.parametrize(
    ("files", "findings", "counts", "summary"),
    [
        (1, 1, {}, "Found 1 finding in 1 file."),
        (0, 1, {}, "Found 1 finding; no file was checked."),
        (0, 2, {"suppressed": 1}, "Found 2 findings (1 suppressed); no file was checked."),
        (0, 0, {}, "No file was checked."),
        (0, 0, {"baselined": 1, "baseline_gone": 0}, "No file was checked (1 in baseline)."),
        (1, 0, {}, "All checks passed (1 file)."),
        (
            1,
            0,
            {"baseline_gone": 1},
            "All checks passed (1 file; 0 in baseline; 1 baseline entry gone).",
        ),
        (1, 0, {"fixed": 1}, "Found 1 finding in 1 file (1 fixed, 0 remaining)."),
        (2, 1, {"fixed": 1}, "Found 2 findings in 2 files (1 fixed, 1 remaining)."),
        (0, 1, {"fixed": 1}, "Found 2 findings (1 fixed, 1 remaining); no file was checked."),
        (
            1,
            1,
            {"fixed": 2, "suppressed": 1, "baselined": 0, "baseline_gone": 0},
            "Found 3 findings in 1 file (2 fixed, 1 remaining; 1 suppressed, 0 in baseline).",
        ),
    ],
)
def test_summaries_read_well_at_0_and_1(tmp_path, files, findings, counts, summary):
    report = Report(
        tuple(finding("a.py", line, 1) for line in range(1, findings + 1)),
        files,
        tmp_path,
        **counts,
    )
    assert render("concise", report).splitlines()[-1] == summary


# -- colour --------------------------------------------------------------------------


class Stream:
    def __init__(self, tty):
        self.tty = tty

    def isatty(self):
        if isinstance(self.tty, Exception):
            raise self.tty
        return self.tty


@pytest.mark.parametrize(
    ("choice", "stream", "environ", "expected"),
    [
        ("always", None, {"NO_COLOR": "1"}, True),
        ("never", Stream(True), {"FORCE_COLOR": "1"}, False),
        ("auto", Stream(True), {}, True),
        ("auto", Stream(False), {}, False),
        ("auto", None, {"FORCE_COLOR": "1"}, False),  # a report file is never coloured
        ("auto", Stream(True), {"NO_COLOR": "1"}, False),
        ("auto", Stream(True), {"NO_COLOR": ""}, True),  # empty: not set, as no-color.org says
        ("auto", Stream(False), {"FORCE_COLOR": "1"}, True),
        ("auto", Stream(False), {"FORCE_COLOR": ""}, False),
        ("auto", Stream(False), {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
        ("auto", Stream(ValueError("closed")), {}, False),
    ],
)
def test_colour_enabled(choice, stream, environ, expected):
    assert colour.colour_enabled(choice, stream, environ) is expected


@pytest.mark.parametrize("output_format", ["concise", "full"])
def test_colour_only_adds_styles(real_reports, synthetic, output_format):
    ansi = re.compile(r"\x1b\[[0-9;]*m")
    for report in [*real_reports.values(), synthetic]:
        plain = render(output_format, report)
        coloured = render(output_format, report._replace(color=True))
        assert ansi.sub("", coloured) == plain
        assert (coloured != plain) == bool(report.findings)


def test_colour_styles_percentages_not_other_numbers():
    text = colour.percentages("a 10% violation, 2.8% of 5 trials, reruns=3, v1.5%x", True)
    cyan, reset = "\x1b[36m", "\x1b[0m"
    assert text == (
        f"a {cyan}10%{reset} violation, {cyan}2.8%{reset} of 5 trials, reruns=3, v1.5%x"
    )
    assert colour.percentages("a 10% violation", False) == "a 10% violation"
