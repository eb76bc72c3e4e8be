"""Requirement files a project installs with ``pip install -r`` are dependency files, whatever
their names: the shapes pipelines, Dockerfiles, scripts, Makefiles, tox.ini and requirement
includes name them in, and the ones that install nothing (a comment, a file nobody installs).

Each case is a small git repository written into tmp_path; the listing is what
``detlint check`` reads, and the end-to-end cases assert the printed findings.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from repo_expectations import run_check

from detlint.readers.dependencies.listing import dependency_listing

PLUGINS = "pytest==8.3.3\npytest-rerunfailures==10.2\nflaky==3.7.0\n"
BARE_TEST = "import pytest\n\n\n@pytest.mark.flaky\ndef test_x():\n    assert True\n"


def repository(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    subprocess.run(["git", "init", "--quiet", str(root)], check=True)
    return root


def installed(root: Path) -> list[str]:
    def never() -> list[str]:
        raise AssertionError("git answers; the whole repository is never listed")

    listing = dependency_listing(root, never)
    assert listing.installed <= set(listing.paths)
    return sorted(path.relative_to(root).as_posix() for path in listing.installed)


def find(document: dict, path: str, line: int, code: str) -> list[dict]:
    return [
        f
        for f in document["findings"]
        if f["path"] == path and f["line"] == line and f["code"] == code
    ]


MXNET_DOCKERFILE = (
    "FROM ubuntu:20.04\n"
    "WORKDIR /work/deps\n"
    "# Python & cmake\n"
    "COPY install/requirements /work/\n"
    "RUN python3 -m pip install --upgrade pip && \\\n"
    "    python3 -m pip install cmake==3.16.6 && \\\n"
    "    python3 -m pip install -r /work/requirements\n"
)


def test_a_bare_marker_with_both_plugins_in_a_dockerfile_installed_file(tmp_path: Path) -> None:
    """mxnet: both plugins are declared only in ``ci/docker/install/requirements``, which a
    Dockerfile copies and installs. A bare marker runs twice whichever plugin takes it (1
    rerun under pytest-rerunfailures, max_runs=2 under flaky): no DET102, and DET101 counts
    10% reported as 1%, naming the file."""
    root = repository(
        tmp_path,
        {
            "ci/docker/install/requirements": PLUGINS,
            "ci/docker/Dockerfile.build.ubuntu": MXNET_DOCKERFILE,
            "requirements.txt": "numpy\n",
            "tests/test_x.py": BARE_TEST,
        },
    )
    assert installed(root) == ["ci/docker/install/requirements"]
    _, document = run_check(root)
    assert find(document, "tests/test_x.py", 4, "DET102") == []
    (rerun,) = find(document, "tests/test_x.py", 4, "DET101")
    assert rerun["numbers"]["reported"] == pytest.approx(0.01)
    assert (
        "flaky==3.7.0 from ci/docker/install/requirements:3 and pytest-rerunfailures==10.2 "
        "from ci/docker/install/requirements:2 are both declared: whichever takes it, a bare "
        "marker runs twice" in rerun["message"]
    )


def test_without_the_installing_line_the_marker_has_no_plugin(tmp_path: Path) -> None:
    """The same file, installed by nothing: it is not read, and the marker is inert."""
    root = repository(
        tmp_path,
        {
            "ci/docker/install/requirements": PLUGINS,
            "ci/docker/Dockerfile.build.ubuntu": "FROM ubuntu:20.04\nRUN pip install numpy\n",
            "requirements.txt": "numpy\n",
            "tests/test_x.py": BARE_TEST,
        },
    )
    assert installed(root) == []
    _, document = run_check(root)
    (inert,) = find(document, "tests/test_x.py", 4, "DET102")
    assert inert["message"].startswith("no rerun plugin is declared in this project's")


@pytest.mark.parametrize(
    "ini",
    ["[pytest]\naddopts = --reruns 3\n", "[pytest]\nreruns = 3\n"],
    ids=["addopts", "ini"],
)
def test_both_plugins_still_fight_when_rerunfailures_options_are_set(
    tmp_path: Path, ini: str
) -> None:
    """With a global ``--reruns`` the winner matters (flaky ignores it): still a conflict."""
    root = repository(
        tmp_path,
        {"ci/test-deps": PLUGINS, "Makefile": "deps:\n\tpip install -r ci/test-deps\n"}
        | {"pytest.ini": ini, "tests/test_x.py": BARE_TEST},
    )
    _, document = run_check(root)
    (conflict,) = find(document, "tests/test_x.py", 4, "DET102")
    assert (
        "claim `flaky`: which one reads this marker depends on install order"
        in (conflict["message"])
    )


def test_a_workflow_installs_a_file_without_a_requirements_name(tmp_path: Path) -> None:
    root = repository(
        tmp_path,
        {
            "ci/reqs/test-deps": "pytest\npytest-rerunfailures==14.0\n",
            ".github/workflows/test.yml": (
                "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
                "      - uses: actions/checkout@v4\n"
                "      - run: |\n"
                "          python -m pip install --upgrade pip\n"
                "          pip install -r ci/reqs/test-deps\n"
                "      - run: pytest\n"
            ),
            "tests/test_x.py": BARE_TEST,
        },
    )
    assert installed(root) == ["ci/reqs/test-deps"]
    _, document = run_check(root)
    (rerun,) = find(document, "tests/test_x.py", 4, "DET101")
    assert "pytest-rerunfailures==14.0 from ci/reqs/test-deps:2" in rerun["message"]
    assert rerun["numbers"]["reported"] == pytest.approx(0.01)


ONE, BOTH = ["ci/one"], ["ci/one", "ci/two"]
INSTALLERS = {
    "spelled -rFILE": (".gitlab-ci.yml", "test:\n  script:\n    - pip install -rci/one\n", ONE),
    "--requirement=": (
        ".circleci/config.yml",
        "jobs:\n  t:\n    steps:\n      - run: python3 -m pip install --requirement=ci/one\n",
        ONE,
    ),
    "uv pip, several -r": (
        ".buildkite/pipeline.yml",
        "steps:\n  - command: uv pip install -r ci/one -r ci/two pytest\n",
        BOTH,
    ),
    "-c constraints": (".github/workflows/a.yml", "x:\n  - run: pip install -c ci/one .\n", ONE),
    "pipeline env variable": (
        ".github/workflows/a.yml",
        "env:\n  REQS: ci\njobs:\n  - run: pip install -r $REQS/one -r ${REQS}/two\n",
        BOTH,
    ),
    "shell variable": ("scripts/setup.sh", 'DEPS=ci\npip install -r "$DEPS/one"\n', ONE),
    "continued shell line": (
        "setup.sh",
        "pip install \\\n    --quiet \\\n    -r ci/two\n",
        BOTH[1:],
    ),
    "Makefile beside it": ("ci/Makefile", "VENV := x\ndeps:\n\tpip install -r one\n", ONE),
    "tox commands beside tox.ini": (
        "ci/tox.ini",
        "[testenv]\ncommands =\n    pip install -r two\n    pytest\n",
        BOTH[1:],
    ),
}


@pytest.mark.parametrize(
    ("installer", "text", "expected"), INSTALLERS.values(), ids=INSTALLERS.keys()
)
def test_the_spellings_of_an_install(
    tmp_path: Path, installer: str, text: str, expected: list[str]
) -> None:
    root = repository(tmp_path, {installer: text, "ci/one": "flaky\n", "ci/two": "pytest\n"})
    assert installed(root) == expected


NOT_INSTALLS = {
    "a shell comment": ("setup.sh", "# pip install -r ci/one\necho ok\n"),
    "a comment after a command": ("setup.sh", "pip install numpy  # or -r ci/one\n"),
    "a YAML comment": (".github/workflows/a.yml", "jobs:\n  # - run: pip install -r ci/one\n"),
    "a variable bound at run time": ("setup.sh", 'DEPS=$(pwd)/ci\npip install -r "$DEPS/one"\n'),
    "a variable bound twice": ("setup.sh", "D=ci\nD=x\npip install -r $D/one\n"),
    "not pip": ("setup.sh", "python -c 'print(1)'\ngrep -r ci/one .\n"),
    "a workflow path under its folder": (".github/workflows/a.yml", "- run: pip install -r one\n"),
    "an unmapped absolute path in a Dockerfile": (
        "Dockerfile",
        "FROM python\nRUN pip install -r /ci/one\n",
    ),
    "a path from another stage": (
        "Dockerfile",
        "FROM python AS b\nFROM python\nCOPY --from=b ci/one /one\nRUN pip install -r /one\n",
    ),
}


@pytest.mark.parametrize(("installer", "text"), NOT_INSTALLS.values(), ids=NOT_INSTALLS.keys())
def test_what_installs_nothing(tmp_path: Path, installer: str, text: str) -> None:
    root = repository(tmp_path, {installer: text, "ci/one": "flaky\n"})
    assert installed(root) == []


DOCKERFILES = {
    "WORKDIR and a relative COPY": (
        "docker/Dockerfile",
        "FROM python\nWORKDIR /app\nCOPY ci/one ./deps\nRUN pip install -r deps\n",
    ),
    "a copied folder": (
        "Dockerfile",
        "FROM python\nCOPY ci /opt/ci\nWORKDIR /opt\nRUN pip install -r ci/one\n",
    ),
    "a folder's contents": (
        "ci.Dockerfile",
        "FROM python\nCOPY ci/ /r/\nRUN pip install -r /r/one\n",
    ),
    "beside the Dockerfile": ("ci/Dockerfile.test", "FROM python\nRUN pip install -r one\n"),
    "an ENV variable": (
        "Dockerfile",
        "FROM python\nENV REQ /req\nCOPY ci/one $REQ\nRUN pip install -r ${REQ}\n",
    ),
}


@pytest.mark.parametrize(("dockerfile", "text"), DOCKERFILES.values(), ids=DOCKERFILES.keys())
def test_a_dockerfile_install_maps_back_to_the_build_context(
    tmp_path: Path, dockerfile: str, text: str
) -> None:
    root = repository(tmp_path, {dockerfile: text, "ci/one": "flaky\n"})
    assert installed(root) == ["ci/one"]


def test_includes_are_followed_beside_the_including_file(tmp_path: Path) -> None:
    """requirements.txt -> ci/base-deps -> ci/more/plugins (pip reads an include relative
    to the file that names it); a commented include and a URL are not followed."""
    root = repository(
        tmp_path,
        {
            "requirements.txt": "numpy\n-r ci/base-deps\n# -r ci/commented\n-r https://x/y\n",
            "ci/base-deps": "pytest\n--requirement more/plugins\n",
            "ci/more/plugins": "pytest-rerunfailures==14.0\n",
            "ci/commented": "flaky\n",
            "tests/test_x.py": BARE_TEST,
        },
    )
    assert installed(root) == ["ci/base-deps", "ci/more/plugins"]
    _, document = run_check(root)
    (rerun,) = find(document, "tests/test_x.py", 4, "DET101")
    assert "pytest-rerunfailures==14.0 from ci/more/plugins:1" in rerun["message"]


def test_tox_deps_name_a_file(tmp_path: Path) -> None:
    root = repository(
        tmp_path,
        {
            "tox.ini": "[testenv]\ndeps =\n    -r{toxinidir}/ci/tox-deps\n    py311: -cci/pins\n"
            "commands = pytest\n",
            "ci/tox-deps": "flaky==3.8.1\n",
            "ci/pins": "flaky<4\n",
        },
    )
    assert installed(root) == ["ci/pins", "ci/tox-deps"]
