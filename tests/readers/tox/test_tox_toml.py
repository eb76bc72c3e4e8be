"""tox's native TOML configuration (tox.toml, pyproject.toml's [tool.tox] tables): the
commands a ``tox -e ENV`` step runs, where each is written, and what tox passes them."""

from __future__ import annotations

import textwrap

import pytest
from repo_expectations import run_check, written_repository

from detlint.readers.tox.config_file import read_tox_config

TRIAL_TEST = """\
import os


def test_kernel_is_deterministic():
    for _ in range(int(os.getenv("KERNEL_TRIALS", "20"))):
        assert run_kernel() == EXPECTED
"""

TOX_TOML = """\
requires = ["tox>=4.21"]
env_list = ["3.13", "lint"]

[env_run_base]
pass_env = ["KERNEL_TRIALS"]
commands = [
    ["pytest", "--reruns", "2", { replace = "posargs", default = ["tests/gpu"], extend = true }],
]

[env.lint]
commands = [["ruff", "check", "."]]
"""

STEP = """\
steps:
  - label: gpu
    command: {command}
    soft_fail: true
    env:
      KERNEL_TRIALS: "3"
"""


def _repository(tmp_path, files):
    return written_repository(
        tmp_path,
        {
            "tests/gpu/test_kernels.py": TRIAL_TEST,
            "tests/unit/test_units.py": TRIAL_TEST,
            **files,
        },
    )


def _findings(document, code):
    return [f for f in document["findings"] if f["code"] == code]


def _in_pyproject(native: str) -> str:
    """The tox.toml settings as pyproject.toml's [tool.tox] tables."""
    lines = ['[project]\nname = "gpu"\n\n[tool.tox]']
    for line in native.splitlines():
        if line.startswith("[") and not line.startswith("[["):
            line = "[tool.tox." + line[1:]
        lines.append(line)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("name", "text"), [("tox.toml", TOX_TOML), ("pyproject.toml", _in_pyproject(TOX_TOML))]
)
def test_a_tox_step_runs_the_commands_of_native_toml_settings(tmp_path, name, text):
    files = {name: text, ".buildkite/pipeline.yml": STEP.format(command="tox -e 3.13")}
    _, document = run_check(_repository(tmp_path, files))
    (soft,) = _findings(document, "DET401")
    assert "gates 1 test file under tests/gpu" in soft["message"]  # the posargs default
    (reruns,) = _findings(document, "DET421")
    line = next(n for n, written in enumerate(text.splitlines(), 1) if '"--reruns"' in written)
    assert (reruns["path"], reruns["line"], reruns["column"]) == (name, line, 5)
    # pass_env lets the step's KERNEL_TRIALS through to the test.
    assert any("KERNEL_TRIALS=3" in f["message"] for f in _findings(document, "DET302"))


def test_arguments_after_the_double_dash_replace_the_posargs_default(tmp_path):
    files = {
        "tox.toml": TOX_TOML,
        ".buildkite/pipeline.yml": STEP.format(command="tox -e 3.13 -- tests/unit"),
    }
    _, document = run_check(_repository(tmp_path, files))
    (soft,) = _findings(document, "DET401")
    assert "gates 1 test file under tests/unit" in soft["message"]


def test_an_environment_not_passed_the_variable_does_not_see_it(tmp_path):
    text = TOX_TOML.replace('pass_env = ["KERNEL_TRIALS"]\n', "")
    files = {"tox.toml": text, ".buildkite/pipeline.yml": STEP.format(command="tox -e 3.13")}
    _, document = run_check(_repository(tmp_path, files))
    assert not _findings(document, "DET302")
    assert _findings(document, "DET421")


def test_tox_reads_pyproject_before_tox_toml(tmp_path):
    files = {
        "pyproject.toml": _in_pyproject(TOX_TOML.replace('"2"', '"4"')),
        "tox.toml": TOX_TOML,
        ".buildkite/pipeline.yml": STEP.format(command="tox -e 3.13"),
    }
    _, document = run_check(_repository(tmp_path, files))
    (reruns,) = _findings(document, "DET421")
    assert reruns["path"] == "pyproject.toml"
    assert "`--reruns 4`" in reruns["message"]


def test_commands_env_fallback_refs_and_what_is_left_out():
    text = textwrap.dedent(
        """\
        env_list = ["a", { product = [["py312", "py313"], ["x", "y"]] }]

        [vars]
        paths = ["tests/a", "tests/b"]

        [env_run_base]
        change_dir = "sub"
        set_env = { TRIALS = "5", FAST = true }
        ignore_outcome = true
        commands = [
          ["-", "pytest", "-k", "not slow",
           { replace = "ref", of = ["vars", "paths"], extend = true }],
          { replace = "if", condition = "env.CI", then = [["pytest", "--reruns", "9"]] },
          ["pytest", { replace = "env", name = "SHARD", default = "0" },
           { replace = "glob", pattern = "x*" }],  # the glob depends on the run
        ]

        [env.own]
        ignore_outcome = false
        commands = [{ replace = "ref", of = ["env_run_base", "commands"], extend = true }]
        """
    )
    config = read_tox_config("tox.toml", text)
    assert config is not None
    assert config.envlist == ("a", "py312-x", "py312-y", "py313-x", "py313-y")
    base = config.env("anything")
    assert base is not None
    first, last = base.commands  # the `if` command depends on the run: left out
    assert (first.text, first.ignore_status) == ("pytest -k 'not slow' tests/a tests/b", True)
    assert (last.text, last.ignore_status) == ("pytest {env:SHARD:0}", False)
    lines = text.splitlines()
    assert lines[first.line - 1][first.column - 1 :].startswith('["-", "pytest"')
    assert lines[last.line - 1][last.column - 1 :].startswith('["pytest", { replace = "env"')
    assert last.end_line == last.line + 1
    assert lines[last.end_line - 1][: last.end_column - 1].endswith('"x*" }]')
    assert (base.changedir, base.ignore_outcome) == ("sub", True)
    assert [(name, value) for name, value, _ in base.set_env] == [("TRIALS", "5"), ("FAST", "true")]
    own = config.env("own")
    assert own is not None
    assert not own.ignore_outcome  # its own key wins over env_run_base's
    assert [c.text for c in own.commands] == [first.text, last.text]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("tox.toml", "env_list = [\n"),  # not TOML
        ("pyproject.toml", "[tool.black]\nline-length = 100\n"),
    ],
)
def test_files_without_native_settings_configure_no_tox(name, text):
    assert read_tox_config(name, text) is None


def test_an_environment_table_written_inline_places_its_commands_at_the_key():
    text = 'env = { unit = { commands = [["pytest", "--reruns", "3"]] } }\n'
    config = read_tox_config("tox.toml", text)
    assert config is not None
    unit = config.env("unit")
    assert unit is not None
    (command,) = unit.commands
    assert (command.text, command.line) == ("pytest --reruns 3", 1)
    assert config.env("other") is None
