"""The shell reader's shortcuts give what the long ways give.

Reading a command skips work where the answer is known: the exit-status
simulation for a run that errexit surely stops on, the general launcher reading
for ``pytest ...`` and ``python -m pytest ...``, the ``PytestArgs`` in between
the words and a run's facts, ``PytestRun.__init__``, the prefilter's regex, and
the list of line starts. Each is checked here against the way it stands in for.
"""

from __future__ import annotations

import dataclasses
import re
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detlint.readers.ci.pytest.arguments import (
    Knobs,
    PytestArgs,
    read_knobs,
    read_pytest_args,
    scan_pytest_args,
)
from detlint.readers.ci.shell.commands import (
    _ASSIGNMENT_HINT,
    _CALL_HINT,
    PytestRun,
    _Lines,
    _worth_reading,
    read_command,
)
from detlint.readers.ci.shell.effects import Analysis
from detlint.readers.ci.shell.launchers import (
    LAUNCHER_HINT,
    has_launcher_hint,
    launcher_of,
    read_launcher,
)
from detlint.readers.ci.shell.masking import Masking, masking_verdict
from detlint.readers.ci.shell.parser import parse
from detlint.readers.ci.shell.walk import Walker, WalkState

# ------------------------------------------------------------------ masking


def _runs_with_and_without_shortcut(text: str, errexit: bool, pipefail: bool):
    program, unparsed, _ = parse(text)
    walker = Walker(text)
    walker.walk(program, WalkState())
    masking = Masking(program, unparsed, errexit, pipefail)
    for found in walker.found:
        simulated = masking_verdict(program, Analysis(program), found.command, errexit, pipefail)
        # Both the masking and the deferral: the shortcut must agree on each.
        yield masking.verdict(found.command), simulated


_LINES = [
    *("pytest", "pytest -x", "python -m pytest", "pytest || true", "pytest | tee log", "pytest &"),
    *("set -e", "set +e", "set -o pipefail", "set -eu", "set +o errexit", "set -- +e"),
    *("command set +e", "builtin set +e", "eval 'set +e'", "exec 3>log", "bash -c 'set +e'"),
    *("exit 0", "exit 1", "true", "false", "echo done", "export A=1", "A=1", "cd tests"),
    *("f() { set +e; }", "f", "$CMD +e", "trap 'exit 0' EXIT", "wait", "[ -n x ]", "rc=$?"),
    *("if true; then set +e; fi", "{ set +e; }", "( set +e )", "exit $rc"),
]


@settings(max_examples=300)
@given(st.lists(st.sampled_from(_LINES), min_size=1, max_size=6), st.booleans(), st.booleans())
def test_masking_skips_the_simulation_only_where_it_finds_nothing(
    lines: list[str], errexit: bool, pipefail: bool
) -> None:
    text = "\n".join(lines)
    if parse(text)[1]:
        return  # text that did not parse gets no verdict by design
    for shortcut, simulated in _runs_with_and_without_shortcut(text, errexit, pipefail):
        assert shortcut == simulated, text


@pytest.mark.parametrize(
    ("text", "errexit", "masked"),
    [
        ("pip install .\npytest\necho done", True, None),  # errexit stops at pytest
        ("pip install .\npytest\necho done", False, "`; echo ...` without errexit"),
        ("set +e\npytest\necho done", True, "`set +e`"),
        ("eval 'set +e'\npytest\ntrue", True, "`set +e`"),  # the set +e comes from eval
        ("command set +e\npytest\ntrue", True, "`set +e`"),
        ("set -- +e\npytest\ntrue", True, None),  # read conservatively, still no mask
    ],
)
def test_masking_reads_errexit_as_it_stands_at_the_run(
    text: str, errexit: bool, masked: str | None
) -> None:
    (run,) = read_command(text, errexit=errexit).runs
    assert run.masked == masked


# ---------------------------------------------------------------- launchers

# Command heads around the two shapes that launcher_of reads itself, and near misses.
_HEADS = [
    *(["pytest"], ["py.test"], ["pytest-3"], ["/venv/bin/pytest"], ["pytest.exe"], ["pytest3x"]),
    *(["python", "-m", "pytest"], ["python3.11", "-m", "py.test"], ["py", "-m", "pytest"]),
    *(["/usr/bin/pypy3", "-m", "pytest"], ["python", "-m"], ["python", "-m", "pytest-3"]),
    *(["python", "-u", "-m", "pytest"], ["python", "-mpytest"], ["python", "-u", "pytest"]),
    *(["$PY", "-m", "pytest"], ["pythonx", "-m", "pytest"], ["sudo", "-m", "pytest"]),
    *(["env", "-m", "pytest"], ["timeout", "-m", "pytest"], ["coverage", "run", "-m", "pytest"]),
    *(["uv", "run", "pytest"], ["hatch", "test"], ["tox", "-e", "py"], ["exec", "pytest"]),
]
_TAILS = ["-m", "pytest", "-x", "--reruns", "2", "tests", "--", "-u", "A=1", "$N"]


@settings(max_examples=300)
@given(
    st.sampled_from(_HEADS),
    st.lists(st.sampled_from(_TAILS), max_size=4),
    st.lists(st.booleans(), max_size=8),
)
def test_common_launcher_shapes_read_as_the_general_way(
    head: list[str], tail: list[str], dynamic: list[bool]
) -> None:
    values = [*head, *tail]
    assert launcher_of(values, dynamic) == read_launcher(values, dynamic)


@given(st.text(alphabet="pytoxhac.es -", max_size=14))
def test_launcher_hint_substrings_match_the_pattern(text: str) -> None:
    assert has_launcher_hint(text) == bool(LAUNCHER_HINT.search(text))


@given(st.text(alphabet="pytoxhacGITHUB_ENV=a1 \n;'-", max_size=16))
def test_prefilter_asks_what_one_search_would(text: str) -> None:
    pattern = f"{LAUNCHER_HINT.pattern}|GITHUB_ENV|{_ASSIGNMENT_HINT.pattern}"
    expected = bool(re.search(pattern, text)) or _CALL_HINT.search(text) is not None
    assert _worth_reading(text) == expected


# ------------------------------------------------------------- pytest words

_PYTEST_WORDS = [
    *("--reruns", "2", "--reruns=3", "$N", "x", "--reruns-delay", "1", "--only-rerun", ""),
    *("Err", "--rerun-except", "--force-reruns", "--reruns-mode", "each", "--max-suite-reruns"),
    *("--fail-on-flaky", "--retries", "--force-flaky", "--max-runs", "--min-passes", "--count"),
    *("--flake-finder", "--flake-runs", "0", "7", "-p", "no:randomly", "xdist", "-pno:cov"),
    *("--rootdir", "src", "-c", "--config-file", "cfg", "-k", "not slow", "-m", "gpu", "-x"),
    *("-kfoo", "-vs", "tests", "--", "-", "--cov", "-n", "4", "--junitxml=r.xml"),
]


@settings(max_examples=300)
@given(st.lists(st.sampled_from(_PYTEST_WORDS), max_size=10))
def test_run_facts_carry_what_read_pytest_args_reads(words: list[str]) -> None:
    """The shell reader takes knobs straight from the options; the config readers
    get a ``PytestArgs``: both must read the same words the same way."""
    (run,) = read_command(shlex.join(["pytest", *words])).runs
    args = read_pytest_args(words, [False] * len(words))
    assert run.args == tuple(words)
    for field in dataclasses.fields(PytestArgs):
        if field.name not in ("reruns_option", "dynamic_options"):
            assert getattr(run, field.name) == getattr(args, field.name), field.name


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["--reruns", "2", "--reruns", "3"], {"reruns": 3}),  # the last one wins
        (["--reruns", "2", "--reruns"], {}),  # even when it has no value
        (["--reruns", "$N"], {"reruns_dynamic": True}),
        (["--reruns", "x"], {}),  # no number and no expansion: not a knob
        (["--only-rerun", "", "--only-rerun", "E"], {"only_rerun": ("", "E")}),  # all kept
        (["--flake-finder", "--flake-runs", "0"], {"flake_runs": 50}),  # 0: the default
        (["--flake-finder", "--flake-runs=7"], {"flake_runs": 7}),
        (
            ["-p", "no:randomly", "-pxdist", "-p"],
            {"disabled_plugins": ("randomly",), "plugins": ("xdist",)},
        ),
        (["-k", "a", "-k"], {}),  # the last -k has no value
        (
            ["-k", "a", "-m", "b", "--config-file", "cfg", "--rootdir", "src"],
            {"keyword": "a", "markexpr": "b", "config_file": "cfg", "rootdir": "src"},
        ),
    ],
)
def test_knobs_hold_only_what_differs_from_the_defaults(
    words: list[str], expected: dict[str, object]
) -> None:
    options, _ = scan_pytest_args(words)
    knobs, reruns_option = read_knobs(options, [w.startswith("$") for w in words])
    args = read_pytest_args(words)
    assert reruns_option == args.reruns_option
    for name, value in knobs.items():
        assert getattr(args, name) == value
        default = next(f.default for f in dataclasses.fields(PytestArgs) if f.name == name)
        assert value != default, name
    assert knobs == expected


def test_knob_names_are_fields_of_both_facts() -> None:
    run_fields = {field.name for field in dataclasses.fields(PytestRun)}
    args_fields = {field.name for field in dataclasses.fields(PytestArgs)}
    assert set(Knobs.__annotations__) <= run_fields & args_fields


# ------------------------------------------------------------------- lines


@given(st.text(alphabet="ab\n", max_size=30))
def test_lines_count_points_as_a_list_of_line_starts_finds_them(text: str) -> None:
    lines = _Lines(text)
    for offset in range(-1, len(text) + 2):  # more points than are counted in the text
        before = text[: max(offset, 0)]
        expected = (before.count("\n"), offset - (before.rfind("\n") + 1) if offset > 0 else offset)
        assert lines.point(offset) == expected
