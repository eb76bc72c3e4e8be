"""Rerun plugins declared the conda way: pixi manifests, conda environment files, pixi.lock and
conda-lock.yml, with the exact position of every declaration.

Each test writes its own small files. Expected columns were counted by hand from the texts
below; ``assert_spans_cover_names`` checks them all against the text once more, so a column
that drifts by one is caught even where a test does not spell every span out.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from repo_expectations import run_check

from detlint.base.source import MAX_BYTES
from detlint.base.span import Problem, Span
from detlint.readers.dependencies.conda_files import parse_match_spec
from detlint.readers.dependencies.declarations import (
    PluginEvidence,
    declares_dependencies,
    read_plugin_evidence,
)
from detlint.readers.dependencies.listing import dependency_files
from detlint.readers.dependencies.text_files import normalize_name

Row = tuple[str, str, str, tuple[int, int, int, int]]


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def read(root: Path) -> PluginEvidence:
    files = sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)
    found = read_plugin_evidence(root, files, root)
    assert_spans_cover_names(root, found)
    return found


def table(found: PluginEvidence) -> list[Row]:
    """(plugin, specifier, source, (line, column, end_line, end_column)) in span order."""
    return [
        (
            r.plugin,
            r.specifier,
            r.source,
            (r.span.line, r.span.column, r.span.end_line, r.span.end_column),
        )
        for r in found.requirements
    ]


def assert_spans_cover_names(root: Path, found: PluginEvidence) -> None:
    """Every span starts with the plugin's name (after a conda channel) and holds its specifier."""
    for requirement in found.requirements:
        span = requirement.span
        assert span.line == span.end_line, requirement
        line = (root / span.path).read_text(encoding="utf-8").split("\n")[span.line - 1]
        text = line[span.column - 1 : span.end_column - 1]
        name = text.rsplit("::", 1)[-1]
        for stop in ("[", ";", "=", "<", ">", "~", "!", " "):
            name = name.split(stop)[0]
        assert normalize_name(name) == requirement.plugin, (requirement, text)
        if text != name and not requirement.locked:  # a whole spec, not a key or a lock entry
            assert requirement.specifier in text, (requirement, text)


# --- pixi manifests ---------------------------------------------------------------------------

PIXI_TOML = """\
[workspace]
name = "demo"
channels = ["conda-forge"]
platforms = ["linux-64", "win-64"]

[dependencies]
python = ">=3.11"
pytest-rerunfailures = ">=14,<16"

[pypi-dependencies]
Pytest_Retry = { version = "==1.7.0", extras = ["x"] }

[feature.test.dependencies]
# flaky = "*" was tried here
flaky = "*"

[feature.test.tasks]
pytest-retry = "pytest -p pytest_retry"

[feature.ci.target.win-64.dependencies]
pytest-rerunfailures = { version = "15.0.*", channel = "conda-forge" }

[target.linux-64.pypi-dependencies]
"pytest-retry" = "*"
"""


def test_every_pixi_dependency_table_is_read(tmp_path: Path) -> None:
    found = read(write(tmp_path, {"pixi.toml": PIXI_TOML}))
    assert table(found) == [
        ("pytest-rerunfailures", ">=14,<16", "pixi.toml [dependencies]", (8, 1, 8, 21)),
        # The key as written; the version of a table value.
        ("pytest-retry", "==1.7.0", "pixi.toml [pypi-dependencies]", (11, 1, 11, 13)),
        # Not the comment of line 14; "*" is any version.
        ("flaky", "", "pixi.toml [feature.test.dependencies]", (15, 1, 15, 6)),
        # Not the task named pytest-retry on line 18.
        (
            "pytest-rerunfailures",
            "15.0.*",
            "pixi.toml [feature.ci.target.win-64.dependencies]",
            (21, 1, 21, 21),
        ),
        # A quoted key: the span is its text, without the quotes.
        ("pytest-retry", "", "pixi.toml [target.linux-64.pypi-dependencies]", (24, 2, 24, 14)),
    ]
    assert found.problems == ()


def test_pixi_tables_of_pyproject(tmp_path: Path) -> None:
    pyproject = """\
[project]
name = "demo"
dependencies = ["pytest"]

[tool.pixi.workspace]
channels = ["conda-forge"]

[tool.pixi.feature.test.dependencies]
pytest-rerunfailures = "14.0.*"

[tool.pixi.pypi-dependencies]
flaky = ">=3.8"
"""
    found = read(write(tmp_path, {"pyproject.toml": pyproject}))
    assert table(found) == [
        (
            "pytest-rerunfailures",
            "14.0.*",
            "pyproject.toml [tool.pixi.feature.test.dependencies]",
            (9, 1, 9, 21),
        ),
        ("flaky", ">=3.8", "pyproject.toml [tool.pixi.pypi-dependencies]", (12, 1, 12, 6)),
    ]
    # A bare version is separated from the name: "pytest-rerunfailures 14.0.*", as conda writes.
    assert found.describe() == (
        "several rerun plugins declared, they fight over the flaky marker: "
        "pytest-rerunfailures 14.0.* in pyproject.toml:9; flaky>=3.8 in pyproject.toml:12"
    )


def test_a_broken_pixi_toml_is_a_problem(tmp_path: Path) -> None:
    found = read(write(tmp_path, {"pixi.toml": '[dependencies]\nflaky = "*\n'}))
    assert found.requirements == ()
    (problem,) = found.problems
    assert problem.span == Span.file("pixi.toml")
    assert problem.message.startswith("invalid TOML: ")


# --- conda environment files ------------------------------------------------------------------

ENVIRONMENT = """\
name: demo-tests
channels:
  - conda-forge
dependencies:
  - python=3.11
  - pytest-rerunfailures>=10  # the conda package
  - conda-forge::flaky=3.8
  - pytest-retry 1.6.*
  - "Pytest_RerunFailures==14.0"
  # - flaky
  - pip
  - pip:
      - -r requirements-extra.txt
      - flaky[tests]>=3.7; python_version < "3.13"
      - git+https://github.com/str0zzapreti/pytest-retry
variables:
  flaky: "1"
"""
PIP_FLAKY = 'flaky[tests]>=3.7; python_version < "3.13"'


def test_conda_specs_and_pip_requirements_of_an_environment(tmp_path: Path) -> None:
    found = read(write(tmp_path, {"environment.yml": ENVIRONMENT}))
    assert table(found) == [
        # The spec without the trailing comment.
        ("pytest-rerunfailures", ">=10", "environment.yml dependencies", (6, 5, 6, 29)),
        # A channel prefix is part of the spec, not of the name; "=3.8" is conda's 3.8.*.
        ("flaky", "=3.8", "environment.yml dependencies", (7, 5, 7, 27)),
        # conda's "name version" form.
        ("pytest-retry", "1.6.*", "environment.yml dependencies", (8, 5, 8, 23)),
        # Quoted: the span is the text inside the quotes.
        ("pytest-rerunfailures", "==14.0", "environment.yml dependencies", (9, 6, 9, 32)),
        # The pip list: -r lines and URLs are not requirements of a named plugin; the
        # variables of line 17 are not dependencies.
        (
            "flaky",
            ">=3.7",
            "environment.yml dependencies pip",
            (14, 9, 14, 9 + len(PIP_FLAKY)),
        ),
    ]
    assert found.problems == ()
    assert found.describe().startswith("several rerun plugins declared")


@pytest.mark.parametrize(
    "name",
    [
        "environment.yaml",
        "environment-dev.yml",
        "Environment_Test.YML",
        "tests-environment.yml",
        "env.yml",
        "docs/ci-env.yaml",
        "ci/environment-3.12.yaml",
        "continuous_integration/environment-mindeps.yaml",
        ".github/environment.yml",
        "ci/deps/actions-311.yaml",
        "ci/requirements/min-all-deps.yml",
        "envs/test.yml",
    ],
)
def test_environment_files_are_found_by_name_and_folder(tmp_path: Path, name: str) -> None:
    found = read(write(tmp_path, {name: "dependencies:\n  - flaky\n"}))
    assert table(found) == [("flaky", "", f"{name} dependencies", (2, 5, 2, 10))]
    assert declares_dependencies(tmp_path, [tmp_path / name])


@pytest.mark.parametrize(
    "name",
    ["docs/conf.yml", "flaky.yml", ".github/workflows/tests.yml", "mkdocs.yaml", "envoy.yml"],
)
def test_other_yaml_files_are_not_environments(tmp_path: Path, name: str) -> None:
    found = read(write(tmp_path, {name: "dependencies:\n  - flaky\n"}))
    assert found == PluginEvidence((), ())
    assert not declares_dependencies(tmp_path, [tmp_path / name])


WORKFLOW = """\
name: environment
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    dependencies:
      - pytest-rerunfailures
    steps:
      - run: pip install flaky
"""


def test_a_workflow_with_a_dependencies_key_is_not_an_environment(tmp_path: Path) -> None:
    # Named like an environment and in a ci/ folder, but its dependencies: is nested in a job.
    files = {"ci/test-environment.yml": WORKFLOW, "environment.yaml": "name: x\nchannels: []\n"}
    write(tmp_path, files)
    assert read(tmp_path) == PluginEvidence((), ())
    listed = [tmp_path / name for name in files]
    assert not declares_dependencies(tmp_path, listed)


def test_an_environment_without_the_plugin_still_declares_dependencies(tmp_path: Path) -> None:
    write(tmp_path, {"environment.yml": "dependencies:\n  - pytest\n"})
    assert read(tmp_path) == PluginEvidence((), ())
    assert declares_dependencies(tmp_path, [tmp_path / "environment.yml"])


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        # An unclosed flow sequence is reported where it opens.
        (
            "name: x\ndependencies:\n  - pytest-rerunfailures\n  - numpy: [oops\n",
            4,
            12,
            "invalid YAML: expected ',' or ']', but got '<stream end>'"
            " (while parsing a flow sequence)",
        ),
        (
            "dependencies:\n\t- flaky\n",
            2,
            1,
            "invalid YAML: a tab character where YAML allows only spaces (indent with spaces)",
        ),
        ("dependencies: &a\n  - flaky\n  - *b\n", 3, 5, "invalid YAML: alias *b is undefined"),
    ],
)
def test_a_broken_environment_is_a_problem_and_the_rest_is_read(
    tmp_path: Path, text: str, line: int, column: int, message: str
) -> None:
    write(tmp_path, {"environment.yml": text, "requirements.txt": "pytest-retry\n"})
    found = read(tmp_path)
    assert table(found) == [("pytest-retry", "", "requirements.txt", (1, 1, 1, 13))]
    assert found.problems == (
        Problem(Span("environment.yml", line, column, line, column), message),
    )


def test_a_broken_yaml_file_that_is_not_an_environment_is_no_problem(tmp_path: Path) -> None:
    # No top-level dependencies: it is not an environment, whatever else is wrong with it.
    write(tmp_path, {"ci/flaky-jobs.yml": "jobs:\n  flaky: [oops\n"})
    assert read(tmp_path) == PluginEvidence((), ())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("flaky", ("flaky", "")),
        ("flaky *", ("flaky", "")),
        ("pytest-rerunfailures>=10", ("pytest-rerunfailures", ">=10")),
        ("pytest-rerunfailures=14.0", ("pytest-rerunfailures", "=14.0")),
        ("pytest-rerunfailures=14.0=pyhd8ed1ab_0", ("pytest-rerunfailures", "=14.0=pyhd8ed1ab_0")),
        ("pytest_rerunfailures 1.2.*", ("pytest-rerunfailures", "1.2.*")),
        ("conda-forge/noarch::Flaky >=3.8,<4", ("flaky", ">=3.8,<4")),
        ("pytest-retry[version='>=1.6']", ("pytest-retry", ">=1.6")),
        ("flaky tests", None),
        ("", None),
    ],
)
def test_parse_match_spec(text: str, expected: tuple[str, str] | None) -> None:
    assert parse_match_spec(text) == expected


# --- lock files -------------------------------------------------------------------------------

CONDA = "https://conda.anaconda.org/conda-forge/noarch/"
PIXI_LOCK_V6 = f"""\
version: 6
environments:
  default:
    packages:
      linux-64:
      - conda: {CONDA}pytest-rerunfailures-15.0-pyhd8ed1ab_1.conda
      - pypi: https://files.pythonhosted.org/packages/aa/flaky-3.8.1-py2.py3-none-any.whl
packages:
- conda: {CONDA}pytest-8.3.2-pyhd8ed1ab_0.conda
  sha256: 00
  depends:
  - pytest-rerunfailures >=10
- conda: {CONDA}pytest-rerunfailures-15.0-pyhd8ed1ab_1.conda
  sha256: 11
  depends:
  - pytest >=7
- pypi: https://files.pythonhosted.org/packages/aa/flaky-3.8.1-py2.py3-none-any.whl
  name: flaky
  version: 3.8.1
  requires_dist:
  - pytest-retry ; extra == 'retry'
"""
URL_NAME = len("- conda: ") + len(CONDA) + 1  # where the archive's name starts in the URL


def test_pixi_lock_entries_by_url_and_by_name(tmp_path: Path) -> None:
    found = read(write(tmp_path, {"pixi.lock": PIXI_LOCK_V6}))
    # Lines 6 and 7 list the environment's packages, lines 12 and 21 dependencies: only the
    # packages' own entries count.
    name = len("pytest-rerunfailures")
    assert table(found) == [
        ("pytest-rerunfailures", "==15.0", "pixi.lock", (13, URL_NAME, 13, URL_NAME + name)),
        ("flaky", "==3.8.1", "pixi.lock", (18, 9, 18, 14)),
    ]
    assert all(r.locked for r in found.requirements)


def test_pixi_lock_before_format_6(tmp_path: Path) -> None:
    lock = f"""\
version: 5
environments:
  default:
    packages:
      linux-64:
      - conda: {CONDA}pytest-retry-1.6.3-pyhd8ed1ab_0.conda
packages:
- kind: conda
  name: pytest-retry
  version: 1.6.3
  build: pyhd8ed1ab_0
  url: {CONDA}pytest-retry-1.6.3-pyhd8ed1ab_0.conda
- kind: pypi
  name: Pytest_RerunFailures
  version: '14.0'
"""
    assert table(read(write(tmp_path, {"pixi.lock": lock}))) == [
        ("pytest-retry", "==1.6.3", "pixi.lock", (9, 9, 9, 21)),
        ("pytest-rerunfailures", "==14.0", "pixi.lock", (14, 9, 14, 29)),
    ]


CONDA_LOCK = f"""\
version: 1
metadata:
  platforms:
  - linux-64
  - osx-arm64
  sources:
  - environment.yml
package:
- name: pytest
  version: 8.3.2
  manager: conda
  platform: linux-64
  dependencies:
    pytest-rerunfailures: '>=10'
  url: {CONDA}pytest-8.3.2-pyhd8ed1ab_0.conda
- name: pytest-rerunfailures
  version: '14.0'
  manager: conda
  platform: linux-64
  url: {CONDA}pytest-rerunfailures-14.0-pyhd8ed1ab_0.conda
- name: pytest-rerunfailures
  version: '14.0'
  manager: conda
  platform: osx-arm64
"""


def test_conda_lock_entries_one_per_platform(tmp_path: Path) -> None:
    found = read(write(tmp_path, {"conda-lock.yml": CONDA_LOCK}))
    assert table(found) == [
        ("pytest-rerunfailures", "==14.0", "conda-lock.yml", (16, 9, 16, 29)),
        ("pytest-rerunfailures", "==14.0", "conda-lock.yml", (21, 9, 21, 29)),
    ]


def test_crlf_files_and_indented_lock_entries_keep_exact_columns(tmp_path: Path) -> None:
    (tmp_path / "environment.yml").write_bytes(
        b'dependencies:\r\n  - python\r\n  - "flaky>=3"\r\n  - pip:\r\n    - pytest-retry\r\n'
    )
    # conda-lock entries indented under package:, and a deeper "name:" that is not an entry's.
    (tmp_path / "conda-lock.yml").write_bytes(
        b"version: 1\r\npackage:\r\n  - name: flaky\r\n    version: 3.8.1\r\n"
        b"    dependencies:\r\n      name: pytest-retry\r\n"
    )
    assert table(read(tmp_path)) == [
        ("flaky", "==3.8.1", "conda-lock.yml", (3, 11, 3, 16)),
        ("flaky", ">=3", "environment.yml dependencies", (3, 6, 3, 14)),
        ("pytest-retry", "", "environment.yml dependencies pip", (5, 7, 5, 19)),
    ]


def test_a_large_pixi_lock_is_still_scanned(tmp_path: Path) -> None:
    # Multi-platform pixi.lock files outgrow the limit of parsed files; they are only scanned.
    filler = f"- conda: {CONDA}numpy-2.0.0-py312_0.conda\n  sha256: 00\n"
    entry = f"- conda: {CONDA}flaky-3.8.1-pyhd8ed1ab_0.conda\n"
    lock = "version: 6\npackages:\n" + filler * (MAX_BYTES // len(filler) + 1) + entry
    found = read(write(tmp_path, {"pixi.lock": lock}))
    assert found.problems == ()
    assert [(r.plugin, r.specifier) for r in found.requirements] == [("flaky", "==3.8.1")]


# --- how the evidence is used -----------------------------------------------------------------


def test_findings_cite_the_manifest_before_the_lock_file(tmp_path: Path) -> None:
    # pixi.lock sorts before pixi.toml, but the line to edit is the declaration.
    write(tmp_path, {"pixi.lock": PIXI_LOCK_V6, "pixi.toml": PIXI_TOML})
    found = read(tmp_path)
    assert [r.span.path for r in found.requirements][:2] == ["pixi.lock", "pixi.lock"]
    cited = found.evidence_for("pytest_rerunfailures")
    assert [(r.span.path, r.span.line, r.locked) for r in cited] == [
        ("pixi.toml", 8, False),
        ("pixi.toml", 21, False),
        ("pixi.lock", 13, True),
    ]
    assert found.describe().startswith(
        "several rerun plugins declared, they fight over the flaky marker: "
        "pytest-rerunfailures>=14,<16 in pixi.toml:8 (and 2 more); flaky in pixi.toml:15"
    )


@pytest.mark.parametrize(
    ("files", "declared"),
    [
        ({"pixi.toml": "[workspace]\nname = 'x'\n"}, True),
        ({"pixi.lock": "version: 6\npackages: []\n"}, True),
        ({"conda-lock.yml": "version: 1\npackage: []\n"}, True),
        ({"ci/deps/actions-311.yaml": "name: x\ndependencies:\n  - numpy\n"}, True),
        ({"ci/azure.yml": "jobs:\n- job: test\n"}, False),
        ({"README.md": "dependencies:\n"}, False),
    ],
)
def test_conda_files_count_as_declared_dependencies(
    tmp_path: Path, files: dict[str, str], declared: bool
) -> None:
    write(tmp_path, files)
    assert declares_dependencies(tmp_path, [tmp_path / name for name in files]) is declared


def test_git_lists_the_conda_files(tmp_path: Path) -> None:
    names = [
        "pixi.toml",
        "pixi.lock",
        "sub/conda-lock.yml",
        "Environment-Dev.YAML",
        "CI/deps/actions-311.yaml",
        "continuous_integration/env-3.12.yml",
        ".github/workflows/tests.yml",
        "docs/conf.yml",
    ]
    write(tmp_path, dict.fromkeys(names, "dependencies:\n"))
    subprocess.run(["git", "init", "--quiet", str(tmp_path)], check=True)

    def never() -> list[str]:
        raise AssertionError("git answers; the whole repository is never listed")

    listed = sorted(p.relative_to(tmp_path).as_posix() for p in dependency_files(tmp_path, never))
    assert listed == sorted(names[:6])


MARKED = "import pytest\n\n\n@pytest.mark.flaky(reruns=2)\ndef test_x():\n    pass\n"


def test_check_cites_pixi_toml_and_reports_no_missing_plugin(tmp_path: Path) -> None:
    manifest = (
        '[workspace]\nname = "x"\n\n[feature.test.dependencies]\npytest-rerunfailures = "*"\n'
    )
    write(tmp_path, {"tests/test_a.py": MARKED, "pixi.toml": manifest})
    subprocess.run(["git", "init", "--quiet", str(tmp_path)], check=True)
    _, document = run_check(tmp_path)
    codes = [(f["path"], f["code"]) for f in document["findings"]]
    assert codes == [("tests/test_a.py", "DET101")]
    assert "pytest-rerunfailures from pixi.toml:5" in document["findings"][0]["message"]


def test_check_reports_a_broken_environment_once_and_draws_no_conclusion(tmp_path: Path) -> None:
    environment = "dependencies:\n  - pytest-rerunfailures\n  - [oops\n"
    write(tmp_path, {"tests/test_a.py": MARKED, "environment.yml": environment})
    subprocess.run(["git", "init", "--quiet", str(tmp_path)], check=True)
    _, document = run_check(tmp_path)
    codes = [(f["path"], f["line"], f["code"]) for f in document["findings"]]
    assert codes == [("environment.yml", 3, "DET901"), ("tests/test_a.py", 4, "DET101")]
