"""A directory whose dependency files list only pytest plugins (``pytest-timeout``) is
not a project of its own: those plugins are added to the environment of the project
above it, whose rerun plugin then reads the tests' ``flaky`` markers, even where a
nested pytest.ini registers ``flaky`` for ``--strict-markers``."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_expectations import git_repository, run_check

from detlint.readers.project.discovery import clear_cache

FLAKY = "import pytest\n\n\n@pytest.mark.flaky(reruns=5)\ndef test_x():\n    assert True\n"
PYTEST_INI = (
    "[pytest]\naddopts = --strict-markers\nmarkers =\n"
    "    slow: Tests that take long time\n"
    "    flaky: Tests that are known to be flaky/intermittent\n"
)


@pytest.fixture
def repository(tmp_path):
    clear_cache()
    git_repository(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "top"\n',
            "requirements-dev.txt": "pytest==8.3.5\npytest-rerunfailures==15.1\n",
            "backends/arm/test/pytest.ini": PYTEST_INI,
            "backends/arm/test/ops/test_bmm.py": FLAKY,
        },
    )
    yield tmp_path
    clear_cache()


def _findings(root: Path) -> list[tuple[str, int, str]]:
    _, document = run_check(root)
    return [(f["code"], f["line"], f["message"]) for f in document["findings"]]


def test_plugin_only_requirements_keep_the_repositorys_rerun_plugin(repository):
    (repository / "backends/arm/requirements-arm-tosa.txt").write_text(
        "ethos-u-vela == 4.4.1\npytest-timeout == 2.4.0\n"
    )
    ((code, line, message),) = _findings(repository)
    assert (code, line) == ("DET101", 4)
    assert message.startswith(
        "rerun marker hides intermittent failures: a 10% violation is reported <0.001% of "
        "the time instead of 10.0% (reruns=5; pytest-rerunfailures==15.1 from "
        "requirements-dev.txt:2;"
    )


def test_a_plugin_spelled_with_an_underscore_is_not_pytest_either(repository):
    (repository / "backends/arm/requirements.txt").write_text("pytest_asyncio\n")
    assert [code for code, _, _ in _findings(repository)] == ["DET101"]


def test_a_directory_that_declares_pytest_itself_is_its_own_project(repository):
    # Its own environment has no rerun plugin: the registered `flaky` is a tag there.
    (repository / "backends/arm/requirements-arm-tosa.txt").write_text(
        "pytest == 8.3.5\npytest-timeout == 2.4.0\n"
    )
    assert _findings(repository) == []


def test_plugins_beside_the_directorys_own_pytest_ini_make_a_project(repository):
    # backends/arm/test configures pytest and lists its plugins: the environment there.
    (repository / "backends/arm/test/requirements.txt").write_text("pytest-timeout == 2.4.0\n")
    assert _findings(repository) == []
