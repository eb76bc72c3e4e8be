"""Reading pytest invocations, exports and exit-status masking out of CI shell text."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from detlint.readers.ci.pytest.arguments import read_pytest_args, recognise_launcher
from detlint.readers.ci.shell.commands import CommandFacts, Export, Place, PytestRun, read_command


def only_run(text: str, **options: bool) -> PytestRun:
    facts = read_command(text, **options)
    assert len(facts.runs) == 1, facts.runs
    return facts.runs[0]


# ----------------------------------------------------------------- recognition

LAUNCHERS = [
    ("pytest", "pytest"),
    ("docker run image pytest", "pytest"),
    ("docker run --rm -v $PWD:/src -w /src img python -m pytest tests", "python -m pytest"),
    ("docker compose -f ci/dc.yml run --rm app pytest -x", "pytest"),
    ("docker-compose run -e CI=1 app python -m pytest", "python -m pytest"),
    ("podman exec box pytest", "pytest"),
    ("py.test tests", "py.test"),
    ("pytest-3 -x", "pytest-3"),
    ("./.venv/bin/pytest tests", "pytest"),
    ("python -m pytest", "python -m pytest"),
    ("python3 -m pytest", "python3 -m pytest"),
    ("python3.11 -m pytest -x", "python3.11 -m pytest"),
    ("/opt/venv/bin/python -u -W error -m pytest", "python -m pytest"),
    ("python -mpytest", "python -m pytest"),
    ("$PYTHON -m pytest", "$PYTHON -m pytest"),
    ("py -3.11 -m pytest", "py -m pytest"),
    ("python .venv/bin/pytest", "python pytest"),
    ("uv run pytest", "uv run pytest"),
    ("uv run --frozen --with pytest-rerunfailures pytest", "uv run pytest"),
    ("uv run python -m pytest", "uv run python -m pytest"),
    ("uv run -m pytest", "uv run -m pytest"),
    ("uv tool run pytest", "uv tool run pytest"),
    ("uvx --with pytest-cov pytest", "uvx pytest"),
    ("poetry run pytest", "poetry run pytest"),
    ("poetry -C pkg run pytest", "poetry run pytest"),
    ("pipenv run pytest", "pipenv run pytest"),
    ("pdm run pytest", "pdm run pytest"),
    ("hatch run pytest", "hatch run pytest"),
    ("hatch run test:pytest -x", "hatch run test:pytest"),
    ("hatch -e test run python -m pytest", "hatch run python -m pytest"),
    ("hatch test", "hatch test"),
    ("conda run -n env pytest", "conda run pytest"),
    ("coverage run -m pytest", "coverage run -m pytest"),
    ("coverage run --source src --branch -m pytest", "coverage run -m pytest"),
    ("python -m coverage run -m pytest", "python -m coverage run -m pytest"),
    ("uv run coverage run -m pytest", "uv run coverage run -m pytest"),
    ("tox", "tox"),
    ("tox -e py311", "tox -e py311"),
    ("tox -epy311", "tox -e py311"),
    ("tox run -e py311 -- --reruns 2", "tox run -e py311"),
    ("python -m tox -e lint", "python -m tox -e lint"),
    ("tox exec -e py311 -- pytest -x", "tox exec -e py311 pytest"),
    ("xvfb-run pytest", "pytest"),
    ("xvfb-run -a -s '-screen 0 1024x768x24' pytest", "pytest"),
    ("timeout 600 pytest", "pytest"),
    ("timeout -s KILL --preserve-status 10m python -m pytest", "python -m pytest"),
    ("FOO=1 pytest", "pytest"),
    ("env FOO=1 pytest", "pytest"),
    ("env -i PATH=/bin pytest", "pytest"),
    ("exec pytest", "pytest"),
    ("sudo -E pytest", "pytest"),
    ("sudo -u ci -E pytest", "pytest"),
    ('run-as "$(id -u test)":test /app/bin/pytest -n logical', "pytest"),  # onegov
    ("gosu app python -m pytest", "python -m pytest"),
    ('pypy pytest.py pypy/objspace -v -m "not flaky"', "pypy pytest.py"),  # a vendored launcher
    ("python3 ./pytest.py tests", "python3 pytest.py"),
    ("su-exec app:app pytest", "pytest"),
    ("runuser -u app -- pytest", "pytest"),
    ("setpriv --reuid=1000 --regid=1000 --init-groups pytest", "pytest"),
    ("chpst -u app pytest", "pytest"),
    ("chroot --userspec=app /srv/root pytest", "pytest"),
    ("nice -n 10 stdbuf -oL pytest", "pytest"),
    ("command pytest", "pytest"),
    ("pytest --version", "pytest"),  # every invocation counts, whatever it asks
]


@pytest.mark.parametrize(("command", "launcher"), LAUNCHERS)
def test_launchers_that_run_pytest(command: str, launcher: str) -> None:
    assert only_run(command).launcher == launcher


NOT_PYTEST = [
    "pip install pytest",
    "pip install pytest pytest-xdist pytest-rerunfailures",
    "echo pytest",
    'echo "pytest --reruns 3"',
    "grep -r pytest .",
    "pytest-xdist",
    "which pytest",
    "command -v pytest",
    "type pytest",
    "python -c 'import pytest'",
    "python setup.py test",
    "python -m pip install pytest",
    "nox -s tests",
    "make test",
    "docker run image",
    "docker compose run tests",
    "hatch run test",
    "hatch env create",
    "uv sync --extra pytest",
    "coverage report",
    "coverage run -m unittest",
    "# pytest --reruns 3",
    "cat <<EOF\npytest --reruns 9\nEOF",
    "echo 'a' # pytest",
    "git log --grep=pytest",
    "PYTEST_ADDOPTS=--reruns=2",
]


@pytest.mark.parametrize("command", NOT_PYTEST)
def test_commands_that_do_not_run_pytest(command: str) -> None:
    assert read_command(command).runs == ()


def test_every_invocation_of_a_text_is_found_in_order() -> None:
    text = "pip install -e .\npytest tests/unit\ncd e2e && python -m pytest -x; tox -e lint"
    runs = read_command(text).runs
    assert [run.launcher for run in runs] == ["pytest", "python -m pytest", "tox -e lint"]
    assert [(run.line, run.column) for run in runs] == [(1, 0), (2, 10), (2, 31)]


# ------------------------------------------------------------------ arguments

ARGUMENTS: list[tuple[str, dict[str, Any]]] = [
    ("pytest tests/unit", {"targets": ("tests/unit",)}),
    (
        "pytest tests/test_x.py::test_a 'tests/t.py::test[a b]'",
        {
            "targets": ("tests/test_x.py::test_a", "tests/t.py::test[a b]"),
        },
    ),
    (
        "pytest -k 'slow and not gpu' -m integration",
        {
            "keyword": "slow and not gpu",
            "markexpr": "integration",
        },
    ),
    ("pytest -kfoo -mbar", {"keyword": "foo", "markexpr": "bar", "targets": ()}),
    ("pytest -xk foo tests", {"keyword": "foo", "targets": ("tests",)}),
    ("pytest -k=foo", {"keyword": "foo"}),
    ("pytest --reruns 3", {"reruns": 3, "reruns_text": "--reruns 3", "reruns_dynamic": False}),
    ("pytest --reruns=3", {"reruns": 3, "reruns_text": "--reruns=3"}),
    ('pytest --reruns "3"', {"reruns": 3, "reruns_text": '--reruns "3"'}),
    ("pytest --reruns 1 --reruns 4", {"reruns": 4, "reruns_text": "--reruns 4"}),
    ("pytest --reruns $N", {"reruns": None, "reruns_text": "--reruns $N", "reruns_dynamic": True}),
    ("pytest --reruns=${RERUNS:-2}", {"reruns": None, "reruns_dynamic": True}),
    ("pytest --reruns ${{ inputs.reruns }}", {"reruns": None, "reruns_dynamic": True}),
    ("N=2\npytest --reruns $N", {"reruns": 2, "reruns_dynamic": False}),
    ('export N=2\npytest --reruns "${N}"', {"reruns": 2, "reruns_text": '--reruns "${N}"'}),
    (
        "pytest --reruns-delay 5 tests",
        {
            "reruns": None,
            "reruns_delay": True,
            "targets": ("tests",),
        },
    ),
    ("pytest --reruns 2 --reruns-delay=1", {"reruns": 2, "reruns_delay": True}),
    ("pytest --rerun 3 tests", {"reruns": None}),  # pytest allows no abbreviations
    (
        "pytest --only-rerun ConnectionError --only-rerun=Timeout",
        {
            "only_rerun": ("ConnectionError", "Timeout"),
        },
    ),
    ("pytest --rerun-except AssertionError", {"rerun_except": ("AssertionError",)}),
    (
        "pytest --force-reruns 2 --reruns-mode append --max-suite-reruns 5 --fail-on-flaky",
        {
            "force_reruns": 2,
            "reruns_mode": "append",
            "max_suite_reruns": 5,
            "fail_on_flaky": True,
        },
    ),
    (
        "pytest --rerun-exclude-path tests/slow --rerun-exclude-path=tests/net --ignore-flaky t",
        {
            "rerun_exclude_path": ("tests/slow", "tests/net"),
            "ignore_flaky": True,
            "targets": ("t",),
        },
    ),
    ("pytest --retries 2 --retry-delay 1", {"retries": 2, "reruns": None, "targets": ()}),
    (
        "pytest --force-flaky --max-runs 3 --min-passes=2",
        {
            "force_flaky": True,
            "max_runs": 3,
            "min_passes": 2,
        },
    ),
    ("pytest --max-runs 3", {"force_flaky": False, "max_runs": 3}),
    ("pytest --count 10 tests", {"count": 10, "targets": ("tests",)}),
    ("pytest --flake-finder", {"flake_runs": 50}),
    ("pytest --flake-finder --flake-runs=20", {"flake_runs": 20}),
    (
        "pytest -p no:rerunfailures -pno:flaky -p xdist",
        {
            "disabled_plugins": ("rerunfailures", "flaky"),
            "plugins": ("xdist",),
        },
    ),
    ("pytest -c ci/pytest.ini --rootdir=.", {"config_file": "ci/pytest.ini", "rootdir": "."}),
    ("pytest --config-file ci.ini", {"config_file": "ci.ini"}),
    # Value-taking options do not leave their values among the targets.
    (
        "pytest -n 4 --maxfail 3 --junitxml out.xml --deselect t.py::a tests",
        {
            "targets": ("tests",),
        },
    ),
    (
        "pytest --ignore vendor -o addopts= -W error --durations 10 --timeout 60 tests",
        {
            "targets": ("tests",),
        },
    ),
    ("pytest -r fE --tb short --dist loadscope tests", {"targets": ("tests",)}),
    ("pytest -n auto -ra tests", {"targets": ("tests",)}),
    # pytest-cov's --cov takes an optional value: a following word is its source.
    ("pytest --cov src tests/", {"targets": ("tests/",)}),
    ("pytest --cov=src tests/", {"targets": ("tests/",)}),
    ("pytest --cov --reruns 2 tests", {"targets": ("tests",), "reruns": 2}),
    ("pytest --cov-report term-missing tests", {"targets": ("tests",)}),
    # An unknown option is read as a flag, so the next word stays a target.
    ("pytest --some-plugin-flag tests", {"targets": ("tests",)}),
    ("pytest --some-plugin-option=value tests", {"targets": ("tests",)}),
    ("pytest -- -weird-name.py", {"targets": ("-weird-name.py",)}),
    ("pytest tests 2>&1 | tee log", {"targets": ("tests",)}),
    ("pytest tests > out.txt", {"targets": ("tests",)}),
    # Launchers hand their own words to pytest (or not).
    (
        "tox -e py311 -- --reruns 2 tests/unit",
        {
            "tox_env": "py311",
            "reruns": 2,
            "targets": ("tests/unit",),
        },
    ),
    ("tox -e py311 --reruns 2", {"reruns": None, "tox_env": "py311"}),
    ("TOXENV=py39 tox", {"tox_env": "py39"}),
    (
        "hatch test --retries 2 -k foo tests",
        {
            "reruns": 2,
            "reruns_text": "--retries 2",
            "keyword": "foo",
            "targets": ("tests",),
        },
    ),
    ("hatch test --retries=3 --retry-delay 1 -p", {"reruns": 3, "reruns_delay": True}),
    ("hatch test -x py=3.9 -- -x tests", {"targets": ("tests",)}),
    ("uv run --with pytest-rerunfailures pytest --reruns 2", {"reruns": 2, "targets": ()}),
    ("python -W error -m pytest -q tests", {"targets": ("tests",)}),
    ("coverage run --source src -m pytest tests", {"targets": ("tests",)}),
    # Environment and wrappers.
    ("FOO=1 BAR='a b' pytest", {"env": (("FOO", "1"), ("BAR", "a b"))}),
    ("A=1 env -u X B=2 pytest", {"env": (("A", "1"), ("B", "2"))}),
    ("timeout 600 xvfb-run -a pytest", {"wrappers": ("timeout 600", "xvfb-run -a")}),
]


@pytest.mark.parametrize(("command", "expected"), ARGUMENTS)
def test_arguments(command: str, expected: dict[str, Any]) -> None:
    run = only_run(command)
    actual = {name: getattr(run, name) for name in expected}
    assert actual == expected


def test_reruns_position_points_at_the_option() -> None:
    run = only_run("cd x && pytest tests \\\n    --reruns 3 -x")
    assert run.reruns_at == Place(1, 4, 1, 14)
    assert (run.line, run.column, run.end_line, run.end_column) == (0, 8, 1, 17)


def test_options_keep_every_option_with_canonical_names() -> None:
    run = only_run("pytest --exitfirst --config-file=a.ini -n 2")
    assert [(o.name, o.value) for o in run.options] == [("-x", None), ("-c", "a.ini"), ("-n", "2")]


# --------------------------------------------------------------------- masking

MASKING: list[tuple[str, dict[str, bool], str | None]] = [
    ("pytest", {}, None),
    ("pytest || true", {}, "`|| true`"),
    ("pytest || :", {}, "`|| :`"),
    ("python -m pytest tests || true", {}, "`|| true`"),
    ("pytest || echo failed", {}, "`|| echo ...`"),
    ("pytest || exit 0", {}, "`|| exit 0`"),
    ("pytest || exit 1", {}, None),
    ("pytest || exit $?", {}, None),
    ("pytest || (echo x; exit 1)", {}, None),
    ("pytest || { echo failed; exit 1; }", {}, None),
    ("pytest && echo ok", {}, None),
    ("pytest && echo ok\necho done", {}, "`&& echo ...`"),
    ("pytest | tee log.txt", {}, "`| tee` without pipefail"),
    ("pytest 2>&1 | tee log.txt", {}, "`| tee` without pipefail"),
    ("pytest |& tee log.txt", {}, "`| tee` without pipefail"),
    ("pytest | tee log.txt", {"pipefail": True}, None),
    ("set -o pipefail\npytest | tee log.txt", {}, None),
    ("set -eo pipefail\npytest | tee log.txt", {}, None),
    ("set -euxo pipefail\npytest | tee log.txt", {}, None),
    ("set -o pipefail\nset +o pipefail\npytest | tee log.txt", {}, "`| tee` without pipefail"),
    ("pytest | tee log.txt || true", {"pipefail": True}, "`|| true`"),
    ("{ pytest; echo; } | tee log.txt", {}, "`| tee` without pipefail"),
    ("pytest; true", {}, None),
    ("pytest; true", {"errexit": False}, "`; true` without errexit"),
    ("pytest", {"errexit": False}, None),
    ("pytest\nexit 0", {}, None),
    ("set +e\npytest\necho done", {}, "`set +e`"),
    ("set +e\npytest\nexit 0", {}, "`set +e`"),
    ("set +e\npytest", {}, None),
    ("set +e\npytest\nset -e\necho done", {}, "`set +e`"),
    ("set +e\nset -e\npytest\necho done", {}, None),
    ("set -e\npytest\necho done", {"errexit": False}, None),
    ("set +e\npytest\nrc=$?\nset -e\nif [ $rc -ne 0 ]; then exit $rc; fi", {}, None),
    ('set +e\npytest\nrc=$?\necho upload\n[ "$rc" -eq 0 ] || exit "$rc"', {}, None),
    ("set +e\npytest\nstatus=$?\necho upload\nexit $status", {}, None),
    ("pytest || rc=$?\nexit ${rc:-0}", {}, None),
    ("pytest ; echo $? > status", {}, None),
    ("! pytest", {}, "`! pytest`"),
    ("! pytest tests\necho done", {}, "`! pytest ...`"),
    ("if pytest; then echo ok; fi", {}, "`if` condition"),
    ("if pytest; then echo ok; else echo failed; fi", {}, "`if` condition"),
    ("if pytest; then echo ok; else exit 1; fi", {}, None),
    ("if ! pytest; then exit 1; fi", {}, None),
    ("if ! pytest; then echo 'tests failed'; fi", {}, "`! pytest`"),
    ("while pytest; do break; done", {}, "`while` condition"),
    ("until pytest; do sleep 1; done", {}, "`until` condition"),
    ("(pytest || true)", {}, "`|| true`"),
    ("(pytest); echo done", {}, None),
    ("(pytest && echo ok)\necho done", {}, None),
    ("{ pytest && echo ok; }\necho done", {}, "`&& echo ...`"),
    ("(cd tests && pytest) || true", {}, "`|| true`"),
    ('if [ -n "$CI" ]; then pytest || true; fi', {}, "`|| true`"),
    ('if [ -n "$CI" ]; then pytest; fi', {}, None),
    ('if [ -n "$CI" ]; then set -o pipefail; fi\npytest | tee log', {}, None),
    ('case "$OS" in linux) pytest || true ;; *) echo skip ;; esac', {}, "`|| true`"),
    ("pytest &\nwait", {}, "`&` (background job)"),
    ("pytest &", {}, "`&` (background job)"),
    ("pytest $(echo -x)", {}, None),
    ("pytest & pid=$!\nwait $pid", {}, None),
    ('echo "$(pytest)"', {}, "`$(...)`"),
    ("out=$(pytest)", {}, None),
    ("exec pytest", {}, None),
    ("f() { pytest; }\nf || true", {}, "`|| true`"),
    ("f() { pytest; echo in; }\nf\necho after", {}, None),
    ("f() { pytest; echo in; }\nf || exit 1", {}, "`|| exit 1`"),
    ("f() { pytest; }\necho never called", {}, None),
    ("for i in 1 2 3; do pytest && break; done", {}, None),
    ("for i in 1 2 3; do pytest && break; done\necho done", {}, "`&& break`"),
    ("bash -c 'pytest || true'", {}, "`|| true`"),
    ("bash -c 'pytest; echo done'", {}, "`; echo ...` without errexit"),
    ("bash -ec 'pytest; echo done'", {}, None),
    ("bash -o pipefail -ec 'pytest | tee log'", {}, None),
    ("eval 'pytest || true'", {}, "`|| true`"),
    ('eval pytest "||" true', {}, "`|| true`"),
    ("bash --norc -o pipefail -e -c 'pytest | tee log'", {}, None),
    ("sudo -E bash -c 'pytest || true'", {}, "`|| true`"),
    ("timeout 600 pytest || true", {}, "`|| true`"),
    ("tox -e py311 || true", {}, "`|| true`"),
]


@pytest.mark.parametrize(("command", "shell", "masked"), MASKING)
def test_masking(command: str, shell: dict[str, bool], masked: str | None) -> None:
    assert only_run(command, **shell).masked == masked


def test_masked_at_points_at_the_construct() -> None:
    run = only_run("python -m pytest tests || true")
    assert run.masked_at == Place(0, 23, 0, 30)
    assert only_run("pytest").masked_at is None


def test_each_run_is_judged_on_its_own() -> None:
    runs = read_command("pytest tests/unit || true\npytest tests/e2e").runs
    assert [run.masked for run in runs] == ["`|| true`", None]


# Commands the oracle may run: the stub pytest fails, everything else is a
# shell builtin or a harmless coreutil. Left out: scripts that need files or
# tools, one that never ends with a failing pytest, and one that never runs it.
ORACLE = [
    (command, shell, masked)
    for command, shell, masked in MASKING
    if not any(
        word in command for word in ("cd ", "tox", "python", "until", "never called", "sudo")
    )
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(("command", "shell", "masked"), ORACLE)
def test_masking_agrees_with_bash(
    tmp_path: Path, command: str, shell: dict[str, bool], masked: str | None
) -> None:
    """Run each script under real bash, with a pytest that always fails, in the
    shell mode the CI system would use: the step passes exactly when masked."""
    stub = tmp_path / "bin" / "pytest"
    stub.parent.mkdir()
    stub.write_text("#!/bin/sh\nexit 1\n")
    stub.chmod(0o755)
    flags = ["-e"] if shell.get("errexit", True) else []
    flags += ["-o", "pipefail"] if shell.get("pipefail", False) else []
    env = {**os.environ, "PATH": f"{stub.parent}{os.pathsep}{os.environ['PATH']}"}
    env["CI"] = "true"
    result = subprocess.run(
        ["bash", *flags, "-c", command],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=10,
        check=False,
    )
    assert (result.returncode == 0) == (masked is not None)


# Random scripts for the differential test: one failing pytest among commands
# whose outcome the model can decide (no unknown tests, no missing commands).
_STATEMENTS = st.sampled_from(
    [
        "true",
        "false",
        ":",
        "echo hi > /dev/null",
        "exit 0",
        "exit 1",
        "exit $?",
        "rc=$?",
        "exit $rc",
        "[ 1 -eq 1 ]",
        "[ 1 -eq 2 ]",
        '[ "$rc" -ne 0 ]',
        "return 1",
        "f",
        "wait",
    ]
)


def _compound(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(inner, st.sampled_from([" && ", " || ", " | "]), inner).map("".join),
        inner.map(lambda c: f"! {c}"),
        inner.map(lambda c: f"( {c} )"),
        inner.map(lambda c: f"{{ {c}; }}"),
        st.tuples(inner, inner, inner).map(lambda t: f"if {t[0]}; then {t[1]}; else {t[2]}; fi"),
        inner.map(lambda c: f"for i in 1 2; do {c}; done"),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}\n{t[1]}"),
        inner.map(lambda c: f'echo "$( {c})" > /dev/null'),
        inner.map(lambda c: f"{c} &"),
    )


_RUN_FORMS = st.sampled_from(
    [
        "pytest",
        "pytest || true",
        "pytest | tee /dev/null",
        "! pytest",
        "( pytest )",
        "pytest && echo ok > /dev/null",
        "if pytest; then :; fi",
        "f() { pytest; }; f",
    ]
)
_SETTINGS = st.sampled_from(["set +e", "set -e", "set -o pipefail", "set +o pipefail"])


@st.composite
def _scripts(draw: st.DrawFn) -> str:
    statement = st.recursive(_STATEMENTS, _compound, max_leaves=6)
    parts = draw(st.lists(st.one_of(statement, _SETTINGS), max_size=4))
    parts.insert(draw(st.integers(0, len(parts))), draw(_RUN_FORMS))
    return "rc=0\nf() { :; }\n" + "\n".join(parts)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@given(_scripts(), st.booleans(), st.booleans())
def test_masking_agrees_with_bash_on_generated_scripts(
    tmp_path_factory: pytest.TempPathFactory, script: str, errexit: bool, pipefail: bool
) -> None:
    """Whenever pytest really runs, bash's exit status and the model agree."""
    facts = read_command(script, errexit=errexit, pipefail=pipefail)
    if facts.unparsed:  # masking is withheld there by design
        return
    (run,) = facts.runs
    root = tmp_path_factory.mktemp("bash")
    marker = root / "ran"
    stub = root / "pytest"
    stub.write_text(f'#!/bin/sh\ntouch "{marker}"\nexit 1\n')
    stub.chmod(0o755)
    flags = (["-e"] if errexit else []) + (["-o", "pipefail"] if pipefail else [])
    env = {**os.environ, "PATH": f"{root}{os.pathsep}{os.environ['PATH']}"}
    try:
        result = subprocess.run(
            ["bash", *flags, "-c", script],
            cwd=root,
            env=env,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return
    if marker.exists():
        assert (result.returncode == 0) == (run.masked is not None), script


# ------------------------------------------------------------------ directories

DIRECTORIES = [
    ("cd tests/gpu && pytest .", ["tests/gpu"]),
    ("cd tests/gpu; pytest", ["tests/gpu"]),
    ("cd tests/gpu\npytest", ["tests/gpu"]),
    ("cd a\ncd b\npytest", ["a/b"]),
    ("cd a; cd ../b && pytest", ["b"]),
    ("cd a && cd .. && pytest", [None]),
    ("cd /abs/dir && pytest", ["/abs/dir"]),
    ('cd "$GITHUB_WORKSPACE/pkg" && pytest', ["$GITHUB_WORKSPACE/pkg"]),
    ("(cd x && pytest)\npytest y", ["x", None]),
    ("pushd sub\npytest\npopd\npytest", ["sub", None]),
    ("pytest\ncd later", [None]),
    ("cd x && pytest &\npytest", ["x", None]),  # the background job's cd stays in it
    ("uv run --directory pkg pytest", ["pkg"]),
    ("cd repo && poetry -C pkg run pytest", ["repo/pkg"]),
    ("f() { cd sub; }\npytest", [None]),
]


@pytest.mark.parametrize(("command", "directories"), DIRECTORIES)
def test_working_directory(command: str, directories: list[str | None]) -> None:
    assert [run.cwd for run in read_command(command).runs] == directories


def test_loop_bodies_are_marked() -> None:
    runs = read_command("for i in 1 2 3; do pytest && break; done\npytest").runs
    assert [run.in_loop for run in runs] == [True, False]


# --------------------------------------------------------------------- exports

EXPORTS: list[tuple[str, list[tuple[str, str, str]]]] = [
    ("export NEEDLE_TRIALS=50", [("NEEDLE_TRIALS", "50", "export")]),
    ("export A=1 B=2", [("A", "1", "export"), ("B", "2", "export")]),
    ('export A="x y"', [("A", "x y", "export")]),
    ("NEEDLE_TRIALS=50", [("NEEDLE_TRIALS", "50", "assignment")]),
    ("A=1; B=2", [("A", "1", "assignment"), ("B", "2", "assignment")]),
    ("declare -x A=1", [("A", "1", "export")]),
    ("local A=1", []),
    ("export A", []),
    ('echo "NEEDLE_TRIALS=50" >> "$GITHUB_ENV"', [("NEEDLE_TRIALS", "50", "github-env")]),
    ("echo NEEDLE_TRIALS=50 >> $GITHUB_ENV", [("NEEDLE_TRIALS", "50", "github-env")]),
    ("echo A=1 >>${GITHUB_ENV}", [("A", "1", "github-env")]),
    ("echo A=1 | tee -a $GITHUB_ENV", [("A", "1", "github-env")]),
    ("printf 'A=%s\\n' 2 >> $GITHUB_ENV", [("A", "2", "github-env")]),
    (
        "{ echo A=1; echo B=2; } >> $GITHUB_ENV",
        [("A", "1", "github-env"), ("B", "2", "github-env")],
    ),
    (
        "cat >> $GITHUB_ENV <<EOF\nA=1\nB=2\nEOF",
        [("A", "1", "github-env"), ("B", "2", "github-env")],
    ),
    ("echo A=1 >> $GITHUB_OUTPUT", []),
    ("set NEEDLE_TRIALS=50", []),  # sets $1 in bash, not a variable
    ("echo A=1", []),
    ("FOO=1 pytest", []),  # an inline assignment belongs to the run's env
    ("env FOO=1 pytest", []),
]


@pytest.mark.parametrize(("command", "exports"), EXPORTS)
def test_exports(command: str, exports: list[tuple[str, str, str]]) -> None:
    found = [(e.name, e.value, e.via) for e in read_command(command).exports]
    assert found == exports


def test_export_positions_and_dynamic_values() -> None:
    exports = read_command("set -e\n  export A=$B C=3").exports
    assert exports == (
        Export("A", "$B", 1, 9, "export", dynamic=True),
        Export("C", "3", 1, 14, "export", dynamic=False),
    )


# ------------------------------------------------------------------- odd input

ODD_INPUT: list[tuple[str, bool, int]] = [
    # (text, unparsed, number of runs read)
    ('echo "unbalanced\npytest --reruns 2', True, 1),
    ("echo 'unbalanced\npytest", True, 1),
    ("pytest $(echo unterminated", True, 1),
    ("echo `unterminated\npytest", True, 1),
    ("fi\npytest", True, 1),
    ("if true; then pytest", True, 1),
    ("pytest )", True, 1),
    ("pytest $(date +%s) `whoami` ${X:-1} $((1 + 2))", False, 1),
    ("cat <<EOF\nunclosed here-doc pytest\n", False, 0),
    ("cat <<'EOF'\n$(pytest)\nEOF\npytest", False, 1),
    ("[[ -f x && ( -n $a || -z $b ) ]] && pytest", False, 1),
    ("arr=(a b c)\npytest ${arr[@]}", False, 1),
    ('python -c "\nimport sys\nprint(1)\n"\npytest', False, 1),
    ("echo a\\\nb pytest", False, 0),
    ("pytest \\\n  --reruns 2 \\\n  tests", False, 1),
    ("pytest \\\r\n  --reruns 2", False, 1),
    ("function f { pytest; }\nf", False, 1),
]


@pytest.mark.parametrize(("text", "unparsed", "runs"), ODD_INPUT)
def test_odd_input(text: str, unparsed: bool, runs: int) -> None:
    facts = read_command(text)
    assert (facts.unparsed, len(facts.runs)) == (unparsed, runs)


@pytest.mark.parametrize(
    "text",
    ["echo 'unbalanced && ls", "pip install --upgrade pip 'unbalanced", "ruff check ."],
)
def test_text_without_anything_to_read_skips_the_lexer(text: str) -> None:
    assert read_command(text) == CommandFacts((), (), False)


def test_very_long_lines() -> None:
    long_line = "echo " + "x" * 200_000 + " && pytest --reruns 2 " + "tests/a " * 5_000
    run = only_run(long_line)
    assert (run.reruns, len(run.targets)) == (2, 5_000)


def test_deep_nesting_is_cut_off_not_crashing() -> None:
    deep = "( " * 3_000 + "pytest" + " )" * 3_000
    assert read_command(deep).unparsed
    assert only_run("( " * 20 + "pytest || true" + " )" * 20).masked == "`|| true`"
    deep_substitution = "echo " + "$(" * 3_000 + "pytest" + ")" * 3_000
    assert read_command(deep_substitution).unparsed


def test_branches_that_cannot_matter_are_not_followed() -> None:
    conditions = "".join(f'if [ -n "$V{i}" ]; then echo {i}; fi\n' for i in range(40))
    assert only_run(conditions + "pytest || true").masked == "`|| true`"
    checks = "".join(f'[ -n "$V{i}" ] && echo {i}\n' for i in range(40))
    assert only_run(checks + "pytest || true").masked == "`|| true`"


def test_many_conditions_that_matter_give_up_on_masking_only() -> None:
    conditions = "".join(f'if [ -n "$V{i}" ]; then X{i}=1; fi\n' for i in range(12))
    run = only_run(conditions + "pytest || true")
    assert run.masked is None  # 4096 paths: too many to follow
    assert run.launcher == "pytest"


def test_a_failing_check_after_the_run_is_not_masking() -> None:
    assert only_run("pytest || true\n[ -f report.xml ]").masked is None
    assert only_run('pytest || true\n[ -n "$X" ] && echo x').masked is None
    assert only_run('pytest || true\n[ -n "$X" ] && echo x\necho done').masked == "`|| true`"


def test_results_are_frozen() -> None:
    facts = read_command("export A=1\npytest")
    with pytest.raises(dataclasses.FrozenInstanceError):
        facts.runs[0].reruns = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        facts.exports[0].value = "2"  # type: ignore[misc]


SHELL_PIECES = [
    "pytest",
    "python -m pytest",
    "tox -e py -- ",
    " ",
    " ",
    "\n",
    "'",
    '"',
    "$(",
    ")",
    "(",
    "`",
    "\\",
    "\\\n",
    "|",
    "||",
    "&&",
    ";",
    "&",
    "!",
    "if ",
    "then ",
    "elif ",
    "else ",
    "fi",
    "do ",
    "done",
    "while ",
    "until ",
    "for x in a b; ",
    "case $x in ",
    "a)",
    "esac",
    ";;",
    "{ ",
    "}",
    "<<EOF\n",
    "<<-X\n",
    "EOF\n",
    "--reruns 2",
    "--reruns=$N",
    "-k",
    "-p no:x",
    "set +e",
    "set -e",
    "set -o pipefail",
    "exit 0",
    "exit $?",
    "rc=$?",
    "exit $rc",
    "cd x",
    "pushd y",
    "popd",
    "export A=1",
    "#",
    "${",
    "$((",
    "))",
    "[[",
    "]]",
    "[ $rc -ne 0 ]",
    "bash -c ",
    "eval ",
    "f() ",
    "f",
    "return 1",
    "break",
    "continue",
    "wait",
    "exec ",
    ">> $GITHUB_ENV",
    "echo A=1",
    "2>&1",
    "true",
    "false",
    "=",
    "time ",
    "timeout 5 ",
]


@given(st.text(max_size=400))
def test_never_raises_on_any_text(text: str) -> None:
    facts = read_command(text)
    assert isinstance(facts, CommandFacts)


@given(st.lists(st.sampled_from(SHELL_PIECES), max_size=60).map("".join))
def test_never_raises_on_shell_like_text(text: str) -> None:
    for errexit in (True, False):
        facts = read_command(text, errexit=errexit, pipefail=not errexit)
        for run in facts.runs:
            assert run.line <= run.end_line
            assert run.launcher


# ------------------------------------------------------- the argument helpers


def test_read_pytest_args_reads_addopts_style_lists() -> None:
    args = read_pytest_args(["--reruns", "2", "-p", "no:randomly", "tests"])
    assert (args.reruns, args.disabled_plugins, args.targets) == (2, ("randomly",), ("tests",))
    assert args.reruns_option is not None
    assert args.reruns_option.written(["--reruns", "2", "-p", "no:randomly", "tests"]) == (
        "--reruns 2"
    )


def test_read_pytest_args_marks_expansions_dynamic() -> None:
    assert read_pytest_args(["--reruns", "$N"]).reruns_dynamic
    assert not read_pytest_args(["--reruns", "$N"], [False, False]).reruns_dynamic
    assert read_pytest_args(["--count", "$N"]).dynamic_options == ("--count",)


def test_recognise_launcher_on_plain_words() -> None:
    launch = recognise_launcher(["timeout", "60", "uv", "run", "pytest", "-x"])
    assert launch is not None
    assert (launch.launcher, launch.args, launch.wrappers) == (
        "uv run pytest",
        (("-x", 5),),
        ("timeout 60",),
    )
    assert recognise_launcher(["pip", "install", "pytest"]) is None
    assert recognise_launcher([]) is None


@pytest.mark.parametrize(
    ("command", "masked"),
    [
        # bokeh: the second run's status decides the step; a retry, not a mask
        ("pytest $COV tests/unit || pytest --last-failed tests/unit", None),
        ("python -m pytest tests || xvfb-run python -m pytest tests", None),
        ("pytest tests || true", "`|| true`"),
        ("pytest tests || echo failed", "`|| echo ...`"),
    ],
)
def test_a_second_pytest_after_or_is_not_a_masked_status(command: str, masked: str | None) -> None:
    first = read_command(command).runs[0]
    assert first.masked == masked
