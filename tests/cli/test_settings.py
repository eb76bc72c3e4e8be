"""``[tool.detlint]``: where it is found, what each key accepts, the errors that name the
key, ``per-file-ignores`` on real findings and ``fail-on``."""

from __future__ import annotations

from pathlib import Path

import pytest

from detlint.base.paths import display_path
from detlint.base.span import Span
from detlint.cli.check_run import CheckOptions, exit_status
from detlint.cli.config_files import find_settings_file, load_settings
from detlint.cli.config_keys import SettingsError, parse_settings
from detlint.engine import analyse
from detlint.readers.project.settings import Settings
from detlint.rules.catalogue import select_codes
from detlint.rules.finding import Finding
from detlint.rules.per_file_ignores import apply_per_file_ignores, ignored_by_file


def test_every_key_is_read():
    settings = parse_settings(
        {
            "reference-rate": 0.2,
            "target": 0.9,
            "select": ["DET1", "DET201"],
            "ignore": ["DET102"],
            "extend-select": ["DET301"],
            "exclude": ["third_party/*"],
            "extend-exclude": ["generated"],
            "respect-gitignore": False,
            "tracking-issue-pattern": r"JIRA-\d+",
            "retry-decorators": ["ourlib.testing.retry_test"],
            "trial-env-readers": ["ourlib.env.get_int"],
            "per-file-ignores": {"tests/legacy/*": ["DET101"], "!tests/*": ["DET2"]},
            "fail-on": "error",
        },
        None,
    )
    assert settings.reference_rate == 0.2
    assert settings.target == 0.9
    assert settings.select == ("DET1", "DET201")
    assert settings.ignore == ("DET102",)
    assert settings.extend_select == ("DET301",)
    # exclude replaces the directories skipped by default (.venv, build, ...), as in ruff;
    # extend-exclude adds to them.
    assert settings.exclude == ("third_party/*",)
    assert settings.extend_exclude == ("generated",)
    assert settings.walk_excludes() == ((), ("third_party/*", "generated"))
    assert settings.respect_gitignore is False
    assert settings.tracking_issue_pattern == r"JIRA-\d+"
    assert settings.retry_decorators == {"ourlib.testing.retry_test"}
    assert settings.trial_env_readers == {"ourlib.env.get_int"}
    assert settings.per_file_ignores == (("tests/legacy/*", ("DET101",)), ("!tests/*", ("DET2",)))
    assert settings.fail_on == "error"


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("select", ["DET999"], "select has an unknown rule code 'DET999'"),
        ("extend-select", ["XYZ"], "extend-select has an unknown rule code 'XYZ'"),
        ("ignore", "DET101", "ignore must be a list of strings"),
        ("per-file-ignores", ["DET101"], "per-file-ignores must be a table"),
        (
            "per-file-ignores",
            {"tests/*": ["DET777"]},
            "per-file-ignores 'tests/*' has an unknown rule code 'DET777'",
        ),
        ("per-file-ignores", {"tests/*": "DET101"}, "per-file-ignores 'tests/*' must be a list"),
        ("per-file-ignores", {"!": ["DET101"]}, "per-file-ignores has an empty glob"),
        ("fail-on", "fatal", "fail-on must be one of info, warning, error, got 'fatal'"),
        ("fail-on", 2, "fail-on must be one of"),
        ("retry-decorators", ["ourlib.retry-it"], "retry-decorators must hold dotted Python"),
        ("trial-env-readers", [""], "trial-env-readers must hold dotted Python names"),
        ("extend-exclude", "build", "extend-exclude must be a list of strings"),
        ("respect-gitignore", "yes", "respect-gitignore must be true or false"),
        ("reference-rate", True, "reference-rate must be a probability in (0, 1)"),
        ("reference-rate", 0, "reference-rate must be a probability in (0, 1), got 0"),
        ("target", 1, "target must be a probability in (0, 1), got 1"),
        ("target", 1.0, "target must be a probability in (0, 1), got 1.0"),
        ("force-exclude", 1, "force-exclude must be true or false"),
        ("exclude", "build", "exclude must be a list of strings"),
        ("lint", {}, "unknown key 'lint' in [tool.detlint]"),
    ],
)
def test_bad_values_name_the_key_and_the_file(tmp_path, key, value, message):
    with pytest.raises(SettingsError) as raised:
        parse_settings({key: value}, tmp_path / "pyproject.toml")
    text = str(raised.value)
    assert message in text
    # The file as every message shows a path: from the working directory.
    assert text.startswith(f"{display_path(tmp_path / 'pyproject.toml', Path.cwd())}: ")


def test_found_by_walking_up_past_a_pyproject_without_the_table(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # outside git, discovery stops at the working directory
    (tmp_path / "pyproject.toml").write_text('[tool.detlint]\nfail-on = "warning"\n')
    package = tmp_path / "pkg"
    (package / "tests").mkdir(parents=True)
    (package / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    assert find_settings_file(package / "tests") == tmp_path / "pyproject.toml"
    assert load_settings(None, package / "tests").fail_on == "warning"


def test_detlint_toml_wins_in_its_directory_and_may_use_either_layout(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.detlint]\nfail-on = "warning"\n')
    (tmp_path / "detlint.toml").write_text('fail-on = "error"\n')
    assert load_settings(None, tmp_path).fail_on == "error"
    (tmp_path / "detlint.toml").write_text('[tool.detlint]\nfail-on = "info"\n')
    assert load_settings(None, tmp_path).fail_on == "info"
    (tmp_path / "detlint.toml").write_text('fail-on = "error"\n[tool.detlint]\ntarget = 0.9\n')
    with pytest.raises(SettingsError, match="unknown key 'fail-on' outside"):
        load_settings(None, tmp_path)


def test_explicit_config(tmp_path):
    (tmp_path / "strict.toml").write_text('fail-on = "error"\n')
    assert load_settings(tmp_path / "strict.toml", tmp_path).fail_on == "error"
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    with pytest.raises(SettingsError, match=r"has no \[tool.detlint\] table"):
        load_settings(tmp_path / "other" / "pyproject.toml", tmp_path)
    assert load_settings(None, tmp_path / "other") == Settings()


def _finding(severity, code="DET101", path="t.py"):
    return Finding(code, "n", severity, Span(path, 1, 1, 1, 2), "m", "h")


@pytest.mark.parametrize(
    ("fail_on", "severities", "expected"),
    [
        (None, ["info"], True),
        (None, [], False),
        ("warning", ["info", "info"], False),
        ("warning", ["info", "warning"], True),
        ("warning", ["error"], True),
        ("error", ["warning"], False),
        ("error", ["mystery"], True),  # an unknown severity is never quietly below the bar
        ("info", ["info"], True),
    ],
)
def test_fail_on(fail_on, severities, expected):
    findings = tuple(_finding(s) for s in severities)
    assert exit_status(findings, CheckOptions(fail_on=fail_on)) == int(expected)


@pytest.mark.parametrize(
    ("glob", "path", "ignored"),
    [
        ("tests/legacy/*", "sub/tests/legacy/deep/test_a.py", True),  # '*' crosses '/'
        ("tests/legacy/*", "sub/tests/test_a.py", False),
        ("tests/legacy", "sub/tests/legacy/test_a.py", True),  # a directory covers its files
        ("conftest.py", "sub/tests/deep/conftest.py", True),  # a name matches anywhere
        ("**/test_*.py", "sub/test_a.py", True),  # '**/' also matches no directory
        ("./tests/*", "sub/tests/test_a.py", True),
        ("!tests/*", "sub/ci/pipeline.yml", True),
        ("!tests/*", "sub/tests/test_a.py", False),
        ("tests/*", "elsewhere/tests/test_a.py", False),  # outside the config's directory
    ],
)
def test_globs_are_relative_to_the_config_file(tmp_path, glob, path, ignored):
    # The config sits in sub/ while findings are shown relative to its parent.
    settings = Settings(
        path=tmp_path / "sub" / "pyproject.toml", per_file_ignores=((glob, ("DET1",)),)
    )
    assert (ignored_by_file(settings, path, tmp_path) == {"DET1"}) is ignored


def test_codes_and_prefixes_from_every_matching_glob(tmp_path):
    settings = Settings(
        path=tmp_path / "pyproject.toml",
        per_file_ignores=(("tests/*", ("DET1",)), ("*.py", ("DET201",))),
    )
    findings = [
        _finding("warning", code, path)
        for code, path in [
            ("DET101", "tests/test_a.py"),
            ("DET201", "tests/test_a.py"),
            ("DET202", "tests/test_a.py"),
            ("DET101", "ci.yml"),
            ("DET201", "setup.py"),
        ]
    ]
    kept = apply_per_file_ignores(findings, settings, tmp_path)
    assert [(f.code, f.span.path) for f in kept] == [
        ("DET202", "tests/test_a.py"),
        ("DET101", "ci.yml"),
    ]


def test_per_file_ignores_on_a_real_run(tmp_path):
    (tmp_path / "requirements.txt").write_text("pytest-rerunfailures==16.7\n")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.detlint.per-file-ignores]\n"tests/legacy/*" = ["DET101"]\n'
    )
    marker = "import pytest\n\n@pytest.mark.flaky(reruns=2)\ndef test_a():\n    pass\n"
    for directory in ("tests/legacy", "tests/new"):
        (tmp_path / directory).mkdir(parents=True)
        (tmp_path / directory / "test_a.py").write_text(marker)
    settings = load_settings(None, tmp_path)
    analysis = analyse([tmp_path], tmp_path, settings, select_codes(None, ()))
    before = {(f.code, f.span.path) for f in analysis.findings}
    assert {("DET101", "tests/legacy/test_a.py"), ("DET101", "tests/new/test_a.py")} <= before
    after = {
        (f.code, f.span.path) for f in apply_per_file_ignores(analysis.findings, settings, tmp_path)
    }
    assert after == before - {("DET101", "tests/legacy/test_a.py")}


def test_exclude_and_extend_exclude_both_keep_files_out(tmp_path):
    for name in ("third_party/test_a.py", "generated/test_b.py", "tests/test_c.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("def test_x():\n    pass\n")
    settings = parse_settings({"exclude": ["third_party"], "extend-exclude": ["generated"]}, None)
    analysis = analyse([tmp_path], tmp_path, settings, select_codes(None, ()))
    assert [p.relative_to(tmp_path).as_posix() for p in analysis.checked] == ["tests/test_c.py"]
