"""Rerun plugins a Dockerfile, a shell script or a Makefile installs by name
(``RUN pip install "pytest-rerunfailures>=12"``): evidence of the plugin as a requirements
file is, for the project the file sits in; and commands that install nothing of the kind.

Each case is a small git repository written into tmp_path and checked end to end.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_expectations import run_check
from test_installed_requirements import find, repository

RERUN_TEST = "import pytest\n\n\n@pytest.mark.flaky(reruns=2)\ndef test_x():\n    assert f()\n"
FLAKY_TEST = "import pytest\n\n\n@pytest.mark.flaky(max_runs=3)\ndef test_x():\n    assert f()\n"


@pytest.mark.parametrize(
    ("name", "text", "line", "declared"),
    [
        (
            "docker/Dockerfile",
            'FROM python:3.12\nRUN pip install --no-cache-dir \\\n    "pytest-rerunfailures>=12"\n',
            2,
            "pytest-rerunfailures>=12",
        ),
        (
            "scripts/setup_tests.sh",
            "#!/bin/sh\nset -e\npython -m pip install -U pytest pytest-rerunfailures==14.0\n",
            3,
            "pytest-rerunfailures==14.0",
        ),
        (
            "Makefile",
            "test-deps:\n\tuv pip install pytest pytest-rerunfailures\n",
            2,
            "pytest-rerunfailures",
        ),
    ],
)
def test_a_plugin_installed_by_name_outside_ci_is_declared(
    tmp_path: Path, name: str, text: str, line: int, declared: str
) -> None:
    root = repository(
        tmp_path, {name: text, "requirements.txt": "numpy\n", "tests/test_x.py": RERUN_TEST}
    )
    _, document = run_check(root)
    (rerun,) = find(document, "tests/test_x.py", 4, "DET101")
    assert rerun["numbers"]["reported"] == pytest.approx(0.001)
    assert f"(reruns=2; {declared} from {name}:{line};" in rerun["message"]
    assert "no rerun plugin declared" not in rerun["message"]


def test_the_flaky_package_installed_by_a_script_gives_the_marker_its_meaning(
    tmp_path: Path,
) -> None:
    """``max_runs=`` is the flaky package's: installed by name in a script, the marker
    runs 3 times, not "no rerun plugin declared"."""
    root = repository(
        tmp_path,
        {
            "ci/install.sh": "pip install flaky==3.8.1 pytest\n",
            "requirements.txt": "numpy\n",
            "tests/test_x.py": FLAKY_TEST,
        },
    )
    _, document = run_check(root)
    (rerun,) = find(document, "tests/test_x.py", 4, "DET101")
    assert rerun["numbers"]["reported"] == pytest.approx(0.001)
    assert "flaky==3.8.1 from ci/install.sh:1" in rerun["message"]


@pytest.mark.parametrize(
    "text",
    [
        "# pip install pytest-rerunfailures\nRUN pip install numpy\n",  # a word, no command
        "RUN pip download pytest-rerunfailures\n",  # not an install
        "RUN pip install pytest-rerunfailures-extra\n",  # another package
    ],
)
def test_a_file_that_installs_no_rerun_plugin_declares_none(tmp_path: Path, text: str) -> None:
    root = repository(
        tmp_path,
        {
            "Dockerfile": "FROM python\n" + text,
            "requirements.txt": "pytest\n",
            "tests/test_x.py": RERUN_TEST,
        },
    )
    _, document = run_check(root)
    (rerun,) = find(document, "tests/test_x.py", 4, "DET101")
    assert "no rerun plugin declared" in rerun["message"]
