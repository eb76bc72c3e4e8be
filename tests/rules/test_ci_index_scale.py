"""Pipelines of thousands of knob steps: the CI rules look each knob's runs and gates
up in an index built once, so a check costs time in proportion to the steps, not their
square, and finds what a scan of every run per knob found."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from repo_expectations import git_repository

FIXTURE = Path(__file__).parents[1] / "fixtures" / "ci" / "many_knob_steps_200.txt"
HEADER = (
    "name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
    "    steps:\n      - uses: actions/checkout@v4\n"
)
RETRY = "        run: pytest tests/test_a.py || pytest tests/test_a.py --lf\n"
# One step of each kind of knob the CI rules look up per knob, in turn.
KINDS = (
    RETRY,
    "        continue-on-error: true\n        run: pytest tests/test_a.py\n",
    "        run: pytest --reruns 2 tests/test_a.py\n",
    "        uses: nick-fields/retry@v3\n        with:\n          max_attempts: 3\n"
    "          command: pytest tests/test_a.py\n",
    "        run: pytest tests/test_a.py || true\n",
)


# A job that runs the same tests with no knob: a knob's finding says the tests run there too.
PLAIN_JOB = (
    "  plain:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pytest -q tests/test_a.py\n"
)


def pipeline(root: Path, steps: list[str], plain_job: str = "") -> None:
    body = "".join(f"      - name: step {i}\n{step}" for i, step in enumerate(steps))
    git_repository(
        root,
        {
            ".github/workflows/ci.yml": HEADER + body + plain_job,
            "tests/test_a.py": "def test_a():\n    pass\n",
            "pyproject.toml": '[project]\nname = "x"\ndependencies = ["pytest-rerunfailures"]\n',
        },
    )


def check(root: Path, timeout: float) -> list[str]:
    """The first line of each finding, whole (`full`: the concise form is shortened)."""
    result = subprocess.run(
        [sys.executable, "-m", "detlint", "check", "--no-cache", "--output-format", "full", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
    assert result.returncode == 1, result.stderr
    return [line for line in result.stdout.splitlines() if line.startswith(".github/")]


def test_five_thousand_retry_steps_check_in_linear_time(tmp_path: Path) -> None:
    pipeline(tmp_path, [RETRY] * 5000)
    findings = check(tmp_path, timeout=60)  # a scan per knob took minutes here
    message = (
        ":14: DET411 `|| pytest --lf` reruns the tests that failed (2 attempts in all): "
        "a 10% violation is reported 1.0% of the time instead of 10.0% in "
        "tests/test_a.py (tests without knobs) (step 'test'; gates 1 test file under tests)"
    )
    assert findings == [f".github/workflows/ci.yml:{9 + 2 * i}{message}" for i in range(5000)]


def test_every_kind_of_knob_step_finds_what_a_scan_per_knob_found(tmp_path: Path) -> None:
    """The fixture is the output of a check that scanned every run and gate per knob."""
    pipeline(tmp_path, [KINDS[i % len(KINDS)] for i in range(200)], PLAIN_JOB)
    expected = FIXTURE.read_text(encoding="utf-8").splitlines()
    assert len(expected) == 200
    assert check(tmp_path, timeout=60) == expected
