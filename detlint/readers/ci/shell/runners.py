"""Commands that run tests without pytest, or hand control to something that may.

A CI step runs tests in more ways than ``pytest``: ``python -m unittest``, nose2,
``ctest``, ``go test``, ``npm test``; or one level down, through ``make test``,
``nox -s tests``, a task runner's task (``hatch run test``, ``just test``,
``invoke test``, ``poe test``, ``pixi run test``), a repository script
(``./ci/run_tests.sh``), a container (``docker run IMAGE python -m unittest``,
``docker compose run tests``) or a child pipeline. A knob on such a step gates test
failures as surely as one on ``pytest``, so every command is read for what it runs,
through the same wrappers the pytest launchers see through (``wrappers.py``).

``callee_of`` names what a command hands control to (a ``Callee``): a test runner
detlint knows (with the exit status it gives when tests fail, which decides what an
exit-status rule acts on: ``ctest`` gives 8, ``make`` turns any failure into 2), or
a delegate whose commands are elsewhere (a Makefile, a noxfile, a script, a task
table, an image) for the linking to follow. pytest itself is not a callee: its
launchers are read by ``launchers.py``. Everything here works on words after quote
removal, as ``launchers.py`` does.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from detlint.readers.ci.shell.containers import (
    CONTAINERS,
    SINGULARITY_VALUES,
    SSH_VALUES,
    container_command,
    skip_options,
)
from detlint.readers.ci.shell.wrappers import Wrapped, basename, unwrap, word_set

CalleeKind = Literal[
    "runner", "make", "nox", "tox", "task", "script", "container", "pipeline", "command"
]

# Exit statuses a failing test run gives, where they are not 1.
MAKE_FAILED = 2  # GNU make, whatever its recipe exited with
_CTEST_FAILED = 8
_CARGO_FAILED = 101
_BAZEL_FAILED = 3


@dataclass(frozen=True)
class Callee:
    """What a command hands control to, besides pytest.

    ``kind`` is ``runner`` (a test runner: the command runs tests), or a delegate
    whose commands are written elsewhere: ``make`` (goals in ``words``), ``nox``,
    ``tox``, ``task`` (a task runner's task: ``runner`` names the tool and
    ``words[0]`` the task), ``script`` (a repository file run as a program),
    ``container`` (an image's own command), ``pipeline`` (a child pipeline) or
    ``command`` (a command named like a test runner that the script does not define,
    such as a function of a file it sources: ``test_py_project``).
    ``status`` is the exit status the command gives when the tests under it fail: a
    runner's own (1 for most, ctest's 8), make's 2 whatever its recipe gave, else None:
    the status of what it runs passes through.
    """

    kind: CalleeKind
    name: str  # as a reader would name it: "python -m unittest", "make test"
    words: tuple[str, ...]  # what follows the program: goals, a task, a script's arguments
    status: int | None = None
    runner: str = ""  # the task runner of a task ("hatch", "just", "npm")
    path: str = ""  # a script's path as written


# python -m MODULE that runs tests.
_TEST_MODULES = word_set(
    "unittest nose nose2 trial twisted.trial green xmlrunner zope.testrunner testtools.run"
    " subunit.run stestr unittest_parallel testify ward doctest"
)
# Programs that run tests, and the status they fail with (1 unless named).
_TEST_PROGRAMS: dict[str, int] = {
    "nose2": 1,
    "nosetests": 1,
    "trial": 1,
    "green": 1,
    "stestr": 1,
    "testr": 1,
    "ward": 1,
    "unittest-parallel": 1,
    "zope-testrunner": 1,
    "ctest": _CTEST_FAILED,
    "jest": 1,
    "mocha": 1,
    "vitest": 1,
    "ava": 1,
    "karma": 1,
    "phpunit": 1,
    "rspec": 1,
    "prove": 1,
    "tap": 1,
}
# program subcommand: runs tests.
_TEST_SUBCOMMANDS: dict[str, tuple[frozenset[str], int]] = {
    "go": (word_set("test"), 1),
    "cargo": (word_set("test nextest"), _CARGO_FAILED),
    "bazel": (word_set("test coverage"), _BAZEL_FAILED),
    "bazelisk": (word_set("test coverage"), _BAZEL_FAILED),
    "mvn": (word_set("test verify install integration-test"), 1),
    "mvnw": (word_set("test verify install integration-test"), 1),
    "gradle": (word_set("test check build"), 1),
    "gradlew": (word_set("test check build"), 1),
    "dotnet": (word_set("test"), 1),
    "meson": (word_set("test"), 1),
    "swift": (word_set("test"), 1),
    "mix": (word_set("test"), 1),
    "flutter": (word_set("test"), 1),
    "deno": (word_set("test"), 1),
    "bun": (word_set("test"), 1),
    "bktec": (word_set("run"), 1),  # the Buildkite Test Engine client runs the suite
}
# Task runners whose tasks are defined in the project: name -> options taking a value.
_TASK_RUNNERS: dict[str, frozenset[str]] = {
    "just": word_set("-f --justfile -d --working-directory --set"),
    "invoke": word_set("-c --collection -r --search-root -f --config"),
    "inv": word_set("-c --collection -r --search-root -f --config"),
    "poe": word_set("-C --directory --root"),
    "task": word_set("-t --taskfile -d --dir"),
    "doit": word_set("-f --file -d --dir"),
    "rake": word_set("-f --rakefile"),
}
# Environment managers that run a command or a task of the project's: the subcommand,
# the options before a task taking a value.
_MANAGERS: dict[str, tuple[str, frozenset[str]]] = {
    "hatch": ("run", word_set("-e --env -p --project")),
    "pdm": ("run", word_set("-p --project --venv")),
    "rye": ("run", word_set("--pyproject")),
    "pixi": ("run", word_set("-e --environment --manifest-path")),
    "uv": ("run", word_set("--directory --project --python -p --with --extra --group --package")),
    "poetry": ("run", word_set("-C --directory -P --project")),
    "pipenv": ("run", word_set("--python")),
    "conda": ("run", word_set("-n --name -p --prefix --cwd")),
    "mamba": ("run", word_set("-n --name -p --prefix --cwd")),
    "micromamba": ("run", word_set("-n --name -p --prefix --cwd")),
    "npm": ("run", word_set("--prefix -w --workspace")),
    "yarn": ("run", word_set("--cwd")),
    "pnpm": ("run", word_set("-C --dir --filter")),
}
# Managers whose first word after the subcommand may be a task of the project.
_TASKS_OF_MANAGER = frozenset({"hatch", "pdm", "rye", "pixi", "npm", "yarn", "pnpm"})
_NODE_TEST = frozenset({"test", "t", "tst"})

# Every program name a callee may start with, for the shell reader's cheap test of
# whether a text is worth parsing at all.
PROGRAM_NAMES = frozenset(
    {
        *_TEST_PROGRAMS, *_TEST_SUBCOMMANDS, *_TASK_RUNNERS, *_MANAGERS, *CONTAINERS,
        "make", "gmake", "nox", "tox", "kubectl", "oc", "ssh", "singularity", "apptainer",
        "buildkite-agent", "source",
    }
)  # fmt: skip
# python3.12, python.exe, and python${PYTHON_VERSION}: a version from a variable.
_PYTHON = re.compile(r"(?:python|pypy)(?:\d+(?:\.\d+)*t?)?(?:\$\{?\w+\}?)?(?:\.exe)?")
_MAKE = re.compile(r"g?make|mingw32-make|\$\(MAKE\)|\$\{MAKE\}|\$MAKE")
_PATH_SCRIPT = re.compile(r"(?:\.{1,2}/|/)?[\w.@+-]+(?:/[\w.@+-]+)+|\.{1,2}/[\w.@+-]+")
_SCRIPT_SUFFIXES = (".sh", ".bash", ".py", ".ps1", ".bat", ".cmd")
_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "source", "."})
_MAKE_VALUES = word_set("-C --directory -f --file --makefile -o -W -I -j -l")


def callee_of(values: Sequence[str], depth: int = 0) -> Callee | None:
    """What the simple command ``values`` (after its ``NAME=value`` assignments) hands
    control to, or None when it is not a test runner or a delegate detlint knows. Under
    ``xargs`` its failure reaches the script as xargs's 123."""
    wrapped = Wrapped()
    callee = _callee_of(values, depth, wrapped)
    if callee is not None and wrapped.status is not None:
        return dataclasses.replace(callee, status=wrapped.status)
    return callee


def _callee_of(values: Sequence[str], depth: int, wrapped: Wrapped) -> Callee | None:
    if not values or depth > 4:
        return None
    index = unwrap(values, 0, wrapped)
    if index is None or index >= len(values):
        return None
    name = basename(values[index])
    rest = values[index + 1 :]
    if _PYTHON.fullmatch(name):
        return _python(rest, depth)
    if _MAKE.fullmatch(values[index]) or _MAKE.fullmatch(name):
        return _make(rest)
    if name in _TEST_PROGRAMS:
        return Callee("runner", name, tuple(rest), _TEST_PROGRAMS[name])
    if name in _TEST_SUBCOMMANDS:
        return _subcommand(name, rest)
    if name in ("nox", "tox"):
        kind: CalleeKind = "nox" if name == "nox" else "tox"
        return Callee(kind, " ".join([name, *rest[:2]]), tuple(rest))
    if name in _TASK_RUNNERS:
        return _task(name, rest, _TASK_RUNNERS[name])
    if name in _MANAGERS:
        return _manager(name, rest, depth)
    if name in CONTAINERS:
        return _container(name, rest, depth)
    if name in ("kubectl", "oc"):
        return _after_dashes(name, rest, "exec", depth)
    if name in ("singularity", "apptainer"):
        return _image_command(name, rest, "exec", SINGULARITY_VALUES, depth)
    if name == "ssh":
        return _remote(rest, depth)
    if name == "buildkite-agent" and rest[:2] == ["pipeline", "upload"]:
        return Callee("pipeline", "buildkite-agent pipeline upload", tuple(rest[2:]))
    if name in _SHELLS:
        return _shell_script(name, rest)
    if _is_script(values[index]):
        return Callee("script", values[index], tuple(rest), path=values[index])
    return None


# ``test`` (or ``tests``, ``unittest``...) as a word of a name: run_tests, test_py_project,
# ci/unit-tests.sh; the judgement "named like a test runner" for every kind of call.
TEST_WORD = re.compile(r"(?:^|[-_./:])(?:unit|py)?tests?(?:$|[-_./:\d])", re.I)
# A command that handles test results rather than running tests (upload-test-results).
_RESULTS_COMMAND = re.compile(r"result|report|upload|summar|coverage|artifact|junit", re.I)


def test_command(name: str) -> Callee | None:
    """A command (no path) named like a test runner, other than ``test`` itself."""
    if name == "test" or "/" in name or "$" in name or not TEST_WORD.search(name):
        return None
    if _RESULTS_COMMAND.search(name):
        return None
    return Callee("command", name, ())


def _python(rest: Sequence[str], depth: int = 0) -> Callee | None:
    """``python [options] -m MODULE`` or ``python SCRIPT``."""
    j = 0
    while j < len(rest) and rest[j].startswith("-") and rest[j] != "-":
        word = rest[j]
        if word == "-m" and j + 1 < len(rest):
            return _module(rest[j + 1], rest[j + 2 :], depth)
        if word.startswith("-m") and len(word) > 2:
            return _module(word[2:], rest[j + 1 :], depth)
        if word.startswith("-c"):
            return None
        j += 2 if word in ("-W", "-X") else 1
    if j >= len(rest):
        return None
    script = rest[j]
    after = rest[j + 1 :]
    if basename(script) in ("setup.py", "manage.py", "runtests.py") and after[:1] == ["test"]:
        return Callee("runner", f"python {basename(script)} test", tuple(after[1:]), 1)
    if script.endswith(".py") or "/" in script.strip("./"):  # python scripts/ci/run-tests
        return Callee("script", f"python {script}", tuple(after), path=script)
    return None


def _module(module: str, rest: Sequence[str], depth: int = 0) -> Callee | None:
    if module in _TEST_MODULES:
        return Callee("runner", f"python -m {module}", tuple(rest), 1)
    parts = module.split(".")
    if "tests" in parts or "test" in parts:  # python -m mypkg.tests, python -m test
        return Callee("runner", f"python -m {module}", tuple(rest), 1)
    if module in ("nox", "tox"):
        kind: CalleeKind = "nox" if module == "nox" else "tox"
        return Callee(kind, f"python -m {module}", tuple(rest))
    if module == "invoke":
        return _task("invoke", rest, _TASK_RUNNERS["invoke"])
    if module in _MANAGERS:  # python -m uv run ..., python -m hatch run TASK
        return _manager(module, rest, depth)
    return None


def _make(rest: Sequence[str]) -> Callee:
    goals = [w for w in _operands(rest, _MAKE_VALUES) if "=" not in w]
    name = " ".join(["make", *goals[:3]])
    return Callee("make", name, tuple(rest), status=2)


def _subcommand(name: str, rest: Sequence[str]) -> Callee | None:
    subcommands, status = _TEST_SUBCOMMANDS[name]
    words = [w for w in rest if not w.startswith("-")]
    if words and words[0] in subcommands:
        return Callee("runner", f"{name} {words[0]}", tuple(rest), status)
    return None


def _task(runner: str, rest: Sequence[str], values: frozenset[str]) -> Callee | None:
    operands = _operands(rest, values)
    task = operands[0] if operands else "default"
    return Callee("task", f"{runner} {task}", (task, *operands[1:]), runner=runner)


def _manager(name: str, rest: Sequence[str], depth: int) -> Callee | None:
    """``hatch run TASK``, ``npm test``, ``uv run COMMAND``...: a task of the project,
    or the command the environment manager runs."""
    subcommand, values = _MANAGERS[name]
    if name in ("npm", "yarn", "pnpm", "bun") and rest and rest[0] in _NODE_TEST:
        return Callee("task", f"{name} test", ("test", *rest[1:]), runner=name)
    j = 0
    while j < len(rest) and rest[j].startswith("-"):
        j += 2 if rest[j] in values else 1
    if j >= len(rest):
        return None
    if rest[j] != subcommand:
        if name in ("yarn", "pdm", "pixi") and not rest[j].startswith("-"):
            return Callee("task", f"{name} {rest[j]}", tuple(rest[j:]), runner=name)
        return None
    j += 1
    module = False  # uv run -m MODULE, pdm run -m MODULE: the operand is a module
    while j < len(rest) and rest[j].startswith(("-", "+")):
        module = module or rest[j] in ("-m", "--module")
        j += 2 if rest[j] in values and "=" not in rest[j] else 1
    if j >= len(rest):
        return None
    if module:
        return _module(rest[j], rest[j + 1 :], depth + 1)
    inner = callee_of(rest[j:], depth + 1)
    if inner is not None or name not in _TASKS_OF_MANAGER:
        return inner
    return Callee("task", f"{name} run {rest[j]}", tuple(rest[j:]), runner=name)


def _container(name: str, rest: Sequence[str], depth: int) -> Callee | None:
    """The callee of the command a container runs, or the container itself when it runs
    the image's (or the compose service's) own command."""
    values = [name, *rest]
    index, image = container_command(values, 0)
    if not image:
        return None
    if index is None:
        subcommand = (
            "compose run" if "compose" in values[:2] or name.endswith("-compose") else "run"
        )
        return Callee("container", f"{name} {subcommand} {image}", (image,))
    return callee_of(values[index:], depth + 1)


def _image_command(
    name: str, words: Sequence[str], subcommand: str, values: frozenset[str], depth: int
) -> Callee | None:
    """``singularity exec [options] IMAGE COMMAND...``."""
    if not words or words[0] != subcommand:
        return None
    j = skip_options(words, 1, values)
    if j + 1 >= len(words):
        return None
    return callee_of(words[j + 1 :], depth + 1)


def _after_dashes(name: str, rest: Sequence[str], subcommand: str, depth: int) -> Callee | None:
    """``kubectl exec POD -- COMMAND``."""
    if subcommand not in rest or "--" not in rest:
        return None
    return callee_of(rest[rest.index("--") + 1 :], depth + 1)


def _remote(rest: Sequence[str], depth: int) -> Callee | None:
    """``ssh [options] HOST COMMAND...`` (a one-word command string is read as words)."""
    j = skip_options(rest, 0, SSH_VALUES)
    command = list(rest[j + 1 :])
    if len(command) == 1:
        command = command[0].split()
    return callee_of(command, depth + 1) if command else None


def _shell_script(name: str, rest: Sequence[str]) -> Callee | None:
    """``bash [options] SCRIPT [args]`` and ``source SCRIPT``: ``bash -c`` strings are
    parsed as scripts of their own by the parser, not here."""
    j = 0
    while j < len(rest) and rest[j].startswith(("-", "+")):
        if "c" in rest[j][1:] and not rest[j].startswith("--"):
            return None
        j += 2 if rest[j] == "-o" else 1
    if j >= len(rest) or "$" in rest[j]:
        return None
    return Callee("script", f"{name} {rest[j]}", tuple(rest[j + 1 :]), path=rest[j])


def _is_script(word: str) -> bool:
    """A repository file run as a program: a path (``./ci/test``, ``scripts/run.sh``)."""
    if "$" in word or "=" in word:
        return False
    if word.endswith(_SCRIPT_SUFFIXES):
        return True
    return _PATH_SCRIPT.fullmatch(word) is not None and not word.startswith("/usr/")


def _operands(words: Sequence[str], values: frozenset[str]) -> list[str]:
    """The words that are not options nor option values."""
    found: list[str] = []
    j = 0
    while j < len(words):
        word = words[j]
        if word.startswith("-"):
            j += 2 if word in values else 1
            continue
        found.append(word)
        j += 1
    return found
