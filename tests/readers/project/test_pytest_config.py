"""The pytest configuration pass reads the one config file pytest would, the way pytest does.

The fixture trees under ``fixtures/pytest_config`` were checked against pytest 9.2.0 with
pytest-rerunfailures 16.7, flaky 3.8.1 and pytest-retry 1.7.0 (``config.inipath``,
``getini`` and the parsed options); files whose bytes matter (CRLF, BOM, non-UTF-8) are
written by the tests so that no checkout can normalise them.
"""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from detlint.base.span import Problem, Span
from detlint.readers.project import pytest_config_files
from detlint.readers.project.pytest_config import (
    EMPTY_CONFIG,
    IntSetting,
    PytestConfig,
    RegisteredMarker,
)
from detlint.readers.project.pytest_configs import PytestConfigs, find_pytest_config

FIXTURES = Path(__file__).parents[2] / "fixtures" / "pytest_config"


def fixture_config(*parts: str) -> PytestConfig:
    """The config for a fixture directory, with paths displayed relative to the fixtures."""
    return find_pytest_config(FIXTURES.joinpath(*parts), FIXTURES)


def line_span(path: str, line: int) -> Span:
    """The whole-line span of ``line`` in a fixture file, computed from the file itself."""
    text = (FIXTURES / path).read_text(encoding="utf-8").splitlines()[line - 1]
    return Span.whole_line(path, line, text)


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def ini(tmp_path: Path, text: str, name: str = "pytest.ini") -> PytestConfig:
    """Write one config file into a fresh directory and read it from there."""
    write(tmp_path, name, text)
    return find_pytest_config(tmp_path, tmp_path)


def messages(config: PytestConfig) -> list[str]:
    return [problem.message for problem in config.problems]


# ----------------------------------------------------------------------------- file kinds


def test_pytest_toml_reads_native_tables_and_addopts_list():
    config = fixture_config("pytest_toml")
    assert config.path == "pytest_toml/pytest.toml"
    assert config.reruns == IntSetting(3, line_span(config.path, 3), "addopts --reruns")
    assert config.reruns_mode == "append"
    assert config.strict_xfail is True
    assert config.strict_xfail_span == line_span(config.path, 5)
    assert config.problems == ()


def test_dot_pytest_toml_integer_reruns_is_a_problem_but_still_read():
    config = fixture_config("dot_pytest_toml")
    assert config.path == "dot_pytest_toml/.pytest.toml"
    assert config.reruns == IntSetting(2, line_span(config.path, 2), "ini reruns")
    [problem] = config.problems
    assert problem.span == line_span(config.path, 2)
    assert "reruns must be a string" in problem.message
    assert "got int" in problem.message


def test_pytest_ini_continuation_lines_and_testpaths():
    config = fixture_config("pytest_ini")
    assert config.path == "pytest_ini/pytest.ini"
    assert config.reruns == IntSetting(4, line_span(config.path, 5), "ini reruns")
    # --retries sits on the continuation line 4, not on the `addopts =` line 3.
    assert config.retries == IntSetting(2, line_span(config.path, 4), "addopts --retries")
    assert config.disabled_plugins == frozenset({"cacheprovider"})
    assert config.strict_xfail is True
    assert config.testpaths == ("tests", "integration")
    assert config.python_files == ("test_*.py", "*_test.py")


def test_dot_pytest_ini_python_files():
    config = fixture_config("dot_pytest_ini")
    assert config.path == "dot_pytest_ini/.pytest.ini"
    assert config.python_files == ("check_*.py", "*_spec.py")


def test_pyproject_ini_options_accepts_integers_and_reads_force_flaky():
    config = fixture_config("pyproject_ini_options")
    path = "pyproject_ini_options/pyproject.toml"
    assert config.path == path
    assert config.reruns == IntSetting(2, line_span(path, 6), "ini reruns")
    assert config.force_flaky == line_span(path, 7)
    assert (config.max_runs, config.min_passes) == (4, 2)
    assert config.strict_xfail is True
    assert config.strict_xfail_span == line_span(path, 8)
    assert config.problems == ()


def test_pyproject_native_tool_pytest():
    config = fixture_config("pyproject_native")
    path = "pyproject_native/pyproject.toml"
    assert config.path == path
    assert config.retries == IntSetting(3, line_span(path, 5), "addopts --retries")
    assert config.strict_xfail is False
    assert config.strict_xfail_span == line_span(path, 7)
    assert config.problems == ()


def test_tox_ini_pytest_section_and_rerun_filters():
    config = fixture_config("tox_ini")
    assert config.path == "tox_ini/tox.ini"
    assert config.reruns == IntSetting(1, line_span(config.path, 5), "addopts --reruns")
    assert config.only_rerun == ("ConnectionError", "TimeoutError: read")
    assert config.rerun_except == ("AssertionError",)


def test_setup_cfg_tool_pytest_markers_and_strict_overridden():
    config = fixture_config("setup_cfg")
    path = "setup_cfg/setup.cfg"
    assert config.path == path
    assert config.markers == (
        RegisteredMarker("slow", "takes a while", line_span(path, 6)),
        RegisteredMarker("flaky", "reruns a test", line_span(path, 7)),
    )
    # `strict = true` would make xfail strict, but the explicit strict_xfail wins.
    assert config.strict_xfail is False
    assert config.strict_xfail_span == line_span(path, 9)


# ----------------------------------------------------------------------------- which file


def test_pytest_ini_beats_pyproject_in_the_same_directory():
    config = fixture_config("pytest_ini")
    assert config.path == "pytest_ini/pytest.ini"
    assert config.reruns is not None
    assert config.reruns.value == 4  # pyproject.toml beside it says 9


def test_nearer_directory_beats_farther_one():
    config = fixture_config("nearer_wins", "inner", "deep")
    assert config.path == "nearer_wins/inner/tox.ini"
    assert config.reruns is not None
    assert config.reruns.value == 1


@pytest.mark.parametrize(
    "start",
    [("skips", "pyproject_only", "tests"), ("skips", "setup_cfg_only"), ("skips", "tox_only")],
    ids=["pyproject-without-pytest-table", "setup-cfg-metadata-only", "tox-ini-without-pytest"],
)
def test_files_without_a_pytest_section_are_walked_past(start):
    config = fixture_config(*start)
    assert config.path == "skips/pytest.ini"
    assert config.reruns == IntSetting(2, line_span("skips/pytest.ini", 2), "ini reruns")


def test_empty_pytest_ini_still_stops_the_walk():
    config = fixture_config("empty_pytest_ini", "inner")
    assert config == replace(EMPTY_CONFIG, path="empty_pytest_ini/inner/pytest.ini")


ORDER = ["pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml"]
ORDER += ["tox.ini", "setup.cfg"]
BODIES = {
    "pytest.toml": '[pytest]\nreruns = "{n}"\n',
    ".pytest.toml": '[pytest]\nreruns = "{n}"\n',
    "pytest.ini": "[pytest]\nreruns = {n}\n",
    ".pytest.ini": "[pytest]\nreruns = {n}\n",
    "pyproject.toml": "[tool.pytest.ini_options]\nreruns = {n}\n",
    "tox.ini": "[pytest]\nreruns = {n}\n",
    "setup.cfg": "[tool:pytest]\nreruns = {n}\n",
}
DECOYS = {
    "pyproject.toml": '[project]\nname = "x"\n[tool.pytest-other]\nreruns = 9\n',
    "tox.ini": "[tox]\nenvlist = py311\n",
    "setup.cfg": "[metadata]\nname = x\n",
}


@pytest.mark.parametrize("winner", range(len(ORDER)), ids=ORDER)
def test_first_file_in_pytest_order_wins_and_nothing_is_merged(tmp_path, winner):
    for number, name in enumerate(ORDER[winner:], start=winner):
        write(tmp_path, name, BODIES[name].format(n=number))
    for name in ORDER[:winner]:
        if name in DECOYS:  # earlier files that exist but do not configure pytest
            write(tmp_path, name, DECOYS[name])
    config = find_pytest_config(tmp_path, tmp_path)
    assert config.path == ORDER[winner]
    assert config.reruns is not None
    assert config.reruns.value == winner
    assert config.problems == ()


def test_no_config_anywhere_is_the_empty_config(tmp_path):
    assert find_pytest_config(tmp_path / "a" / "b", tmp_path) == EMPTY_CONFIG
    assert EMPTY_CONFIG.python_files == ("test_*.py", "*_test.py")
    assert (EMPTY_CONFIG.max_runs, EMPTY_CONFIG.min_passes) == (2, 1)
    assert EMPTY_CONFIG.reruns_mode == "strict"


def test_a_lone_pyproject_without_pytest_table_is_pytests_fallback_config(tmp_path):
    write(tmp_path, "pyproject.toml", '[project]\nname = "x"\n')
    (tmp_path / "tests").mkdir()
    config = find_pytest_config(tmp_path / "tests", tmp_path)
    assert config == replace(EMPTY_CONFIG, path="pyproject.toml")


def test_a_pyproject_table_farther_up_beats_the_fallback(tmp_path):
    write(tmp_path, "pytest.ini", "[pytest]\nreruns = 2\n")
    write(tmp_path, "pkg/pyproject.toml", '[project]\nname = "x"\n')
    config = find_pytest_config(tmp_path / "pkg", tmp_path)
    assert config.path == "pytest.ini"


def test_a_run_reads_each_directory_once_and_the_next_run_afresh(tmp_path, monkeypatch):
    write(tmp_path, "pytest.ini", "[pytest]\nreruns = 2\n")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    loaded: list[Path] = []
    original = pytest_config_files.load_pytest_ini

    def counting(path: Path):
        loaded.append(path)
        return original(path)

    monkeypatch.setattr(
        pytest_config_files,
        "CANDIDATES",
        tuple(
            (name, counting if name == "pytest.ini" else loader)
            for name, loader in pytest_config_files.CANDIDATES
        ),
    )
    configs = PytestConfigs(tmp_path)
    first = configs.of(tmp_path / "a")
    assert configs.of(tmp_path / "a") is first
    assert configs.of(tmp_path / "b") == first
    assert configs.in_repository(tmp_path, "b") is configs.of(tmp_path / "b")
    assert loaded == [tmp_path / "pytest.ini"]
    # The next run (--fix's next round) reads the file again, as it may have changed.
    write(tmp_path, "pytest.ini", "[pytest]\nreruns = 3\n")
    assert PytestConfigs(tmp_path).of(tmp_path / "a").reruns.value == 3
    assert loaded == [tmp_path / "pytest.ini"] * 2


# ----------------------------------------------------------------------------- addopts


def test_every_addopts_option_and_last_one_wins():
    config = fixture_config("addopts_all")
    path = "addopts_all/pytest.ini"
    assert config.reruns == IntSetting(2, line_span(path, 6), "addopts --reruns")
    assert config.reruns_mode == "strict"
    assert config.force_reruns == IntSetting(4, line_span(path, 9), "addopts --force-reruns")
    assert config.retries == IntSetting(5, line_span(path, 10), "addopts --retries")
    assert config.force_flaky == line_span(path, 11)
    assert (config.max_runs, config.min_passes) == (3, 2)
    assert config.only_rerun == ("OSError", "ValueError")
    assert config.rerun_except == ("KeyError",)
    assert config.disabled_plugins == frozenset({"randomly", "xdist", "cacheprovider"})
    assert config.problems == ()


@pytest.mark.parametrize(
    ("addopts", "field", "expected"),
    [
        ("--reruns 3", "reruns", 3),
        ("--reruns=3", "reruns", 3),
        ("--reruns 3 --reruns=1", "reruns", 1),
        ("--force-reruns=2", "force_reruns", 2),
        ("--retries 4", "retries", 4),
        ("--retries=4 --retries 6", "retries", 6),
        ("--reruns-mode append", "reruns_mode", "append"),
        ("--reruns-mode=append --reruns-mode strict", "reruns_mode", "strict"),
        ("--max-runs 5 --max-runs=7", "max_runs", 7),
        ("--min-passes=3", "min_passes", 3),
        ("--only-rerun A --only-rerun=B", "only_rerun", ("A", "B")),
        ("--rerun-except 'Timeout Error'", "rerun_except", ("Timeout Error",)),
        ("-p no:flaky", "disabled_plugins", frozenset({"flaky"})),
        ("-pno:flaky", "disabled_plugins", frozenset({"flaky"})),
        ("-p no:flaky -p flaky", "disabled_plugins", frozenset()),
        ("--max-suite-reruns 5", "max_suite_reruns", 5),
        ("--max-suite-reruns=0", "max_suite_reruns", 0),
        (
            "--rerun-exclude-path tests/a --rerun-exclude-path=b",
            "rerun_exclude_paths",
            ("tests/a", "b"),
        ),
        ("-v -- --reruns 3", "reruns", None),
        ("--reruns-delay 5 -k 'not slow'", "reruns", None),
    ],
)
def test_addopts_option_forms(tmp_path, addopts, field, expected):
    config = ini(tmp_path, f"[pytest]\naddopts = {addopts}\n")
    value = getattr(config, field)
    assert (value.value if isinstance(value, IntSetting) else value) == expected
    assert config.problems == ()


def test_ignore_flaky_is_where_addopts_writes_it(tmp_path):
    config = ini(tmp_path, "[pytest]\naddopts =\n    -ra\n    --ignore-flaky\n")
    assert config.ignore_flaky is not None
    assert config.ignore_flaky.line == 4
    assert ini(tmp_path / "b", "[pytest]\naddopts = -ra\n").ignore_flaky is None


def test_force_flaky_is_none_without_the_flag(tmp_path):
    config = ini(tmp_path, "[pytest]\naddopts = --max-runs 4\n")
    assert config.force_flaky is None
    assert config.max_runs == 4


def test_p_equals_no_is_read_but_reported_because_pytest_rejects_it(tmp_path):
    config = ini(tmp_path, "[pytest]\naddopts = -p=no:rerunfailures\n")
    assert config.disabled_plugins == frozenset({"rerunfailures"})
    [message] = messages(config)
    assert "'=no:rerunfailures'" in message


def test_toml_addopts_as_a_string_is_split_in_ini_mode(tmp_path):
    config = ini(
        tmp_path, '[tool.pytest.ini_options]\naddopts = "--reruns 2 -p no:x"\n', "pyproject.toml"
    )
    assert config.reruns is not None
    assert config.reruns.value == 2
    assert config.disabled_plugins == frozenset({"x"})
    assert config.problems == ()


def test_native_toml_addopts_string_is_a_problem_but_still_read(tmp_path):
    config = ini(tmp_path, '[pytest]\naddopts = "--reruns 2"\n', "pytest.toml")
    assert config.reruns is not None
    assert config.reruns.value == 2
    assert messages(config) == ["addopts must be a TOML list in a native TOML table"]


# ----------------------------------------------------------------------------- precedence


@pytest.mark.parametrize(
    ("body", "field", "value", "source", "line"),
    [
        ("reruns = 2", "reruns", 2, "ini reruns", 2),
        ("reruns = 2\naddopts = --reruns 5", "reruns", 5, "addopts --reruns", 3),
        ("addopts = --reruns=5\nreruns = 2", "reruns", 5, "addopts --reruns", 2),
        ("reruns = 2\naddopts = -o reruns=6", "reruns", 6, "addopts -o reruns", 3),
        ("reruns: 3", "reruns", 3, "ini reruns", 2),
        ("retries = 1", "retries", 1, "ini retries", 2),
        ("retries = 1\naddopts = --retries 3", "retries", 3, "addopts --retries", 3),
    ],
)
def test_addopts_beats_ini_values(tmp_path, body, field, value, source, line):
    config = ini(tmp_path, f"[pytest]\n{body}\n")
    text = (tmp_path / "pytest.ini").read_text().splitlines()[line - 1]
    assert getattr(config, field) == IntSetting(
        value, Span.whole_line("pytest.ini", line, text), source
    )


@pytest.mark.parametrize(
    ("body", "strict", "line"),
    [
        ("", False, None),
        ("strict_xfail = true", True, 2),
        ("xfail_strict = True", True, 2),
        ("strict = true", True, 2),
        ("strict = on", True, 2),
        ("strict = true\nstrict_xfail = false", False, 3),
        ("xfail_strict = 0\nstrict = 1", False, 2),
        ("xfail_strict = yes\nstrict_xfail = no", False, 3),
        ("strict_xfail = false\naddopts = -o xfail_strict=true", True, 3),
        ("addopts = --strict", True, 2),
        ("addopts = --strict-markers", False, None),
    ],
)
def test_effective_xfail_strictness(tmp_path, body, strict, line):
    config = ini(tmp_path, f"[pytest]\n{body}\n")
    assert config.strict_xfail is strict
    if line is None:
        assert config.strict_xfail_span is None
    else:
        assert config.strict_xfail_span is not None
        assert config.strict_xfail_span.line == line
    assert config.problems == ()


def test_native_toml_needs_real_booleans(tmp_path):
    config = ini(tmp_path, '[pytest]\nstrict_xfail = "true"\n', "pytest.toml")
    assert config.strict_xfail is True
    assert messages(config) == ["strict_xfail must be a TOML boolean, got 'true'"]


def test_ini_rerun_filters_apply_unless_addopts_sets_its_own(tmp_path):
    body = "[pytest]\nonly_rerun =\n    OSError\n    Timeout\nrerun_except = KeyError\n"
    config = ini(tmp_path, body)
    assert config.only_rerun == ("OSError", "Timeout")
    assert config.rerun_except == ("KeyError",)
    write(tmp_path, "sub/pytest.ini", body + "addopts = --only-rerun ValueError\n")
    config = find_pytest_config(tmp_path / "sub", tmp_path)
    assert config.only_rerun == ("ValueError",)
    assert config.rerun_except == ("KeyError",)


# ----------------------------------------------------------------------------- markers


def test_markers_with_and_without_descriptions(tmp_path):
    config = ini(
        tmp_path,
        """
        [pytest]
        markers =
            slow
            net(host, port): needs host: reachable

            # not a marker
            serial :runs alone
        """,
    )
    assert [(m.name, m.description, m.span.line) for m in config.markers] == [
        ("slow", "", 3),
        ("net", "needs host: reachable", 4),
        ("serial", "runs alone", 7),
    ]


def test_toml_marker_lines_are_the_array_items():
    config = fixture_config("pytest_toml")
    assert [(m.name, m.description, m.span.line) for m in config.markers] == [
        ("slow", "takes a while", 7),
        ("network", "talks to a host", 8),
    ]


# ----------------------------------------------------------------------------- line numbers


def test_toml_spans_ignore_comments_and_multiline_strings():
    config = fixture_config("toml_layout")
    path = "toml_layout/pyproject.toml"
    # Line 4 (inside a string) and line 10 (a comment) both say --reruns 9.
    assert config.reruns == IntSetting(2, line_span(path, 11), "addopts --reruns")
    assert config.retries == IntSetting(3, line_span(path, 14), "ini retries")
    assert config.markers == (
        RegisteredMarker("slow", "a long test # not a comment", line_span(path, 13)),
    )


def test_dotted_toml_keys_are_located(tmp_path):
    config = ini(tmp_path, '[tool]\nname = 1\npytest.ini_options.reruns = "3"\n', "pyproject.toml")
    assert config.reruns == IntSetting(3, Span("pyproject.toml", 3, 1, 3, 32), "ini reruns")


def test_exact_span_columns_exclude_line_endings(tmp_path):
    (tmp_path / "pytest.ini").write_bytes(b"[pytest]\r\n\r\n# note\r\nreruns = 12\r\n")
    config = find_pytest_config(tmp_path, tmp_path)
    assert config.reruns == IntSetting(12, Span("pytest.ini", 4, 1, 4, 12), "ini reruns")


def test_a_repeated_option_is_traced_to_its_own_line(tmp_path):
    config = ini(tmp_path, "[pytest]\naddopts = --reruns=3\n    --reruns 4\n")
    assert config.reruns == IntSetting(4, Span("pytest.ini", 3, 1, 3, 15), "addopts --reruns")


def test_colon_separator_when_the_value_holds_an_equals_sign(tmp_path):
    # iniconfig splits on ":" when the text before the first "=" contains one.
    config = ini(tmp_path, "[pytest]\naddopts: -o xfail_strict=true\n")
    assert config.strict_xfail is True
    assert config.strict_xfail_span == Span("pytest.ini", 2, 1, 2, 30)


def test_crlf_toml_with_multiline_addopts(tmp_path):
    text = '[tool.pytest.ini_options]\r\naddopts = [\r\n  "-ra",\r\n  "--reruns=4",\r\n]\r\n'
    (tmp_path / "pyproject.toml").write_bytes(text.encode())
    config = find_pytest_config(tmp_path, tmp_path)
    assert config.reruns == IntSetting(4, Span("pyproject.toml", 4, 1, 4, 16), "addopts --reruns")


def test_crlf_ini_continuation_lines(tmp_path):
    text = b"[pytest]\r\naddopts =\r\n    -ra\r\n    --force-reruns 2\r\n"
    (tmp_path / "tox.ini").write_bytes(text)
    config = find_pytest_config(tmp_path, tmp_path)
    assert config.force_reruns == IntSetting(
        2, Span("tox.ini", 4, 1, 4, 21), "addopts --force-reruns"
    )


# ----------------------------------------------------------------------------- robustness


def test_ini_with_byte_order_mark_is_read_normally(tmp_path):
    (tmp_path / "pytest.ini").write_bytes("\ufeff[pytest]\nreruns = 2\n".encode())
    config = find_pytest_config(tmp_path, tmp_path)
    assert config.reruns is not None
    assert config.reruns.span.line == 2
    assert config.problems == ()


def test_toml_with_byte_order_mark_is_read_but_reported(tmp_path):
    (tmp_path / "pyproject.toml").write_bytes(
        "\ufeff[tool.pytest.ini_options]\nreruns = 2\n".encode()
    )
    config = find_pytest_config(tmp_path, tmp_path)
    assert config.reruns is not None
    assert config.reruns.value == 2
    assert messages(config) == [
        "pyproject.toml starts with a UTF-8 byte-order mark, which pytest rejects"
    ]


def test_non_utf8_candidate_stops_the_walk_with_a_problem(tmp_path):
    write(tmp_path, "pytest.ini", "[pytest]\nreruns = 2\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "setup.cfg").write_bytes(b"[metadata]\nauthor = Jos\xe9\n")
    config = find_pytest_config(tmp_path / "pkg", tmp_path)
    assert config.path == "pkg/setup.cfg"
    assert config.reruns is None
    assert config.problems == (
        Problem(
            Span.file("pkg/setup.cfg"),
            "setup.cfg is not valid UTF-8 (byte 23); pytest cannot read it",
        ),
    )


def test_unreadable_file_is_a_problem(tmp_path, monkeypatch):
    write(tmp_path, "pytest.ini", "[pytest]\nreruns = 2\n")
    real_read_bytes = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "pytest.ini":
            raise PermissionError(13, "Permission denied")
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    config = find_pytest_config(tmp_path, tmp_path)
    assert config.path == "pytest.ini"
    assert config.reruns is None
    assert messages(config) == ["cannot read pytest.ini: Permission denied"]


@pytest.mark.parametrize(
    ("start", "path", "message"),
    [
        ("toml", "invalid/toml/pyproject.toml", "pyproject.toml is not valid TOML"),
        ("ini", "invalid/ini/tox.ini", "tox.ini line 3: unexpected line"),
    ],
)
def test_invalid_candidate_stops_the_walk(start, path, message):
    config = fixture_config("invalid", start)
    assert config.path == path
    assert config.reruns is None  # the valid invalid/pytest.ini farther up is not used
    [problem] = config.problems
    assert problem.span == Span.file(path)
    assert problem.message.startswith(message)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("pytest.ini", "reruns = 2\n", "pytest.ini line 1: no section header defined"),
        (
            "pytest.ini",
            "[pytest]\nreruns = 1\nreruns = 2\n",
            "pytest.ini line 3: duplicate name 'reruns'",
        ),
        ("tox.ini", "[pytest]\n[pytest]\n", "tox.ini line 2: duplicate section 'pytest'"),
        ("tox.ini", "[pytest]\n  indented = 1\n", "tox.ini line 2: unexpected value continuation"),
        (
            "pytest.toml",
            "reruns = 2\n",
            "pytest configuration must be under a [pytest] table (found top-level options: reruns)",
        ),
        (
            "pyproject.toml",
            '[tool.pytest]\nreruns = "1"\n[tool.pytest.ini_options]\nretries = 1\n',
            "cannot use both [tool.pytest] and [tool.pytest.ini_options]"
            " (pytest stops with an error)",
        ),
        (
            "setup.cfg",
            "[pytest]\nreruns = 1\n",
            "[pytest] section in setup.cfg is no longer supported"
            " (pytest stops with an error); use [tool:pytest]",
        ),
    ],
)
def test_files_pytest_rejects_are_problems(tmp_path, name, text, message):
    config = ini(tmp_path, text, name)
    assert config.path == name
    assert messages(config) == [message]


@pytest.mark.parametrize(
    ("body", "message", "line"),
    [
        ("reruns = abc", "reruns is not an integer: 'abc'", 2),
        ("reruns = 2 # two", "reruns is not an integer: '2 # two'", 2),
        ("retries = 1.5", "retries is not an integer: '1.5'", 2),
        ("strict_xfail = maybe", "strict_xfail is not a boolean: 'maybe'", 2),
        ("addopts = --reruns x", "addopts --reruns expects an integer, got 'x'", 2),
        ("addopts =\n  -v\n  --reruns", "addopts --reruns needs a value", 4),
        ("addopts = --only-rerun --reruns 2", "addopts --only-rerun needs a value", 2),
        (
            "addopts = --reruns-mode=loose",
            "addopts --reruns-mode must be strict or append: 'loose'",
            2,
        ),
        (
            "addopts = --force-flaky=yes",
            "addopts --force-flaky takes no value: '--force-flaky=yes'",
            2,
        ),
        ("addopts = -o reruns", "addopts -o expects option=value, got 'reruns'", 2),
        (
            "addopts = --only-rerun 'oops",
            "addopts cannot be split like a shell line: No closing quotation",
            2,
        ),
    ],
)
def test_bad_values_are_problems_on_their_line(tmp_path, body, message, line):
    config = ini(tmp_path, f"[pytest]\n{body}\n")
    assert [(p.message, p.span.line) for p in config.problems] == [(message, line)]
    assert config.reruns is None or config.reruns.value == 2


def test_bad_value_keeps_the_earlier_good_one(tmp_path):
    config = ini(tmp_path, "[pytest]\naddopts = --reruns 3 --reruns lots\n")
    assert config.reruns is not None
    assert config.reruns.value == 3
    assert messages(config) == ["addopts --reruns expects an integer, got 'lots'"]
