"""Linking memoises what runs share (a directory's targets, a called script, where the
runs of a command list sit, a test under a config, a trial-count override) and takes
shortcuts through what most runs do (nothing to merge, nothing to normalise). Each
memo must be keyed by everything its answer depends on, and each shortcut must give
the answer of the general path it skips."""

from __future__ import annotations

import dataclasses
import posixpath
import shlex
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from detlint.base.paths import join, relativer
from detlint.base.span import Span
from detlint.compose.ci.run_options import RunOptions, _merge, line_options, run_options
from detlint.compose.ci.runs import Linker, _moved
from detlint.compose.ci.targets import TestFiles, python_files
from detlint.compose.plugins import FLAKY, RERUNFAILURES
from detlint.compose.test_policy import link_test, same_link, with_trials
from detlint.readers.ci.facts import CiCommand, CiStep, EnvSetting, PipelineFacts
from detlint.readers.ci.pytest.arguments import read_pytest_args
from detlint.readers.ci.shell.commands import PytestRun, read_command
from detlint.readers.dependencies.declarations import PluginEvidence, Requirement
from detlint.readers.project.pytest_config import EMPTY_CONFIG, IntSetting, PytestConfig
from detlint.readers.python import facts as python_facts
from detlint.readers.python.facts import ModuleFacts, TrialCount
from detlint.readers.python.options import ScanOptions
from detlint.readers.python.prefilter import Prefilter
from detlint.readers.python.repository import PythonRepository

AT = Span("ci.yml", 1, 1, 1, 1)
NO_EVIDENCE = PluginEvidence((), ())
FILES = ["a/tests/test_a.py", "b/tests/test_b.py", "tests/test_root.py", "a/run.sh", "b/run.sh"]


def _linker(files=FILES, scripts=None):
    scripts = scripts or {}
    return Linker(
        files, lambda directory: EMPTY_CONFIG, lambda path: NO_EVIDENCE, read_file=scripts.get
    )


def _github(text, working_dir=None, env=()):
    command = CiCommand(text, AT, working_dir=working_dir)
    return CiStep("github", "ci.yml", AT, "job", (command,), env=env)


def _buildkite(*texts, line=1):
    commands = tuple(
        CiCommand(text, Span("p.yml", line + i, 5, line + i, 5 + len(text)))
        for i, text in enumerate(texts)
    )
    return CiStep("buildkite", "p.yml", Span("p.yml", line, 3, line, 3), "step", commands)


def test_one_target_from_two_working_directories_reaches_two_sets_of_files():
    linker = _linker()
    reached = [
        linker.runs(_github("pytest tests", working_dir="a"))[0].test_files,
        linker.runs(_github("pytest tests", working_dir="b"))[0].test_files,
        linker.runs(_github("pytest tests"))[0].test_files,
        linker.runs(_github("cd a && pytest tests"))[0].test_files,
        linker.runs(_github("pytest a/tests"))[0].test_files,
    ]
    assert reached == [
        ("a/tests/test_a.py",),
        ("b/tests/test_b.py",),
        ("tests/test_root.py",),
        ("a/tests/test_a.py",),
        ("a/tests/test_a.py",),
    ]


def test_a_script_called_from_two_directories_is_each_directorys_own():
    scripts = {"a/run.sh": "pytest tests --reruns 2\n", "b/run.sh": "pytest tests\n"}
    linker = _linker(scripts=scripts)
    (in_a,) = linker.runs(_github("./run.sh", working_dir="a"))
    (in_b,) = linker.runs(_github("./run.sh", working_dir="b"))
    assert (in_a.span.path, in_a.test_files, in_a.options.flags) == (
        "a/run.sh",
        ("a/tests/test_a.py",),
        ("--reruns 2",),
    )
    assert (in_b.span.path, in_b.test_files, in_b.options.flags) == (
        "b/run.sh",
        ("b/tests/test_b.py",),
        (),
    )


def test_command_lists_that_join_to_one_script_place_their_runs_in_their_own_commands():
    # Both lists are the script "echo a\npytest tests\necho b" (one shell, one parse).
    first = _buildkite("echo a\npytest tests", "echo b")
    second = _buildkite("echo a", "pytest tests\necho b")
    linker = _linker()
    (in_first,) = linker.runs(first)
    (in_second,) = linker.runs(second)
    assert in_first.command is first.commands[0]
    assert in_first.run.line == 1
    assert in_second.command is second.commands[1]
    assert in_second.run.line == 0
    # The same list again (another step) is placed alike.
    (again,) = linker.runs(_buildkite("echo a", "pytest tests\necho b", line=20))
    assert (again.run.line, again.span.line) == (0, 21)


def test_a_moved_run_is_the_run_with_its_lines_moved():
    (run,) = read_command("echo a\n\npytest -p no:cacheprovider \\\n  tests").runs
    moved = _moved(run, 2)
    assert moved == dataclasses.replace(run, line=run.line - 2, end_line=run.end_line - 2)
    assert (run.line, run.end_line) == (2, 3)  # the run read from the script is untouched


TRIALS = TrialCount(30, AT, "KERNEL_TRIALS", "KERNEL_TRIALS")


def test_each_trial_override_is_its_steps_own():
    test = python_facts.TestFunction("tests/test_root.py", "test_k", None, AT, None, (), (), TRIALS)
    tests = {"tests/test_root.py": [test]}
    linker = _linker()
    found = []
    for count in ("3", "5", "3", "x"):
        env = (EnvSetting("KERNEL_TRIALS", count, AT),)
        (run,) = linker.runs(_github("pytest tests", env=env))
        gates = linker.gates(run, tests)
        found.append(
            [(g.inside.trials, g.own.trials, g.override and g.override.value) for g in gates]
        )
    assert found == [[(3, 30, "3")], [(5, 30, "5")], [(3, 30, "3")], [(30, 30, None)]]


MODULE = """\

import pytest
from tenacity import retry, stop_after_attempt

TRIALS = int(os.getenv("KERNEL_TRIALS", "30"))


@pytest.mark.flaky(reruns=2)
def test_marked():
    for _ in range(TRIALS):
        assert run_kernel() == EXPECTED


@pytest.mark.flaky
def test_bare():
    for _ in range(TRIALS):
        assert run_kernel() == EXPECTED


@pytest.mark.flaky(max_runs=3, min_passes=2)
def test_flaky_package():
    for _ in range(TRIALS):
        assert run_kernel() == EXPECTED


@pytest.mark.xfail(strict=False)
def test_quarantined():
    for _ in range(TRIALS):
        assert run_kernel() == EXPECTED


@pytest.mark.skip(reason="flaky on GPUs")
def test_skipped():
    for _ in range(TRIALS):
        assert run_kernel() == EXPECTED


@retry(stop=stop_after_attempt(3))
def test_retried():
    for _ in range(TRIALS):
        assert run_kernel() == EXPECTED


def test_plain():
    for _ in range(TRIALS):
        assert run_kernel() == EXPECTED
"""


def _tests(tmp_path: Path) -> tuple[python_facts.TestFunction, ...]:
    path = tmp_path / "test_module.py"
    path.write_text(MODULE)
    repository = PythonRepository(tmp_path, tmp_path, ScanOptions(), Prefilter(trials=True))
    facts = repository.scan(path)
    assert isinstance(facts, ModuleFacts)
    assert len(facts.tests) == 7
    return facts.tests


def _evidence(*plugins: str) -> PluginEvidence:
    return PluginEvidence(tuple(Requirement(p, "", AT, "requirements.txt") for p in plugins), ())


CONFIGS = [
    EMPTY_CONFIG,
    dataclasses.replace(EMPTY_CONFIG, reruns=IntSetting(2, AT, "--reruns")),
    dataclasses.replace(EMPTY_CONFIG, force_reruns=IntSetting(1, AT, "--force-reruns")),
    dataclasses.replace(EMPTY_CONFIG, strict_xfail=True),
    dataclasses.replace(EMPTY_CONFIG, disabled_plugins=frozenset({"flaky"})),
]
EVIDENCE = [NO_EVIDENCE, _evidence(RERUNFAILURES), _evidence(RERUNFAILURES, FLAKY)]


def test_a_test_with_another_trial_count_links_as_its_gate_with_that_count(tmp_path):
    for test in _tests(tmp_path):
        copy = dataclasses.replace(test, trials=TrialCount(7, AT, "KERNEL_TRIALS", "K=7"))
        for config in CONFIGS:
            for evidence in EVIDENCE:
                gate = link_test(test, config, evidence)
                assert with_trials(gate, copy) == link_test(copy, config, evidence)


def test_configs_linked_alike_are_those_that_differ_only_in_an_unused_plugin(tmp_path):
    tests = _tests(tmp_path)
    other = dataclasses.replace(EMPTY_CONFIG, disabled_plugins=frozenset({"cacheprovider"}))
    no_flaky = dataclasses.replace(EMPTY_CONFIG, disabled_plugins=frozenset({"flaky"}))
    both = _evidence(RERUNFAILURES, FLAKY)
    assert same_link(EMPTY_CONFIG, other, both)
    assert same_link(EMPTY_CONFIG, no_flaky, _evidence(RERUNFAILURES))
    assert not same_link(EMPTY_CONFIG, no_flaky, both)  # the flaky package no longer reads it
    assert not same_link(EMPTY_CONFIG, CONFIGS[1], both)
    for config in CONFIGS:
        for candidate in (*CONFIGS, other):
            for evidence in EVIDENCE:
                if same_link(config, candidate, evidence):
                    for test in tests:
                        assert link_test(test, config, evidence) == link_test(
                            test, candidate, evidence
                        )
    # Where they are not alike, linking tells them apart.
    marked = tests[0]
    assert link_test(marked, EMPTY_CONFIG, both) != link_test(marked, no_flaky, both)


def test_a_run_that_disables_the_plugin_reading_flaky_is_linked_under_its_options(tmp_path):
    marked = _tests(tmp_path)[0]
    tests = {"tests/test_root.py": [dataclasses.replace(marked, path="tests/test_root.py")]}
    evidence = _evidence(RERUNFAILURES, FLAKY)
    linker = Linker(FILES, lambda directory: EMPTY_CONFIG, lambda path: evidence)
    (plain,) = linker.runs(_github("pytest -p no:cacheprovider tests || true"))
    (disabling,) = linker.runs(_github("pytest -p no:flaky tests || true"))
    (plain_gate,) = linker.gates(plain, tests)
    (disabling_gate,) = linker.gates(disabling, tests)
    assert plain_gate.base.plugin is not None
    assert plain_gate.base.plugin.declared == {RERUNFAILURES, FLAKY}
    assert disabling_gate.base.plugin is not None
    assert disabling_gate.base.plugin.declared == {RERUNFAILURES}


def test_a_listing_with_a_file_twice_reaches_it_once_and_helpers_never():
    listing = ["tests/test_a.py", "tests/test_a.py", "tests/x/test_b.py", "tests/x/helpers.py"]
    files = TestFiles([*listing, "src/helpers.py", "src/test_a.py"], _config)
    assert files.reached("", ("tests",)) == ("tests/test_a.py", "tests/x/test_b.py")
    assert files.reached("tests", ("x", ".")) == ("tests/test_a.py", "tests/x/test_b.py")
    assert files.reached("src", ()) == ("src/test_a.py",)


def _config(directory: str) -> PytestConfig:
    return EMPTY_CONFIG


# ------------------------------------------------------------------- shortcuts

PARTS = st.sampled_from(["a", "tests", "b.py", "..", ".", "", "x y", ".py", "..py", "c.pyc"])
PATHS = st.lists(PARTS, min_size=1, max_size=4).map("/".join)
PLACES = st.sampled_from(["/", "/r", "/r/s", "/q"])


def _reference_join(base: str, relative: str) -> str:
    if relative.startswith("/"):
        return relative.lstrip("/")
    joined = posixpath.normpath(posixpath.join(base, relative)) if base or relative else ""
    return "" if joined == "." else joined


@given(PATHS | st.just(""), PATHS | st.just(""))
def test_join_is_normpath_of_the_joined_paths(base, relative):
    assert join(base, relative) == _reference_join(base, relative)


def test_python_files_below_the_root_come_relative_and_normal():
    paths = ["/r/a/../b.py", "/r/s/c.py", "/q/d.py", "e/f.py", "/r/.py"]
    assert python_files(paths, Path("/r"), Path("/r/s")) == [
        "b.py",
        "s/c.py",
        "../q/d.py",
        "s/e/f.py",
    ]


@given(st.lists(PATHS, max_size=6), st.sampled_from(["", "/r/", "/r/s/", "/q/"]), PLACES, PLACES)
def test_python_files_are_those_with_the_py_suffix_relative_to_the_root(names, at, root, cwd):
    paths = [str(Path(at + name)) for name in names if name]  # listed paths are normal
    relative = relativer(Path(root), Path(cwd))
    expected = [relative(path) for path in paths if Path(path).suffix == ".py"]
    assert python_files(paths, Path(root), Path(cwd)) == expected


ADDOPTS = [
    "",
    "--color=yes -p no:cacheprovider",
    "--reruns 2",
    "-p no:rerunfailures --retries 1",
    "--force-flaky --max-runs 3",
    "'unclosed",
]


def _run(**options) -> PytestRun:
    return PytestRun(0, 0, 6, "pytest", **options)


RUNS = [
    _run(),
    _run(disabled_plugins=("cacheprovider",)),
    _run(disabled_plugins=("flaky", "cacheprovider")),
    _run(reruns=2),
    _run(retries=0, disabled_plugins=("cacheprovider",)),
    _run(force_flaky=True, max_runs=3, min_passes=2),
    _run(force_reruns=1, reruns=3),
    _run(max_runs=4),
    _run(min_passes=2),
    _run(force_reruns=2),
    _run(force_flaky=True),
]


def _reference_options(sources, env) -> RunOptions:
    """Every command line merged in pytest's order, as before any shortcut."""
    options = RunOptions()
    setting = next((s for s in reversed(env) if s.name == "PYTEST_ADDOPTS"), None)
    if setting is not None:
        try:
            words = shlex.split(setting.value)
        except ValueError:
            words = []
        args = read_pytest_args(words)
        options = _merge(
            options,
            args.reruns,
            args.retries,
            args.force_reruns,
            args.force_flaky,
            args.max_runs,
            args.min_passes,
            args.disabled_plugins,
            setting.span,
            "PYTEST_ADDOPTS",
        )
    for run, span in sources:
        options = _merge(
            options,
            run.reruns,
            run.retries,
            run.force_reruns,
            run.force_flaky,
            run.max_runs,
            run.min_passes,
            run.disabled_plugins,
            span,
            "the command line",
        )
    return options


def test_run_options_merge_as_pytest_reads_them():
    at = Span("ci.yml", 9, 3, 9, 20)
    tox_at = Span("tox.ini", 2, 5, 2, 30)
    for addopts in (None, *ADDOPTS):
        env: tuple[EnvSetting, ...] = (EnvSetting("TZ", "UTC", AT),)
        if addopts is not None:
            env += (EnvSetting("PYTEST_ADDOPTS", addopts, Span("ci.yml", 4, 1, 4, 9)),)
        for run in RUNS:
            expected = _reference_options(((run, at),), env)
            assert run_options(((run, at),), env) == expected
            assert line_options(run, at, env) == expected
            for tox_line in RUNS:  # under tox: the line in tox.ini, then the posargs
                sources = ((tox_line, tox_at), (run, at))
                assert run_options(sources, env) == _reference_options(sources, env)


def test_linking_pipelines_twice_gives_equal_runs_and_gates():
    # Memos live in one Linker: a second, fresh one must agree with the first.
    steps = [
        _github("pytest tests", working_dir="a"),
        _buildkite("cd b", "pytest tests --reruns 1 || true"),
        _github("pytest tests/test_root.py -p no:cacheprovider"),
    ]
    pipeline = PipelineFacts("p.yml", "buildkite", tuple(steps))

    def link():
        linker = _linker()
        return [run for step in pipeline.steps for run in linker.runs(step)]

    assert link() == link()
