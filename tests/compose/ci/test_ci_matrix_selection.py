"""A step whose selection the pipeline decides per matrix entry, or only at run time.

``tox run -e ${{ matrix.tox_env }}`` runs one tox environment per entry (distilled
from pytest's own workflow, bench/realworld: its ``plugins`` entry runs ``pytest
--reruns 5``): each value is followed, and what it finds says which entries run it.
``tox -e "$SUITE"`` with a name set at run time may run any environment tox defines:
each is followed, saying it applies if the step selects it.
"""

from __future__ import annotations

from repo_expectations import run_check, written_repository

TOX_INI = """\
[tox]
envlist = unit, flaky

[testenv]
commands = pytest tests/unit

[testenv:flaky]
changedir = tests
commands =
    pytest --reruns 3 gpu
"""

# pytest-rerunfailures: --reruns 3 on a single-attempt test catching 10% reports 0.1**4.
LOSS = "a 10% violation is reported 0.010% of the time instead of 10.0%"
GPU = "in tests/gpu/test_gpu.py (tests without knobs) (gates 1 test file under tests/gpu)"


def _workflow(matrix: str, run: str, extra: str = "") -> str:
    """A workflow whose job ``test`` has the ``matrix`` lines (indented under
    ``matrix:``), the job lines ``extra``, and the command ``run`` last."""
    lines = [
        "on: push",
        "jobs:",
        "  test:",
        "    runs-on: ubuntu-latest",
        *([extra] if extra else []),
        "    strategy:",
        "      matrix:",
        *("        " + line for line in matrix.splitlines()),
        "    steps:",
        "      - run: pip install tox pytest-rerunfailures",
        f"      - run: {run}",
    ]
    return "\n".join(lines) + "\n"


_TWO_ENTRIES = """\
include:
  - python: "3.11"
    tox_env: unit
  - python: "3.12"
    tox_env: flaky"""


def _check(tmp_path, workflow: str, tox_ini: str = TOX_INI) -> list[dict]:
    repo = written_repository(
        tmp_path,
        {
            "tox.ini": tox_ini,
            "requirements.txt": "pytest-rerunfailures==16.1\n",
            "tests/unit/test_unit.py": "def test_unit():\n    assert True\n",
            "tests/gpu/test_gpu.py": "def test_gpu():\n    assert True\n",
            ".github/workflows/ci.yml": workflow,
        },
    )
    _, document = run_check(repo)
    return [f for f in document["findings"] if f["code"].startswith("DET4")]


def test_a_matrix_value_runs_the_environment_that_reruns(tmp_path):
    findings = _check(tmp_path, _workflow(_TWO_ENTRIES, "tox run -e ${{ matrix.tox_env }}"))
    assert [(f["code"], f["path"], f["line"]) for f in findings] == [("DET421", "tox.ini", 10)]
    assert findings[0]["message"] == (
        "`--reruns 3` reruns every failing test of step 'test' (matrix entries with "
        f"tox_env=flaky: python=3.12): {LOSS} {GPU}"
    )


def test_no_entry_selects_the_environment_that_reruns(tmp_path):
    matrix = "tox_env: [unit, lint]"
    assert _check(tmp_path, _workflow(matrix, "tox run -e ${{ matrix.tox_env }}")) == []


def test_a_step_if_the_matrix_decides_leaves_out_the_entries_it_skips(tmp_path):
    workflow = _workflow(_TWO_ENTRIES, "tox run -e ${{ matrix.tox_env }}").replace(
        "      - run: tox", "      - if: matrix.tox_env != 'flaky'\n        run: tox"
    )
    assert _check(tmp_path, workflow) == []


def test_a_variable_set_from_the_matrix_is_read_per_entry(tmp_path):
    workflow = _workflow(_TWO_ENTRIES, "tox").replace(
        "    steps:", "    env:\n      TOXENV: ${{ matrix.tox_env }}\n    steps:"
    )
    findings = _check(tmp_path, workflow)
    assert [(f["code"], f["line"]) for f in findings] == [("DET421", 10)]
    assert (
        "step 'test' (matrix entries with tox_env=flaky: python=3.12)" in (findings[0]["message"])
    )


def test_a_literal_env_value_needs_no_condition(tmp_path):
    workflow = _workflow(_TWO_ENTRIES, "tox -e ${{ env.SUITE }}").replace(
        "    steps:", "    env:\n      SUITE: flaky\n    steps:"
    )
    findings = _check(tmp_path, workflow)
    assert [(f["code"], f["line"]) for f in findings] == [("DET421", 10)]
    assert f"every failing test of step 'test': {LOSS}" in findings[0]["message"]


def test_a_continue_on_error_of_other_entries_does_not_gate_this_one(tmp_path):
    matrix = _TWO_ENTRIES.replace("tox_env: unit", "tox_env: unit\n    experimental: true")
    workflow = _workflow(
        matrix,
        "tox run -e ${{ matrix.tox_env }}",
        "    continue-on-error: ${{ matrix.experimental == true }}",
    )
    by_code = {f["code"]: f for f in _check(tmp_path, workflow)}
    assert set(by_code) == {"DET401", "DET421"}
    soft = by_code["DET401"]["message"]
    assert "gates 1 test file under tests/unit)" in soft
    assert "tests/gpu" not in soft


def test_each_entry_runs_its_own_tests_under_one_knob(tmp_path):
    matrix = "suite: [unit, gpu]"
    findings = _check(tmp_path, _workflow(matrix, "pytest tests/${{ matrix.suite }} --reruns 2"))
    # Placed in the command as written, whatever length each entry's value has.
    assert [(f["code"], f["line"], f["column"], f["end_column"]) for f in findings] == [
        ("DET421", 10, 14, 14 + len("pytest tests/${{ matrix.suite }} --reruns 2"))
    ]
    assert findings[0]["message"] == (
        "`--reruns 2` reruns every failing test of step 'test': a 10% violation is "
        "reported 0.10% of the time instead of 10.0% in tests/unit/test_unit.py (tests "
        "without knobs) (gates 2 test files under tests/gpu, tests/unit)"
    )


def test_an_environment_named_at_run_time_may_be_any_of_them(tmp_path):
    findings = _check(tmp_path, _workflow(_TWO_ENTRIES, 'tox -e "$SUITE"'))
    assert [(f["code"], f["line"]) for f in findings] == [("DET421", 10)]
    assert findings[0]["message"] == (
        "`--reruns 3` reruns every failing test of step 'test' (in tox environment "
        f"`flaky`, if the step selects it): {LOSS} {GPU}"
    )


def test_environments_that_run_the_same_commands_are_named_together(tmp_path):
    tox_ini = """\
        [tox]
        envlist = py311, py312, lint

        [testenv]
        commands = pytest --reruns 3 tests/gpu

        [testenv:lint]
        commands = ruff check .
        """
    workflow = _workflow(_TWO_ENTRIES, "tox -e ${{ github.event.inputs.env }}")
    findings = _check(tmp_path, workflow, tox_ini)
    assert [(f["code"], f["line"]) for f in findings] == [("DET421", 5)]
    assert (
        "step 'test' (in tox environments `py311`, `py312`, if the step selects one of them)"
        in findings[0]["message"]
    )


def test_a_variable_the_step_sets_names_the_environment(tmp_path):
    workflow = _workflow(_TWO_ENTRIES, 'tox -e "$SUITE"').replace(
        "    steps:", "    env:\n      SUITE: unit\n    steps:"
    )
    assert _check(tmp_path, workflow) == []


NOXFILE = """\
import nox


@nox.session(python=["3.11", "3.12"])
def tests(session):
    session.run("pytest", "--reruns", "2", "tests/unit")


@nox.session(name="lint")
def run_linters(session):
    session.run("ruff", "check", ".")
"""


def _nox_findings(tmp_path, run: str, matrix: str) -> list[dict]:
    repo = written_repository(
        tmp_path,
        {
            "noxfile.py": NOXFILE,
            "requirements.txt": "pytest-rerunfailures==16.1\n",
            "tests/unit/test_unit.py": "def test_unit():\n    assert True\n",
            ".github/workflows/ci.yml": _workflow(matrix, run),
        },
    )
    _, document = run_check(repo)
    return [f for f in document["findings"] if f["code"].startswith("DET4")]


def test_a_nox_session_named_at_run_time_may_be_any_of_them(tmp_path):
    findings = _nox_findings(tmp_path, 'nox -s "$SESSION"', "python: ['3.12']")
    assert [(f["code"], f["path"], f["line"]) for f in findings] == [("DET421", "noxfile.py", 6)]
    assert (
        "of step 'test' (in nox session `tests`, if the step selects it):"
        in (findings[0]["message"])
    )


def test_a_nox_session_per_matrix_entry(tmp_path):
    findings = _nox_findings(tmp_path, "nox -s ${{ matrix.session }}", "session: [tests, lint]")
    assert [(f["code"], f["path"], f["line"]) for f in findings] == [("DET421", "noxfile.py", 6)]
    assert "of step 'test' (matrix entries with session=tests):" in (findings[0]["message"])


FACTORS_TOX_INI = """\
[tox]
envlist = {py311,py312}-{unit,smoke}

[testenv]
commands =
    unit: pytest tests/unit
    smoke: pytest --reruns 3 tests/gpu
"""


def test_the_literal_part_of_a_run_time_name_narrows_the_environments(tmp_path):
    # A matrix read from a caller's input (celery, bench/realworld): the Python version
    # is known only at run time, the factor that picks the commands is written.
    matrix = "python: ${{ fromJson(inputs.versions) }}"
    run = 'tox -e "${{ matrix.python }}-unit"'
    assert _check(tmp_path, _workflow(matrix, run), FACTORS_TOX_INI) == []


def test_every_environment_a_run_time_name_may_be_runs_the_flag(tmp_path):
    matrix = "python: ${{ fromJson(inputs.versions) }}"
    run = 'tox -e "${{ matrix.python }}-smoke"'
    findings = _check(tmp_path, _workflow(matrix, run), FACTORS_TOX_INI)
    assert [(f["code"], f["line"]) for f in findings] == [("DET421", 7)]
    assert f"every failing test of step 'test': {LOSS} {GPU}" in findings[0]["message"]


def test_a_make_goal_per_matrix_entry(tmp_path):
    makefile = "test-unit:\n\tpytest tests/unit\n\ntest-flaky:\n\tpytest --reruns 3 tests/gpu\n"
    repo = written_repository(
        tmp_path,
        {
            "Makefile": makefile,
            "requirements.txt": "pytest-rerunfailures==16.1\n",
            "tests/unit/test_unit.py": "def test_unit():\n    assert True\n",
            "tests/gpu/test_gpu.py": "def test_gpu():\n    assert True\n",
            ".github/workflows/ci.yml": _workflow(
                "goal: [test-unit, test-flaky]", "make ${{ matrix.goal }}"
            ),
        },
    )
    _, document = run_check(repo)
    findings = [f for f in document["findings"] if f["code"].startswith("DET4")]
    assert [(f["code"], f["path"], f["line"]) for f in findings] == [("DET421", "Makefile", 5)]
    assert findings[0]["message"] == (
        "`--reruns 3` reruns every failing test of step 'test' (matrix entries with "
        f"goal=test-flaky): {LOSS} {GPU}"
    )


def test_a_callers_per_entry_knob_gates_every_entry_of_the_called_job(tmp_path):
    caller = """\
        on: push
        jobs:
          call:
            strategy:
              matrix:
                python: ["3.11", "3.12"]
                include:
                  - python: "3.12"
                    experimental: true
            continue-on-error: ${{ matrix.experimental == true }}
            uses: ./.github/workflows/called.yml
        """
    called = """\
        on: workflow_call
        jobs:
          test:
            runs-on: ubuntu-latest
            strategy:
              matrix:
                tox_env: [unit, flaky]
            steps:
              - run: tox run -e ${{ matrix.tox_env }}
        """
    repo = written_repository(
        tmp_path,
        {
            "tox.ini": TOX_INI,
            "requirements.txt": "pytest-rerunfailures==16.1\n",
            "tests/unit/test_unit.py": "def test_unit():\n    assert True\n",
            "tests/gpu/test_gpu.py": "def test_gpu():\n    assert True\n",
            ".github/workflows/ci.yml": caller,
            ".github/workflows/called.yml": called,
        },
    )
    _, document = run_check(repo)
    soft = [f for f in document["findings"] if f["code"] == "DET401"]
    assert [(f["path"], f["line"]) for f in soft] == [(".github/workflows/ci.yml", 10)]
    assert "gates 2 test files under tests/gpu, tests/unit)" in soft[0]["message"]
