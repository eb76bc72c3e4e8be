"""How ``detlint check`` finds and layers its settings, as ruff does: the nearest config up to
the git root, ``--config FILE|KEY=VALUE``, ``--isolated``, the exclusion and ignore flags,
``--force-exclude``, ``--show-settings``, ``--show-files``, ``-v``, ``-q`` and standard input.
Every case runs the command line in a scratch repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from detlint.cli.main import cli
from detlint.readers.project.discovery import clear_cache

MARKED = "import pytest\n\n\n@pytest.mark.flaky(reruns=2)\ndef test_x():\n    pass\n"
PLAIN = "def test_y():\n    pass\n"


def invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(cli, list(args), prog_name="detlint", input=stdin)


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with one marked test and pytest-rerunfailures declared."""
    root = tmp_path / "repo"
    write(
        root,
        {
            "tests/test_a.py": MARKED,
            "requirements-test.txt": "pytest-rerunfailures==16.7\n",
            "pytest.ini": "[pytest]\naddopts = -ra\n",
        },
    )
    subprocess.run(["git", "init", "--quiet", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


def codes(result) -> list[tuple[str, str]]:
    document = json.loads(result.stdout)
    return [(f["path"], f["code"]) for f in document["findings"]]


def test_the_nearest_config_wins(repo: Path) -> None:
    write(repo, {"pyproject.toml": '[tool.detlint]\nignore = ["DET101"]\n'})
    write(repo, {"tests/detlint.toml": 'fail-on = "error"\n'})
    result = invoke("check", "tests", "--show-settings")
    assert result.exit_code == 0
    assert result.stdout.startswith("# detlint settings (tests/detlint.toml)\n")
    assert 'fail-on = "error"' in result.stdout
    assert "ignore = []" in result.stdout  # the nearer file alone, as ruff reads one file


def test_a_config_above_the_git_root_is_not_read(repo: Path) -> None:
    (repo.parent / "detlint.toml").write_text('ignore = ["DET101"]\n')
    result = invoke("check", "--output-format", "json")
    assert ("tests/test_a.py", "DET101") in codes(result)
    # --config names it, and then it counts.
    named = invoke(
        "check", "--output-format", "json", "--config", str(repo.parent / "detlint.toml")
    )
    assert ("tests/test_a.py", "DET101") not in codes(named)


def test_outside_git_discovery_stops_at_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "detlint.toml").write_text('ignore = ["DET101"]\n')
    write(tmp_path / "project", {"tests/test_a.py": MARKED})
    monkeypatch.chdir(tmp_path / "project")
    shown = invoke("check", "--show-settings")
    assert shown.stdout.startswith("# detlint settings (no config file)\n")
    monkeypatch.chdir(tmp_path)
    shown = invoke("check", "project", "--show-settings")
    assert shown.stdout.startswith("# detlint settings (detlint.toml)\n")


def test_isolated_reads_no_config_file(repo: Path) -> None:
    write(repo, {"pyproject.toml": '[tool.detlint]\nignore = ["DET101"]\n'})
    assert ("tests/test_a.py", "DET101") not in codes(invoke("check", "--output-format", "json"))
    isolated = invoke("check", "--output-format", "json", "--isolated")
    assert ("tests/test_a.py", "DET101") in codes(isolated)
    both = invoke("check", "--isolated", "--config", "pyproject.toml")
    assert both.exit_code == 2
    assert "--isolated reads no config file; --config names one" in both.stderr


def test_config_key_value_overrides_one_setting(repo: Path) -> None:
    write(repo, {"pyproject.toml": "[tool.detlint]\nreference-rate = 0.2\n"})
    result = invoke(
        "check", "--output-format", "json", "--config", "reference-rate = 0.5", "--isolated"
    )
    (finding, *_) = json.loads(result.stdout)["findings"]
    assert "a 50% violation" in finding["message"]
    shown = invoke("check", "--show-settings", "--config", 'fail-on="error"')
    line = next(x for x in shown.stdout.splitlines() if x.startswith("fail-on"))
    assert line.split("#")[1].strip() == '--config fail-on="error"'
    assert next(x for x in shown.stdout.splitlines() if x.startswith("reference-rate")).endswith(
        "# pyproject.toml"
    )


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("fail-on=error", "is not a TOML `key = value`"),
        ("colour = 1", "--config colour = 1: unknown key 'colour' in [tool.detlint]"),
        ("target = 1", "--config target = 1: target must be a probability in (0, 1), got 1"),
        ("missing.toml", "--config 'missing.toml': no such file, and not a KEY=VALUE setting"),
    ],
)
def test_bad_config_arguments_are_usage_errors(repo: Path, argument: str, message: str) -> None:
    result = invoke("check", "--config", argument)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "pyproject",
    [
        '[tool.detlint\nignore = ["DET101"]\n',  # detlint's own table broken
        '[project\nname = "x"\n',  # another table broken
        "[tool.ruff]\nline-length = \n",  # another tool's
    ],
)
def test_a_broken_pyproject_is_one_kind_of_error(repo: Path, pyproject: str) -> None:
    write(repo, {"pyproject.toml": pyproject})
    result = invoke("check")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("detlint check: error: pyproject.toml is not valid TOML: ")
    assert "(at line " in result.stderr


def test_show_settings_names_the_source_of_every_key(repo: Path) -> None:
    write(repo, {"pyproject.toml": '[tool.detlint]\ntarget = 0.9\nextend-exclude = ["gen"]\n'})
    result = invoke("check", "--show-settings", "--select", "DET1", "--extend-exclude", "legacy/*")
    assert result.exit_code == 0
    rows = {line.split(" = ")[0]: line for line in result.stdout.splitlines() if " = " in line}
    assert rows["target"].endswith("# pyproject.toml")
    assert rows["select"].startswith('select = ["DET1"]')
    assert rows["select"].endswith("# --select")
    assert rows["extend-exclude"].startswith('extend-exclude = ["gen", "legacy/*"]')
    assert rows["extend-exclude"].endswith("# pyproject.toml + --extend-exclude")
    assert rows["reference-rate"].endswith("# default")
    assert '".venv"' in rows["exclude"]  # the defaults, shown
    rules = result.stdout.splitlines()[-1]
    assert rules.startswith("# rules that run (")
    assert all(code.startswith("DET1") for code in rules.split(": ")[1].split())


def test_show_files_lists_what_a_check_reads(repo: Path) -> None:
    write(repo, {"build/test_b.py": MARKED, "legacy/test_c.py": PLAIN})
    listed = invoke("check", "--show-files").stdout.splitlines()
    assert listed == ["legacy/test_c.py", "pytest.ini", "requirements-test.txt", "tests/test_a.py"]
    listed = invoke("check", "--show-files", "--extend-exclude", "legacy").stdout.splitlines()
    assert "legacy/test_c.py" not in listed
    assert "build/test_b.py" not in listed


def test_exclude_replaces_the_defaults_and_extend_exclude_adds(repo: Path) -> None:
    write(repo, {"build/test_b.py": MARKED})
    assert "build/test_b.py" not in invoke("check", "--show-files").stdout
    replaced = invoke("check", "--show-files", "--exclude", "legacy").stdout.splitlines()
    assert "build/test_b.py" in replaced
    write(repo, {"detlint.toml": 'exclude = ["tests"]\n'})
    from_config = invoke("check", "--show-files").stdout.splitlines()
    assert "build/test_b.py" in from_config
    assert "tests/test_a.py" not in from_config
    both = invoke("check", "--show-files", "--extend-exclude", "build").stdout.splitlines()
    assert "build/test_b.py" not in both
    assert "tests/test_a.py" not in both


def test_per_file_ignores_on_the_command_line(repo: Path) -> None:
    write(repo, {"legacy/test_c.py": MARKED})
    every = codes(invoke("check", "--output-format", "json"))
    assert ("legacy/test_c.py", "DET101") in every
    kept = codes(
        invoke("check", "--output-format", "json", "--per-file-ignores", "legacy/*:DET101,DET2")
    )
    assert ("legacy/test_c.py", "DET101") not in kept
    assert ("tests/test_a.py", "DET101") in kept
    bad = invoke("check", "--per-file-ignores", "DET101")
    assert bad.exit_code == 2
    assert "is not GLOB:CODES" in bad.stderr


def test_force_exclude_keeps_excluded_paths_out_even_when_named(repo: Path) -> None:
    write(repo, {"generated/test_g.py": MARKED, "vendor/lib/test_v.py": MARKED})
    write(repo, {"detlint.toml": 'extend-exclude = ["generated"]\n'})
    named = ("generated/test_g.py", "vendor/lib/test_v.py", "tests/test_a.py")
    plain = {path for path, _ in codes(invoke("check", "--output-format", "json", *named))}
    assert plain == set(named)  # named explicitly: checked, as ruff without --force-exclude
    forced = invoke("check", "--output-format", "json", "--force-exclude", *named)
    assert {path for path, _ in codes(forced)} == {"tests/test_a.py"}
    write(repo, {"detlint.toml": 'extend-exclude = ["generated"]\nforce-exclude = true\n'})
    from_config = invoke("check", "--output-format", "json", *named)
    assert {path for path, _ in codes(from_config)} == {"tests/test_a.py"}
    off = invoke("check", "--output-format", "json", "--no-force-exclude", *named)
    assert {path for path, _ in codes(off)} == set(named)


def test_verbose_says_what_the_numbers_rest_on(repo: Path) -> None:
    result = invoke("check", "-v")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert "detlint: config: none found; defaults" in lines
    assert "detlint: pytest config: pytest.ini" in lines
    assert (
        "detlint: plugin evidence: pytest-rerunfailures==16.7 in requirements-test.txt:1" in lines
    )
    assert "DET101" in result.stdout
    write(repo, {"detlint.toml": "target = 0.9\n"})
    assert "detlint: config: detlint.toml" in invoke("check", "-v").stderr


def test_quiet_prints_the_findings_and_nothing_else(repo: Path) -> None:
    result = invoke("check", "-q")
    assert result.exit_code == 1
    assert result.stdout.startswith("tests/test_a.py:4:2: DET101 ")
    assert "Found" not in result.stdout
    assert "fix" not in result.stdout.splitlines()[-1]
    assert invoke("check", "-q", "-v").stderr == ""
    clean = invoke("check", "-q", "tests/test_a.py", "--ignore", "DET1")
    assert clean.exit_code == 0
    assert clean.stdout == ""


def test_standard_input_is_checked_as_the_named_file(repo: Path) -> None:
    # The file on disk holds no knob; the editor's unsaved text does.
    write(repo, {"tests/test_a.py": PLAIN})
    result = invoke(
        "check",
        "-",
        "--stdin-filename",
        "tests/test_a.py",
        "--output-format",
        "json",
        stdin=MARKED,
    )
    assert result.exit_code == 1, result.stdout + result.stderr
    assert codes(result) == [("tests/test_a.py", "DET101")]
    assert (repo / "tests" / "test_a.py").read_text() == PLAIN  # nothing written
    # A file that does not exist yet, and the config that applies where it would live.
    write(repo, {"new/detlint.toml": 'ignore = ["DET101"]\n'})
    unsaved = invoke(
        "check",
        "-",
        "--stdin-filename",
        "new/test_n.py",
        "--output-format",
        "json",
        stdin=MARKED,
    )
    assert unsaved.exit_code == 0, unsaved.stdout + unsaved.stderr
    assert codes(unsaved) == []
    concise = invoke("check", "-", "--stdin-filename", "tests/test_b.py", stdin=MARKED)
    assert concise.stdout.startswith("tests/test_b.py:4:2: DET101 ")
    assert "Found 1 finding in 1 file." in concise.stdout


def test_standard_input_pipeline(repo: Path) -> None:
    pipeline = (
        "steps:\n  - label: unit\n    command: pytest tests\n    retry:\n      automatic: true\n"
    )
    result = invoke(
        "check",
        "-",
        "--stdin-filename",
        ".buildkite/pipeline.yml",
        "--output-format",
        "json",
        stdin=pipeline,
    )
    assert (".buildkite/pipeline.yml", "DET411") in codes(result)


def test_standard_input_fixes_and_source_are_its_own_text(repo: Path) -> None:
    """The edits JSON offers and the lines `full` quotes point into the text read from
    standard input, not into the different file on disk (an editor applies them to
    its buffer)."""
    write(repo, {"tests/test_a.py": "# an older version, one line longer\n" + PLAIN})
    args = ("check", "-", "--stdin-filename", "tests/test_a.py", "--unsafe-fixes")
    result = invoke(*args, "--output-format", "json", stdin=MARKED)
    (finding,) = json.loads(result.stdout)["findings"]
    (edit,) = finding["fix"]["edits"]
    start = MARKED.index("pytest.mark.flaky")
    assert (edit["start_byte"], edit["line"]) == (start, 4)
    assert edit["end_byte"] == MARKED.index("\ndef test_x")
    full = invoke(*args, "--output-format", "full", stdin=MARKED)
    assert "4 | @pytest.mark.flaky(reruns=2)" in full.stdout


def test_a_new_unsaved_file_is_gated_like_the_saved_one(repo: Path) -> None:
    """A test file that exists only in the editor is one of the files the pipeline's
    step runs: its in-test rerun and the job retry combine (DET501) as after saving."""
    write(
        repo,
        {
            ".buildkite/pipeline.yml": (
                "steps:\n  - label: unit\n    command: pytest tests\n"
                "    retry:\n      automatic: true\n"
            )
        },
    )
    args = ("check", "-", "--stdin-filename", "tests/test_new.py", "--output-format", "json")
    unsaved = invoke(*args, stdin=MARKED)
    write(repo, {"tests/test_new.py": MARKED})
    clear_cache()  # the listing is cached for the life of a process; this one runs two checks
    saved = invoke(*args, stdin=MARKED)
    assert (".buildkite/pipeline.yml", "DET501") in codes(saved)
    assert codes(unsaved) == codes(saved)
    assert json.loads(unsaved.stdout) == json.loads(saved.stdout)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-",), "reading standard input needs --stdin-filename PATH"),
        (("-", "tests", "--stdin-filename", "t.py"), "cannot be checked with other paths"),
        (("tests", "--stdin-filename", "t.py"), "--stdin-filename needs `-` as the path"),
    ],
)
def test_standard_input_misuse_is_a_usage_error(repo: Path, args, message) -> None:
    result = invoke("check", *args, stdin=MARKED)
    assert result.exit_code == 2
    assert message in result.stderr


def test_every_key_and_flag_is_documented() -> None:
    from detlint.cli.check import check
    from detlint.cli.config_keys import KEYS

    root = Path(__file__).resolve().parents[2]
    reference = (root / "docs" / "configuration.md").read_text()
    readme = (root / "README.md").read_text()
    for key in KEYS:
        assert f"| `{key}` |" in reference, key
    flags = [opt for param in check.params for opt in getattr(param, "opts", ())]
    for flag in ("--exclude", "--extend-exclude", "--per-file-ignores", "--force-exclude"):
        assert flag in flags
    for flag in [*flags, "--isolated", "--config", "--show-settings", "--show-files"]:
        if flag.startswith("--") and flag not in ("--help",):
            assert (
                flag in reference
                or flag in readme
                or flag in (root / "docs" / "output-formats.md").read_text()
            ), flag


def test_audit_reads_settings_the_same_way(repo: Path) -> None:
    write(repo, {"detlint.toml": 'extend-exclude = ["tests"]\n'})
    audited = json.loads(invoke("audit", "--output-format", "json", "-q").stdout)
    isolated = json.loads(invoke("audit", "--output-format", "json", "-q", "--isolated").stdout)
    excluded = invoke("audit", "--output-format", "json", "-q", "--isolated", "--exclude", "tests")
    assert audited["knobs"] == []  # the config keeps tests/ out
    assert [knob["path"] for knob in isolated["knobs"]] == ["tests/test_a.py"]
    assert json.loads(excluded.stdout)["knobs"] == []


CONFTEST_ALIAS = """\
import pytest

_flaky = pytest.mark.flaky(reruns=2, cause=ValueError)


def flaky(fn):
    return _flaky(fn)
"""
ALIASED_TEST = "from .conftest import flaky\n\n\n@flaky\ndef test_a():\n    assert True\n"


@pytest.fixture
def aliased(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """celery's shape: a conftest.py wraps the rerun marker its tests use."""
    root = tmp_path / "aliased"
    write(
        root,
        {
            "requirements-test.txt": "pytest-rerunfailures==14.0\n",
            "tests/__init__.py": "",
            "tests/conftest.py": CONFTEST_ALIAS,
            "tests/test_x.py": ALIASED_TEST,
            "tests/test_plain.py": PLAIN,
        },
    )
    subprocess.run(["git", "init", "--quiet", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


def test_a_changed_conftest_checks_the_tests_below_it(aliased: Path) -> None:
    root = set(codes(invoke("check", "--output-format", "json")))
    assert ("tests/conftest.py", "DET102") in root  # pytest-rerunfailures rejects cause=
    assert ("tests/test_x.py", "DET101") in root
    # A commit that changes only the wrapper: the hook names conftest.py alone.
    alone = set(codes(invoke("check", "--output-format", "json", "tests/conftest.py")))
    assert alone == root


@pytest.mark.parametrize("pipeline", [False, True])
def test_a_run_on_a_test_reports_what_involves_it_with_or_without_pipelines(
    aliased: Path, pipeline: bool
) -> None:
    if pipeline:
        write(aliased, {".buildkite/pipeline.yml": "steps:\n  - command: pytest tests\n"})
    found = codes(invoke("check", "--output-format", "json", "tests/test_x.py"))
    # The test's own finding; the conftest's DET102 is the conftest's, reported when it
    # or the tree is checked, not on every commit that touches a test using the alias.
    assert found == [("tests/test_x.py", "DET101")]
    missing = codes(invoke("check", "--output-format", "json", "tests/test_x.py", "gone.py"))
    assert ("gone.py", "DET901") in missing
