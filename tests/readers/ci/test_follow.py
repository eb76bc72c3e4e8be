"""Following a CI command into the file it calls: ``tox -e ENV`` into tox.ini's commands,
``make TARGET`` into the Makefile's recipe, read statically and linked like any run."""

from __future__ import annotations

import textwrap

import pytest
from repo_expectations import run_check, written_repository

from detlint.readers.ci.commands.follow import runs_tox_commands
from detlint.readers.ci.commands.makefile import expand, read_makefile
from detlint.readers.tox.config_file import read_tox_config
from detlint.readers.tox.ini_format import (
    expand_braces,
    read_tox_ini,
    substitute,
)

TRIAL_TEST = """\
import os


def test_kernel_is_deterministic():
    for _ in range(int(os.getenv("KERNEL_TRIALS", "20"))):
        assert run_kernel() == EXPECTED
"""

TOX_INI = """\
[tox]
envlist = py311, lint

[testenv]
pass_env = KERNEL_TRIALS
commands =
    pytest --reruns 2 {posargs:tests/gpu}

[testenv:lint]
commands = ruff check .
"""


def _findings(document: dict, code: str) -> list[dict]:
    return [f for f in document["findings"] if f["code"] == code]


def _tests(**files: str) -> dict[str, str]:
    return {
        "tests/gpu/test_kernels.py": TRIAL_TEST,
        "tests/unit/test_units.py": TRIAL_TEST,
        **files,
    }


# --------------------------------------------------------------------- tox.ini


def test_tox_ini_commands_per_environment_with_factors_and_continuations():
    config = read_tox_ini(
        textwrap.dedent("""\
        [tox]
        env_list = py3{10,11}-{unit,gpu}, lint

        [testenv]
        commands =
            unit: pytest tests/unit \\
                --maxfail 1
            gpu,!unit: - pytest tests/gpu  # flaky on shared runners
            python -c "print(1)"

        [testenv:lint]
        commands = ruff check .
        """)
    )
    assert config.envlist == ("py310-unit", "py310-gpu", "py311-unit", "py311-gpu", "lint")
    unit = config.env("py311-unit")
    assert unit is not None
    assert [c.text for c in unit.commands] == [
        "pytest tests/unit --maxfail 1",
        'python -c "print(1)"',
    ]
    assert (unit.commands[0].line, unit.commands[0].end_line) == (6, 7)
    gpu = config.env("py310-gpu")
    assert gpu is not None
    (first, _) = gpu.commands
    assert (first.text, first.ignore_status, first.line) == ("pytest tests/gpu", True, 8)
    lint = config.env("lint")
    assert lint is not None
    assert [c.text for c in lint.commands] == ["ruff check ."]


def test_tox_env_sees_only_passed_variables_and_its_set_env():
    config = read_tox_ini("[testenv]\npassenv = KERNEL_* HOME\nsetenv =\n    N = 3\n")
    env = config.env("py")
    assert env is not None
    assert env.passes("KERNEL_TRIALS")
    assert env.passes("PIP_INDEX_URL")
    assert not env.passes("OTHER_TRIALS")
    assert [(name, value, where.line) for name, value, where in env.set_env] == [("N", "3", 4)]


def test_a_file_without_testenv_configures_no_environment():
    assert read_tox_ini("[tox]\nenvlist = py\n\n[pytest]\naddopts = -q\n").env("py") is None


@pytest.mark.parametrize(
    ("text", "posargs", "expected"),
    [
        ("pytest {posargs}", ("-k", "gpu and not slow"), "pytest -k 'gpu and not slow'"),
        ("pytest {posargs:tests -x}", None, "pytest tests -x"),
        ("pytest {posargs:tests -x}", ("tests/a",), "pytest tests/a"),
        ("pytest {toxinidir}/tests", None, "pytest /sub/tests"),
        ("{envbindir}/pytest -n {env:WORKERS:4}", None, ".tox/bin/pytest -n 4"),
        ("pytest {posargs:{toxinidir}/tests}", None, "pytest /sub/tests"),
        ("pytest {unknown}", None, "pytest {unknown}"),
    ],
)
def test_substitutions(text, posargs, expected):
    assert substitute(text, posargs, "sub", "py") == expected


def test_generative_names_expand():
    assert expand_braces("py3{10,11}-{a,b}") == ["py310-a", "py310-b", "py311-a", "py311-b"]
    assert expand_braces("lint") == ["lint"]


@pytest.mark.parametrize(
    ("launcher", "expected"),
    [
        ("tox -e py311", True),
        ("tox", True),
        ("python -m tox -e lint", True),
        ("tox run -e py311", True),
        ("tox exec -e py311 pytest", False),
        ("uv run pytest", False),
        ("hatch test", False),
    ],
)
def test_which_launchers_run_tox_commands(launcher, expected):
    assert runs_tox_commands(launcher) is expected


def test_soft_fail_on_a_tox_step_gates_the_tests_tox_runs(tmp_path):
    repo = written_repository(
        tmp_path,
        _tests(
            **{
                "tox.ini": TOX_INI,
                ".buildkite/pipeline.yml": """\
                    steps:
                      - label: gpu
                        command: tox -e py
                        soft_fail: true
                """,
            }
        ),
    )
    _, document = run_check(repo)
    (soft,) = _findings(document, "DET401")
    assert soft["path"] == ".buildkite/pipeline.yml"
    # tox.ini's {posargs:tests/gpu} default: the gpu tests only, with their 20 trials.
    assert "gates 1 test file under tests/gpu" in soft["message"]
    assert "test_kernels.py::test_kernel_is_deterministic" in soft["message"]
    (reruns,) = _findings(document, "DET421")
    assert (reruns["path"], reruns["line"], reruns["column"]) == ("tox.ini", 7, 5)


def test_posargs_choose_the_targets_and_their_options_stay_on_the_ci_line(tmp_path):
    repo = written_repository(
        tmp_path,
        _tests(
            **{
                "tox.ini": TOX_INI.replace("--reruns 2 ", ""),
                ".github/workflows/ci.yml": """\
                    on: push
                    jobs:
                      test:
                        runs-on: ubuntu-latest
                        steps:
                          - run: tox -e py311 -- tests/unit --reruns 3
                """,
            }
        ),
    )
    _, document = run_check(repo)
    (reruns,) = _findings(document, "DET421")
    assert reruns["path"] == ".github/workflows/ci.yml"
    assert "`--reruns 3`" in reruns["message"]
    assert "gates 1 test file under tests/unit" in reruns["message"]


@pytest.mark.parametrize(("passed", "expected"), [("KERNEL_TRIALS", 1), ("OTHER", 0)])
def test_a_trial_override_reaches_tox_commands_only_through_pass_env(tmp_path, passed, expected):
    repo = written_repository(
        tmp_path,
        _tests(
            **{
                "tox.ini": TOX_INI.replace("pass_env = KERNEL_TRIALS", f"pass_env = {passed}"),
                ".buildkite/pipeline.yml": """\
                    steps:
                      - label: gpu
                        command: tox -e py311
                        env:
                          KERNEL_TRIALS: "2"
                """,
            }
        ),
    )
    _, document = run_check(repo)
    assert len(_findings(document, "DET302")) == expected


def test_toxenv_in_the_step_env_chooses_the_environment(tmp_path):
    repo = written_repository(
        tmp_path,
        _tests(
            **{
                "tox.ini": TOX_INI.replace("{posargs:tests/gpu}", "tests/unit")
                + "\n[testenv:gpu]\ncommands = pytest tests/gpu --reruns 1\n",
                ".buildkite/pipeline.yml": """\
                    steps:
                      - command: tox
                        env:
                          TOXENV: gpu
                """,
            }
        ),
    )
    _, document = run_check(repo)
    (reruns,) = _findings(document, "DET421")
    assert (reruns["path"], reruns["line"]) == ("tox.ini", 13)
    assert "gates 1 test file under tests/gpu" in reruns["message"]


def test_an_environment_without_pytest_runs_no_tests(tmp_path):
    repo = written_repository(
        tmp_path,
        _tests(
            **{
                "tox.ini": TOX_INI,
                ".buildkite/pipeline.yml": """\
                    steps:
                      - label: lint
                        command: tox -e lint
                        env:
                          KERNEL_TRIALS: "2"
                """,
            }
        ),
    )
    _, document = run_check(repo)
    assert _findings(document, "DET302") == []  # without tox.ini, tox was read as pytest


def test_without_tox_ini_the_tox_command_is_read_as_the_pytest_run_it_stands_for(tmp_path):
    repo = written_repository(
        tmp_path,
        _tests(
            **{
                ".buildkite/pipeline.yml": """\
                    steps:
                      - label: gpu
                        command: tox -e py311 -- tests/gpu --reruns 2
                """,
            }
        ),
    )
    _, document = run_check(repo)
    (reruns,) = _findings(document, "DET421")
    assert reruns["path"] == ".buildkite/pipeline.yml"
    assert "gates 1 test file under tests/gpu" in reruns["message"]


def test_ignore_outcome_and_a_dash_hide_pytest_status(tmp_path):
    tox = TOX_INI.replace("--reruns 2 ", "").replace("pass_env", "ignore_outcome = true\npass_env")
    repo = written_repository(
        tmp_path,
        _tests(
            **{
                "tox.ini": tox,
                ".buildkite/pipeline.yml": "steps:\n  - command: tox -e py311\n",
            }
        ),
    )
    _, document = run_check(repo)
    (masked,) = _findings(document, "DET431")
    assert masked["path"] == "tox.ini"
    assert masked["message"].startswith("`ignore_outcome = true` in tox.ini hides")


# -------------------------------------------------------------------- Makefile

MAKEFILE = """\
PYTEST ?= python -m pytest
ARGS := -x
ARGS += -q

.PHONY: test unit gpu
test: unit gpu
\t@echo "all done"

unit:
\t$(PYTEST) $(ARGS) tests/unit

gpu: ; -$(PYTEST) tests/gpu --reruns $(RERUNS)
"""


def test_make_recipe_with_prerequisites_first_and_variables_expanded():
    makefile = read_makefile(MAKEFILE)
    assert makefile.default_goal == "test"
    lines = makefile.recipe(["test"], {"RERUNS": "2"})
    assert [(line.target, line.text, line.line) for line in lines] == [
        ("unit", "python -m pytest -x -q tests/unit", 10),
        ("gpu", "python -m pytest tests/gpu --reruns 2", 12),
        ("test", 'echo "all done"', 7),
    ]
    assert [line.ignore_status for line in lines] == [False, True, False]
    assert makefile.recipe([]) == makefile.recipe(["test"])


def test_make_expansion_keeps_what_only_the_shell_knows():
    variables = {"A": "$(B) x", "B": "b"}
    assert expand("$(A) ${A} $$HOME $(shell pwd) $(UNDEFINED) $@", variables, {"@": "t"}) == (
        "b x b x $HOME $(shell pwd) $(UNDEFINED) t"
    )


def test_make_test_links_the_recipe_runs(tmp_path):
    repo = written_repository(
        tmp_path,
        _tests(
            **{
                "Makefile": MAKEFILE,
                ".buildkite/pipeline.yml": """\
                    steps:
                      - label: make
                        command: make RERUNS=2 test
                        retry:
                          automatic: true
                """,
            }
        ),
    )
    _, document = run_check(repo)
    (masked,) = _findings(document, "DET431")
    assert (masked["path"], masked["line"]) == ("Makefile", 12)
    assert "`-` before the recipe line" in masked["message"]
    assert "tests/gpu" in masked["message"]
    (reruns,) = _findings(document, "DET421")
    assert (reruns["path"], reruns["line"]) == ("Makefile", 12)
    (retry,) = _findings(document, "DET411")
    assert "gates 2 test files under tests/gpu, tests/unit" in retry["message"]


def test_make_in_another_directory(tmp_path):
    repo = written_repository(
        tmp_path,
        _tests(
            **{
                "sub/Makefile": "check:\n\tpytest tests --reruns 1\n",
                "sub/tests/test_sub.py": "def test_sub():\n    pass\n",
                ".buildkite/pipeline.yml": "steps:\n  - command: make -C sub check\n",
            }
        ),
    )
    _, document = run_check(repo)
    (reruns,) = _findings(document, "DET421")
    assert (reruns["path"], reruns["line"]) == ("sub/Makefile", 2)
    assert "gates 1 test file under sub/tests" in reruns["message"]


def test_generative_and_recursive_bombs_stay_small():
    # 4**20 environment names, 10**12 expansions: both are cut, neither hangs.
    bomb = "{a,b,c,d}" * 20
    assert read_tox_ini(f"[tox]\nenvlist = {bomb}\n").envlist == (bomb,)
    text = "".join(f"V{i} = {f'$(V{i + 1})' * 10}\n" for i in range(12))
    (line,) = read_makefile(text + "V12 = x\nt:\n\techo $(V0)\n").recipe(["t"])
    assert line.text.startswith("echo ")
    assert len(line.text) < 10_000


# ----------------------------------------------- tox configured outside tox.ini

TOX_STEP = """\
    steps:
      - label: gpu
        command: tox -e py
        soft_fail: true
"""


def _ini_in_pyproject(ini: str, quotes: str = '"""') -> str:
    return f'[project]\nname = "gpu"\n\n[tool.tox]\nlegacy_tox_ini = {quotes}\n{ini}{quotes}\n'


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # setup.cfg names tox's own section [tox:tox]; the env sections are as in tox.ini.
        ("setup.cfg", "[metadata]\nname = gpu\n\n" + TOX_INI.replace("[tox]", "[tox:tox]")),
        ("pyproject.toml", _ini_in_pyproject(TOX_INI)),
        ("pyproject.toml", _ini_in_pyproject(TOX_INI, quotes="'''")),
    ],
)
def test_tox_commands_are_read_from_setup_cfg_and_legacy_tox_ini(tmp_path, name, text):
    files = {name: text, ".buildkite/pipeline.yml": TOX_STEP}
    repo = written_repository(tmp_path, _tests(**files))
    _, document = run_check(repo)
    (soft,) = _findings(document, "DET401")
    assert "gates 1 test file under tests/gpu" in soft["message"]
    (reruns,) = _findings(document, "DET421")
    line = next(n for n, written in enumerate(text.splitlines(), 1) if "--reruns 2" in written)
    assert (reruns["path"], reruns["line"], reruns["column"]) == (name, line, 5)


@pytest.mark.parametrize(
    ("first", "expected"),
    [
        # tox reads tox.ini before pyproject.toml: its rerun count is the one run.
        ({"tox.ini": TOX_INI.replace("--reruns 2", "--reruns 4")}, ("tox.ini", "--reruns 4")),
        # A setup.cfg without [tox:tox] holds no tox settings, even with a [testenv].
        (
            {"setup.cfg": "[testenv]\ncommands = pytest --reruns 9 tests\n"},
            ("pyproject.toml", "--reruns 2"),
        ),
    ],
)
def test_tox_reads_the_first_file_that_holds_its_settings(tmp_path, first, expected):
    files = {
        **first,
        "pyproject.toml": _ini_in_pyproject(TOX_INI),
        ".buildkite/pipeline.yml": TOX_STEP,
    }
    repo = written_repository(tmp_path, _tests(**files))
    _, document = run_check(repo)
    (reruns,) = _findings(document, "DET421")
    assert (reruns["path"], f"`{expected[1]}`" in reruns["message"]) == (expected[0], True)


@pytest.mark.parametrize(
    "text",
    [
        '[project]\nname = "x"\n',
        "[tool.toxic]\nenv_list = ['py']\n",
        "[tool.tox\nlegacy_tox_ini = 1\n",  # not TOML
    ],
)
def test_a_pyproject_without_a_tool_tox_table_configures_no_tox(text):
    assert read_tox_config("pyproject.toml", text) is None


def test_legacy_tox_ini_keeps_its_lines_in_pyproject():
    text = _ini_in_pyproject("[testenv]\ncommands =\n    pytest --reruns 2 tests\n")
    config = read_tox_config("pyproject.toml", text)
    assert config is not None
    env = config.env("py")
    assert env is not None
    (command,) = env.commands
    assert text.splitlines()[command.line - 1][command.column - 1 :] == command.text


def test_what_hides_a_failure_under_tox_names_the_file_tox_reads(tmp_path):
    ini = TOX_INI.replace("--reruns 2 ", "").replace("pass_env", "ignore_outcome = true\npass_env")
    files = {"pyproject.toml": _ini_in_pyproject(ini), ".buildkite/pipeline.yml": TOX_STEP}
    repo = written_repository(tmp_path, _tests(**files))
    _, document = run_check(repo)
    (masked,) = _findings(document, "DET431")
    assert masked["path"] == "pyproject.toml"
    assert masked["message"].startswith("`ignore_outcome = true` in pyproject.toml hides")
