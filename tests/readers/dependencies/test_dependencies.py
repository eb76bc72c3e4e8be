"""The dependency pass: which rerun plugin a repository declares, and exactly where.

Each scenario under tests/fixtures/deps/ is a small repository. Expected spans were counted by
hand from the fixture files; ``test_every_span_covers_the_declared_name`` cross-checks all of
them against the text, so a column that drifts by one is caught even where no exact span is
written down.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from detlint.base.source import MAX_BYTES
from detlint.base.span import Problem, Span
from detlint.readers.dependencies.declarations import (
    RERUN_PLUGINS,
    PluginEvidence,
    Requirement,
    read_plugin_evidence,
)
from detlint.readers.dependencies.text_files import normalize_name, parse_requirement

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "deps"
SCENARIOS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


def all_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() or p.is_symlink())


def evidence(scenario: str, cwd: Path | None = None) -> PluginEvidence:
    root = FIXTURES / scenario
    return read_plugin_evidence(root, all_files(root), cwd or root)


def read_tmp(root: Path) -> PluginEvidence:
    return read_plugin_evidence(root, all_files(root), root)


def table(found: PluginEvidence) -> list[tuple[str, str, str, tuple[int, int, int, int]]]:
    """(plugin, specifier, source, (line, column, end_line, end_column)) in span order."""
    return [
        (
            r.plugin,
            r.specifier,
            r.source,
            (r.span.line, r.span.column, r.span.end_line, r.span.end_column),
        )
        for r in found.requirements
    ]


def text_at(root: Path, span: Span) -> str:
    lines = (root / span.path).read_text(encoding="utf-8-sig").split("\n")
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1 : span.end_column - 1]
    middle = lines[span.line : span.end_line - 1]
    last = lines[span.end_line - 1][: span.end_column - 1]
    return "\n".join([lines[span.line - 1][span.column - 1 :], *middle, last])


# --- the scenarios ----------------------------------------------------------------------------


def test_the_brief_example_one_plugin_in_a_nested_requirements_folder():
    found = evidence("single_cuda")
    assert found.problems == ()
    assert found.plugins == frozenset({"pytest-rerunfailures"})
    assert found.requirements == (
        Requirement(
            plugin="pytest-rerunfailures",
            specifier="==14.0",
            span=Span("requirements/test/cuda.txt", 12, 1, 12, 27),
            source="requirements/test/cuda.txt",
        ),
    )
    assert found.describe() == "pytest-rerunfailures==14.0 in requirements/test/cuda.txt:12"


def test_spans_are_displayed_relative_to_cwd_but_sources_to_the_root():
    found = evidence("single_cuda", cwd=FIXTURES)
    (requirement,) = found.requirements
    assert requirement.span.path == "single_cuda/requirements/test/cuda.txt"
    assert requirement.source == "requirements/test/cuda.txt"
    assert found.describe() == (
        "pytest-rerunfailures==14.0 in single_cuda/requirements/test/cuda.txt:12"
    )


def test_requirements_files_comments_includes_markers_hashes_urls_and_continuations():
    found = evidence("requirements_syntax")
    url = "@ git+https://github.com/str0zzapreti/pytest-retry@main"
    assert table(found) == [
        ("pytest-retry", "==1.6.3", "constraints.txt", (1, 1, 1, 20)),
        # "Pytest.RerunFailures[extra]==14.0 ; python_version < "3.13"": the marker is part of
        # the requirement text, the trailing comment is not.
        ("pytest-rerunfailures", "==14.0", "requirements-dev.txt", (8, 1, 8, 60)),
        # The --hash continuation lines are options, not part of the requirement.
        ("flaky", ">=3.7,<4", "requirements-dev.txt", (9, 1, 9, 14)),
        ("pytest-retry", url, "requirements-dev.txt", (12, 1, 12, 95)),
        # A requirement split by a backslash ends on the next physical line.
        ("pytest-rerunfailures", ">=14", "requirements-dev.txt", (15, 3, 16, 5)),
        # Read because it sits in a folder named "requirements".
        ("flaky", "==3.8.1", "requirements/ci/base.txt", (2, 1, 2, 13)),
    ]
    assert found.problems == ()


def test_pyproject_lists_are_located_inside_their_own_table():
    found = evidence("pyproject_tables")
    marker = 'pytest-rerunfailures>=14; python_version >= "3.9"'
    escaped = 'pytest-rerunfailures>=14; python_version >= \\"3.9\\"'
    assert table(found) == [
        # Not line 9 (inside a multi-line string), line 11 (another table) or 25 (a comment).
        (
            "pytest-rerunfailures",
            ">=14",
            "pyproject.toml [project.optional-dependencies] test",
            (27, 6, 27, 6 + len(marker)),
        ),
        # The same requirement again in another extra: a distinct span, escapes and all.
        (
            "pytest-rerunfailures",
            ">=14",
            "pyproject.toml [project.optional-dependencies] ci",
            (29, 8, 29, 8 + len(escaped)),
        ),
        ("pytest-retry", "==1.7.0", "pyproject.toml [dependency-groups] test", (33, 38, 33, 57)),
        # Not the keyword "flaky" of line 16.
        ("flaky", "", "pyproject.toml [tool.uv] dev-dependencies", (36, 22, 36, 27)),
        (
            "pytest-retry",
            ">=1.6",
            "pyproject.toml [tool.pdm.dev-dependencies] retry",
            (39, 11, 39, 28),
        ),
        (
            "flaky",
            "==3.8.1",
            "pyproject.toml [tool.hatch.envs.ci] extra-dependencies",
            (44, 4, 44, 16),
        ),
    ]


def test_poetry_tables_and_poetry_lock():
    found = evidence("poetry")
    assert table(found) == [
        # The [[package]] entry, not the dependency key "flaky" of pytest-xdist on line 11.
        ("flaky", "==3.8.1", "poetry.lock", (14, 9, 14, 14)),
        ("pytest-rerunfailures", "==14.0", "poetry.lock", (21, 9, 21, 29)),
        # A quoted key; "*" means any version, so no specifier.
        ("pytest-retry", "", "pyproject.toml [tool.poetry.dev-dependencies]", (11, 2, 11, 14)),
        ("flaky", "^3.8", "pyproject.toml [tool.poetry.group.test.dependencies]", (16, 1, 16, 6)),
        # Declared as a sub-table [tool.poetry.group.ci.dependencies.Pytest_RerunFailures].
        (
            "pytest-rerunfailures",
            "^14.0",
            "pyproject.toml [tool.poetry.group.ci.dependencies]",
            (18, 36, 18, 56),
        ),
    ]


def test_a_plugin_only_in_a_lock_file_counts():
    found = evidence("lock_only")
    # Line 18 names flaky as a dependency of pytest-xdist; line 22 is flaky's own entry.
    assert table(found) == [("flaky", "==3.8.1", "uv.lock", (22, 9, 22, 14))]
    assert found.describe() == "flaky==3.8.1 in uv.lock:22"


def test_pipenv_pdm_and_pylock_files():
    found = evidence("locks")
    assert table(found) == [
        ("flaky", "", "Pipfile [packages]", (8, 1, 8, 6)),
        ("pytest-rerunfailures", "==14.0", "Pipfile [dev-packages]", (11, 1, 11, 21)),
        ("pytest-retry", ">=1.6", "Pipfile [tests]", (14, 1, 14, 13)),
        ("flaky", "==3.8.1", "Pipfile.lock default", (12, 10, 12, 15)),
        ("flaky", "==3.8.1", "Pipfile.lock develop", (21, 10, 21, 15)),
        ("pytest-rerunfailures", "==14.0", "Pipfile.lock develop", (27, 10, 27, 30)),
        ("pytest-retry", "==1.7.0", "pdm.lock", (11, 9, 11, 21)),
        ("pytest-rerunfailures", "==14.0", "pylock.toml", (9, 9, 9, 29)),
    ]


def test_setup_cfg_options_and_extras():
    found = evidence("setuptools_cfg")
    assert table(found) == [
        # "# flaky==3.8.1" on line 9 is a comment; [metadata] and [tool:pytest] are not read.
        ("pytest-rerunfailures", ">=14", "setup.cfg [options] install_requires", (12, 5, 12, 29)),
        ("pytest-retry", "==1.7.0", "setup.cfg [options] tests_require", (13, 17, 13, 36)),
        ("flaky", "", "setup.cfg [options.extras_require] test", (17, 5, 17, 33)),
        # "ci = pytest, Pytest_Retry>=1.6": the old comma-separated form.
        ("pytest-retry", ">=1.6", "setup.cfg [options.extras_require] ci", (18, 14, 18, 31)),
    ]


def test_setup_py_is_read_statically_and_never_run():
    # The fixture raises SystemExit at import time: running it would end this test.
    found = evidence("setuptools_py")
    assert table(found) == [
        ("flaky", "==3.8.1", "setup.py tests_require", (8, 32, 8, 44)),
        # Columns count characters, not the UTF-8 bytes ast reports ("ünïcode" has 2 extra).
        ("pytest-rerunfailures", ">=14", "setup.py extras_require ünïcode", (24, 22, 24, 46)),
        ("pytest-retry", "~=1.7", "setup.py extras_require ci", (25, 21, 25, 38)),
    ]
    # OPTIONAL is bound twice, LOOP is a cycle, the commented-out tests_require is not code.
    assert not any("optional" in r.source or "loop" in r.source for r in found.requirements)


def test_tox_deps_of_testenv_sections_only():
    found = evidence("tox")
    assert table(found) == [
        # "py311,cov: " is a factor condition, not part of the requirement.
        ("pytest-rerunfailures", ">=14", "tox.ini [testenv] deps", (9, 16, 9, 40)),
        ("pytest-retry", "==1.7.0", "tox.ini [testenv:retry] deps", (14, 8, 14, 27)),
    ]


def test_two_plugins_are_both_reported():
    found = evidence("two_plugins")
    assert found.plugins == frozenset({"flaky", "pytest-rerunfailures"})
    assert found.describe() == (
        "several rerun plugins declared, they fight over the flaky marker: "
        "pytest-rerunfailures==14.0 in requirements.txt:2; flaky>=3.8 in pyproject.toml:6"
    )


def test_no_plugin_declared():
    found = evidence("none")
    assert found == PluginEvidence(requirements=(), problems=())
    assert found.plugins == frozenset()
    assert found.describe() == "no rerun plugin declared"


def test_broken_files_are_problems_and_the_rest_is_still_read():
    found = evidence("broken")
    assert found.plugins == frozenset({"flaky", "pytest-retry"})
    assert [r.span.path for r in found.requirements] == [
        "packages/fine/pyproject.toml",
        "requirements.txt",
    ]
    assert [p.span for p in found.problems] == [
        Span.file("Pipfile.lock"),
        Span.file("pyproject.toml"),
        Span.file("setup.cfg"),
        Span.file("setup.py"),
    ]
    messages = [p.message for p in found.problems]
    assert messages[0].startswith("invalid JSON: ")
    assert messages[1] == "invalid TOML: Unclosed array (at line 4, column 1)"
    assert messages[2] == "invalid INI syntax: line 1 comes before any [section] header"
    assert messages[3] == "invalid Python syntax at line 3: '(' was never closed"
    assert all("\n" not in m for m in messages)
    # packages/skipped/pyproject.toml is invalid too but names no plugin: never parsed.
    assert found.describe().endswith("(4 dependency files could not be read)")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_span_covers_the_declared_name(scenario):
    root = FIXTURES / scenario
    for requirement in evidence(scenario).requirements:
        text = text_at(root, requirement.span).replace("\\\n", "")
        name = text.split("[")[0].split(";")[0]
        for operator in ("=", "<", ">", "~", "!", "@", " "):
            name = name.split(operator)[0]
        assert normalize_name(name) == requirement.plugin, (requirement, text)
        if text != name:  # a whole PEP 508 string, not a key or a lock entry's name
            assert requirement.specifier in text.replace("\\", ""), (requirement, text)


# --- the API ----------------------------------------------------------------------------------


def test_evidence_for_normalizes_the_name_and_keeps_span_order():
    found = evidence("requirements_syntax")
    assert [r.span.line for r in found.evidence_for("Pytest_RerunFailures")] == [8, 15]
    assert found.evidence_for("pytest-flakefinder") == ()
    assert [(r.span.path, r.span.line) for r in found.evidence_for("FLAKY")] == [
        ("requirements-dev.txt", 9),
        ("requirements/ci/base.txt", 2),
    ]
    assert list(found.requirements) == sorted(found.requirements, key=lambda r: r.span)


def test_results_are_frozen():
    found = evidence("single_cuda")
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.requirements[0].plugin = "flaky"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.problems = ()  # type: ignore[misc]
    assert RERUN_PLUGINS == ("pytest-rerunfailures", "flaky", "pytest-retry")


def test_describe_a_direct_reference_and_a_problem(tmp_path):
    (tmp_path / "requirements.txt").write_text("pytest-retry @ git+https://example.org/r.git\n")
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["flaky"\n')
    assert read_tmp(tmp_path).describe() == (
        "pytest-retry @ git+https://example.org/r.git in requirements.txt:1"
        " (1 dependency file could not be read)"
    )


def test_only_listed_files_are_read_and_duplicates_count_once(tmp_path):
    (tmp_path / "requirements.txt").write_text("flaky\n")
    (tmp_path / "ignored").mkdir()
    (tmp_path / "ignored" / "requirements.txt").write_text("pytest-retry\n")
    listed = [tmp_path / "requirements.txt", tmp_path / "requirements.txt"]
    found = read_plugin_evidence(tmp_path, listed, tmp_path)
    assert table(found) == [("flaky", "", "requirements.txt", (1, 1, 1, 6))]


@pytest.mark.parametrize(
    ("name", "read"),
    [
        ("requirements.txt", True),
        ("dev-requirements.in", True),
        ("Test_Requirements.TXT", True),
        ("constraints-ci.txt", True),
        ("requirements/extra.txt", True),
        ("Requirements/ci/base.in", True),
        ("reqs.txt", False),
        ("requirements.md", False),
        ("docs/requirements.rst", False),
        ("notes.txt", False),
        ("sub/pyproject.toml", True),
        ("Pyproject.toml", False),
    ],
)
def test_files_are_chosen_by_name(tmp_path, name, read):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if name.endswith("toml"):
        path.write_text('[project]\ndependencies = ["flaky"]\n')
    else:
        path.write_text("flaky\n")
    assert read_tmp(tmp_path).plugins == (frozenset({"flaky"}) if read else frozenset())


# --- robustness -------------------------------------------------------------------------------


def test_a_directory_named_like_a_requirements_file(tmp_path):
    (tmp_path / "requirements.txt").mkdir()
    (tmp_path / "constraints.txt").write_text("flaky==3.8.1\n")
    listed = [tmp_path / "requirements.txt", tmp_path / "constraints.txt"]
    found = read_plugin_evidence(tmp_path, listed, tmp_path)
    assert found.problems == (Problem(Span.file("requirements.txt"), "is a directory"),)
    assert found.plugins == frozenset({"flaky"})


def test_a_fifo_is_reported_and_does_not_hang(tmp_path):
    os.mkfifo(tmp_path / "requirements-test.txt")
    found = read_plugin_evidence(tmp_path, [tmp_path / "requirements-test.txt"], tmp_path)
    assert found.problems == (
        Problem(
            Span.file("requirements-test.txt"),
            "cannot read: is a named pipe (FIFO), not a regular file",
        ),
    )


def test_a_dangling_symlink_is_a_problem(tmp_path):
    (tmp_path / "requirements.txt").symlink_to(tmp_path / "missing.txt")
    (found,) = read_tmp(tmp_path).problems
    assert found.span == Span.file("requirements.txt")
    assert found.message == "broken symbolic link"


def test_a_huge_file_is_skipped_with_a_problem(tmp_path):
    line = b"flaky==3.8.1  # padding padding padding padding padding padding\n"
    (tmp_path / "requirements.txt").write_bytes(line * (MAX_BYTES // len(line) + 1))
    found = read_tmp(tmp_path)
    assert found.requirements == ()
    (problem,) = found.problems
    assert problem.span == Span.file("requirements.txt")
    assert "over the 5.0 MB limit; skipped" in problem.message


def test_undecodable_bytes_are_a_problem_but_a_bom_is_fine(tmp_path):
    (tmp_path / "requirements.txt").write_bytes(b"flaky\ncaf\xe9-tools\n")
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "bom.txt").write_bytes(b"\xef\xbb\xbfpytest-retry==1.7.0\r\n")
    (tmp_path / "requirements" / "bad-bom.txt").write_bytes(b"\xef\xbb\xbfflaky\n\xff\n")
    found = read_tmp(tmp_path)
    assert found.problems == (
        Problem(
            Span.file("requirements.txt"),
            "cannot decode as utf-8: byte 0xe9 at byte offset 9 (line 2)",
        ),
        Problem(
            Span.file("requirements/bad-bom.txt"),
            "cannot decode as utf-8: byte 0xff at byte offset 9 (line 2)",
        ),
    )
    assert table(found) == [("pytest-retry", "==1.7.0", "requirements/bom.txt", (1, 1, 1, 20))]


def test_files_that_name_no_plugin_are_never_parsed(tmp_path):
    (tmp_path / "requirements.txt").write_bytes(b"caf\xe9-tools\n")
    (tmp_path / "pyproject.toml").write_text("[project\n")
    (tmp_path / "setup.py").write_text("setup(\n")
    assert read_tmp(tmp_path) == PluginEvidence((), ())


def test_the_prefilter_does_not_hide_unusual_spellings(tmp_path):
    (tmp_path / "requirements.txt").write_text("Pytest.RerunFailures==14\nPYTEST.RETRY\n")
    assert read_tmp(tmp_path).plugins == frozenset({"pytest-rerunfailures", "pytest-retry"})


def test_a_comment_line_ending_in_a_backslash_continues_nothing(tmp_path):
    # pip does not join a comment line with the next one, so pytest-retry is a requirement.
    (tmp_path / "requirements.txt").write_text("# was: flaky \\\npytest-retry\n")
    assert table(read_tmp(tmp_path)) == [("pytest-retry", "", "requirements.txt", (2, 1, 2, 13))]


def test_crlf_files_keep_exact_columns(tmp_path):
    (tmp_path / "requirements.txt").write_bytes(b"pytest\r\nflaky>=3 # ci\r\n")
    (tmp_path / "pyproject.toml").write_bytes(
        b'[project]\r\nname = "x"\r\ndependencies = [\r\n  "pytest-retry",\r\n]\r\n'
    )
    assert table(read_tmp(tmp_path)) == [
        ("pytest-retry", "", "pyproject.toml [project] dependencies", (4, 4, 4, 16)),
        ("flaky", ">=3", "requirements.txt", (2, 1, 2, 9)),
    ]


def test_dotted_and_inline_toml_tables_are_still_located(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\noptional-dependencies.test = ["pytest", "flaky"]\n'
        'optional-dependencies.ci = ["flaky"]\n'
        '\n[tool]  # pytest-retry = "^1.0" was here\n'
        'poetry = { dependencies = { pytest-retry = "^1.7" } }\n'
    )
    assert table(read_tmp(tmp_path)) == [
        ("flaky", "", "pyproject.toml [project.optional-dependencies] test", (3, 42, 3, 47)),
        # The same string again: the first occurrence is taken, so this one gets the second.
        ("flaky", "", "pyproject.toml [project.optional-dependencies] ci", (4, 30, 4, 35)),
        # A key of an inline table, found outside any table header.
        ("pytest-retry", "^1.7", "pyproject.toml [tool.poetry.dependencies]", (7, 29, 7, 41)),
    ]


# --- requirement strings ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("flaky", ("flaky", "")),
        ("  Flaky == 3.8.1 ", ("flaky", "== 3.8.1")),
        ("pytest_rerunfailures[extra]>=14,<17", ("pytest-rerunfailures", ">=14,<17")),
        ('pytest-retry; python_version < "3.12"', ("pytest-retry", "")),
        ("flaky (>=3.8)", ("flaky", ">=3.8")),
        (
            "flaky @ https://x.org/flaky.zip ; os_name == 'nt'",
            ("flaky", "@ https://x.org/flaky.zip"),
        ),
        ("pytest-flakefinder==1.1", ("pytest-flakefinder", "==1.1")),
        ("flaky tests", None),
        ("https://x.org/flaky-3.8.1.tar.gz", None),
        ("-r requirements.txt", None),
        ("", None),
    ],
)
def test_parse_requirement(text, expected):
    assert parse_requirement(text) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Pytest.RerunFailures", "pytest-rerunfailures"),
        ("pytest__retry", "pytest-retry"),
        ("FLAKY", "flaky"),
        ("flaky-tests-detector", "flaky-tests-detector"),
        ("pytest-rerun-failures", "pytest-rerun-failures"),
    ],
)
def test_names_are_normalized_per_pep_503(name, expected):
    assert normalize_name(name) == expected


def test_importing_the_pass_loads_no_heavy_dependency():
    code = (
        "import sys, detlint.readers.dependencies.declarations\n"
        "heavy = {'scipy', 'libcst', 'numpy', 'click'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_a_noxfile_session_install_declares_the_plugin(tmp_path):
    (tmp_path / "noxfile.py").write_text(
        "import nox\n\n\n@nox.session\ndef tests(session):\n"
        '    session.install("pytest", "pytest-rerunfailures>=14")\n'
        '    session.install("-r", "requirements.txt")\n'
        '    session.run("pytest")\n'
    )
    found = read_tmp(tmp_path)
    (requirement,) = found.requirements
    assert (requirement.plugin, requirement.specifier) == ("pytest-rerunfailures", ">=14")
    assert requirement.span == Span("noxfile.py", 6, 32, 6, 56)
    assert requirement.source == "noxfile.py session.install"


def test_pytest_rng_is_a_seed_plugin_not_a_rerun_plugin(tmp_path):
    """pytest-rng declares no `flaky` marker: it is kept apart from the plugins that fight
    over it, for the replays of its `rng` and `seed` fixtures."""
    (tmp_path / "requirements-test.txt").write_text("pytest-rerunfailures==16.7\npytest_rng>=1.0\n")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[project.optional-dependencies]\ntest = ["Pytest-RNG"]\n'
    )
    found = read_tmp(tmp_path)
    assert found.seed_plugins == frozenset({"pytest-rng"})
    assert found.plugins == frozenset({"pytest-rerunfailures"})
    assert found.describe() == "pytest-rerunfailures==16.7 in requirements-test.txt:1"
    (tmp_path / "requirements-test.txt").write_text("pytest-rerunfailures==16.7\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert read_tmp(tmp_path).seed_plugins == frozenset()
