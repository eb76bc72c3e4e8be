"""Marker names a project registers and gives a meaning to in its own conftest code.

Distilled from concrete-ml (``pytest_configure`` registers ``flaky`` with
``config.addinivalue_line`` and ``--no-flaky`` skips every test that carries it, read
in ``pytest_collection_modifyitems``; no rerun plugin declared) and wandb (``flaky``
registered in ``[tool.pytest.ini_options] markers``, no plugin).
"""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner
from realworld_cases import RERUNFAILURES, audit, check, findings, one_test
from repo_expectations import written_repository

from detlint.cli.main import cli

PYTEST_ONLY = {"requirements-test.txt": "pytest==8.3.0\n"}
MARKED = """\
    import pytest


    @pytest.mark.flaky(reruns=2)
    def test_model():
        assert fit() == 1
    """
CONFTEST = """\
    import pytest


    def pytest_addoption(parser):
        parser.addoption("--no-flaky", action="store_true", default=False)


    def pytest_configure(config):
        config.addinivalue_line("markers", "flaky: mark test or module as flaky")


    def pytest_collection_modifyitems(config, items):
        if config.getoption("--no-flaky"):
            skip_flaky = pytest.mark.skip(reason="known flaky and --no-flaky was given")
            for item in items:
                if {read}:
                    item.add_marker(skip_flaky)
    """
KEYWORDS = '"flaky" in item.keywords'


def _project(read: str = KEYWORDS, deps: dict[str, str] = PYTEST_ONLY) -> dict[str, str]:
    return {**deps, "conftest.py": CONFTEST.format(read=read), "tests/test_m.py": MARKED}


@pytest.mark.parametrize(
    "read",
    [
        KEYWORDS,
        '"flaky" not in item.keywords',
        'item.get_closest_marker("flaky")',
        'item.get_closest_marker(name="flaky") is not None',
        'list(item.iter_markers("flaky"))',
        'item.keywords.get("flaky")',
    ],
)
def test_a_marker_the_project_reads_is_not_judged_as_a_rerun(tmp_path, read):
    """No DET101 with a guessed plugin's numbers, no DET102 "does nothing"."""
    assert findings(check(tmp_path, _project(read))) == []


def test_the_audit_says_which_code_reads_it_and_guesses_no_plugin(tmp_path):
    document = audit(tmp_path, _project())
    test = one_test(document, "test_model")
    assert test["plugin"] is None
    assert [knob["kind"] for knob in test["knobs"]] == ["project-marker"]
    assert test["layers"] == []
    assert test["notes"] == [
        "no rerun plugin is declared and the project's own code at conftest.py:16 reads "
        "`flaky`: the marker means what that code does, not judged"
    ]
    markers = document["plugins"]["project_markers"]
    assert [(use["name"], use["path"], use["line"]) for use in markers["registered"]] == [
        ("flaky", "conftest.py", 9)
    ]
    assert [(use["name"], use["line"]) for use in markers["read"]] == [("flaky", 16)]


def test_the_markdown_audit_counts_it_as_not_judged(tmp_path):
    repo = written_repository(tmp_path, _project())
    previous = os.getcwd()
    os.chdir(repo)
    try:
        result = CliRunner().invoke(
            cli, ["audit", "--no-cache", "--output-format", "markdown"], prog_name="detlint"
        )
    finally:
        os.chdir(previous)
    assert result.exit_code == 0, result.output
    assert (
        "Not counted: 1 test whose rerun marker the project's own conftest code reads, with "
        "no rerun plugin declared (not judged: the marker means what that code does)"
    ) in result.output


def test_a_plugin_module_named_in_pytest_plugins_reads_it_too(tmp_path):
    files = {
        **PYTEST_ONLY,
        "conftest.py": 'pytest_plugins = ["tests.support.markers"]\n',
        "tests/__init__.py": "",
        "tests/support/__init__.py": "",
        "tests/support/markers.py": CONFTEST.format(read='item.get_closest_marker("flaky")'),
        "tests/test_m.py": MARKED,
    }
    document = audit(tmp_path, files)
    assert document["findings"] == []
    (note,) = one_test(document, "test_model")["notes"]
    assert "the project's own code at tests/support/markers.py:16 reads `flaky`" in note


def test_a_marker_registered_in_conftest_and_read_by_nothing_is_a_tag(tmp_path):
    """Registered by ``addinivalue_line``: pytest raises no unknown-mark warning."""
    conftest = 'def pytest_configure(config):\n    config.addinivalue_line("markers", "flaky")\n'
    files = {**PYTEST_ONLY, "conftest.py": conftest, "tests/test_m.py": MARKED}
    assert findings(check(tmp_path, files)) == []
    test = one_test(audit(tmp_path / "audit", files), "test_model")
    assert [knob["kind"] for knob in test["knobs"]] == ["tag"]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pytest.ini", "[pytest]\nmarkers =\n    slow\n    flaky: known flaky\n"),
        ("setup.cfg", "[tool:pytest]\nmarkers =\n    flaky: known flaky\n"),
        ("tox.ini", "[pytest]\nmarkers =\n    flaky(reason): known flaky\n"),
        ("pyproject.toml", '[tool.pytest.ini_options]\nmarkers = ["image_output", "flaky"]\n'),
    ],
)
def test_a_marker_registered_in_any_ini_file_is_a_tag(tmp_path, name, text):
    files = {**PYTEST_ONLY, name: text, "tests/test_m.py": MARKED}
    assert findings(check(tmp_path, files)) == []


def test_an_unregistered_marker_nothing_reads_still_does_nothing(tmp_path):
    files = {**PYTEST_ONLY, "conftest.py": "import pytest\n", "tests/test_m.py": MARKED}
    document = check(tmp_path, files)
    assert [(f["code"], f["line"]) for f in findings(document)] == [
        ("DET101", 4),
        ("DET102", 4),
    ]
    (inert,) = findings(document, "DET102")
    assert "this marker does nothing (pytest warns PytestUnknownMarkWarning" in inert["message"]


def test_a_declared_rerun_plugin_reads_the_marker_whatever_the_conftest_does(tmp_path):
    document = check(tmp_path, _project(deps=RERUNFAILURES))
    (rerun,) = findings(document)
    assert rerun["code"] == "DET101"
    assert "a 10% violation is reported 0.10% of the time instead of 10.0%" in rerun["message"]
    assert "pytest-rerunfailures==16.7 from requirements-test.txt:1" in rerun["message"]
