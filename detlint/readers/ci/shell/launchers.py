"""Which shell commands run pytest, and which of their words are pytest's arguments.

pytest is rarely run as plain ``pytest``: CI commands go through ``python -m``, ``uv
run``, ``tox -e ENV --``, ``hatch test``, ``coverage run -m``, a container... behind
``timeout 600`` or ``xvfb-run`` (``wrappers.py``), or ``python -m uv``. Each launcher
has options of its own, and only the words after them reach pytest; ``hatch test``
renames some (``--retries N`` is ``--reruns N``). Words are read after quote removal;
``dynamic[i]`` says that word ``i`` holds a shell expansion.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from detlint.readers.ci.shell.containers import CONTAINERS, container_command
from detlint.readers.ci.shell.wrappers import Wrapped, basename, join_dir, unwrap, word_set


@dataclass(frozen=True)
class Launch:
    """How a command runs pytest.

    ``args`` are pytest's arguments as ``(word, index of the command word it
    comes from)``; a launcher may rewrite one (``hatch test --retries 2`` hands
    pytest ``--reruns 2``). ``env`` holds ``env NAME=value`` assignments,
    ``chdir`` a working directory set by the launcher (``uv run --directory``).
    """

    launcher: str
    args: tuple[tuple[str, int], ...]
    env: tuple[tuple[str, str], ...] = ()
    wrappers: tuple[str, ...] = ()
    tox_env: str | None = None
    chdir: str | None = None


@dataclass
class _Builder(Wrapped):
    """What ``recognise_launcher`` has found so far."""

    launcher: str = ""
    args: list[tuple[str, int]] = field(default_factory=list)
    tox_env: str | None = None

    def found(self, launcher: str, values: Sequence[str], start: int) -> bool:
        self.launcher, self.args = launcher, [(values[k], k) for k in range(start, len(values))]
        return True


_PYTEST_NAME = re.compile(r"py\.?test(?:-?3(?:\.\d+)?)?(?:\.exe|\.py)?")  # .py: `pypy pytest.py`
_PYTEST_MODULES = frozenset({"pytest", "py.test"})  # what python -m accepts
_PYTHON_NAME = re.compile(r"(?:python|pypy)(?:\d+(?:\.\d+)*t?)?(?:\.exe)?|py")
# Text without any of these runs no pytest: recognise_launcher (and the shell reader,
# before lexing) need not look further; ``has_launcher_hint`` asks it without a regex.
LAUNCHER_HINT = re.compile(r"py\.?test|tox|hatch")


def has_launcher_hint(text: str) -> bool:
    """Whether ``LAUNCHER_HINT`` occurs in ``text``."""
    return "pytest" in text or "py.test" in text or "tox" in text or "hatch" in text


@dataclass(frozen=True)
class _Runner:
    """An environment manager that runs a command: ``uv run``, ``poetry run``..."""

    subcommands: frozenset[str]  # what runs a command, usually "run"; empty for uvx
    global_values: frozenset[str] = frozenset()  # options before the subcommand taking a value
    run_values: frozenset[str] = frozenset()  # options after it taking a value
    chdir: frozenset[str] = frozenset()  # options that change the working directory


_UV_RUN_VALUES = word_set(
    "--with --with-editable --with-requirements --python -p --extra --group --only-group"
    " --no-group --package --project --directory --env-file --index --index-url -i"
    " --extra-index-url --find-links -f --default-index --index-strategy --keyring-provider"
    " --resolution --prerelease --exclude-newer --link-mode --config-setting -C"
    " --refresh-package --upgrade-package -P --reinstall-package --no-binary-package"
    " --no-build-package --python-platform --color --cache-dir --config-file --from --spec"
    " --allow-insecure-host --pip-args"
)
_CONDA = _Runner(
    frozenset({"run"}), run_values=word_set("-n --name -p --prefix --cwd"), chdir=word_set("--cwd")
)
_RUNNERS: dict[str, _Runner] = {
    "uv": _Runner(
        frozenset({"run", "tool run"}),
        word_set("--directory --project --cache-dir --config-file --color"),
        _UV_RUN_VALUES,
        frozenset({"--directory"}),
    ),
    "uvx": _Runner(frozenset(), run_values=_UV_RUN_VALUES),
    "pipx": _Runner(frozenset({"run"}), run_values=_UV_RUN_VALUES),
    "poetry": _Runner(
        frozenset({"run"}),
        word_set("-C --directory -P --project"),
        chdir=word_set("-C --directory"),
    ),
    "pipenv": _Runner(frozenset({"run"}), word_set("--python")),
    "pdm": _Runner(frozenset({"run"}), run_values=word_set("-p --project --venv")),
    "rye": _Runner(frozenset({"run"})),
    "pixi": _Runner(frozenset({"run"}), run_values=word_set("-e --environment --manifest-path")),
    "conda": _CONDA,
    "mamba": _CONDA,
    "micromamba": _CONDA,
}

_HATCH_GLOBAL_VALUES = word_set("-e --env -p --project --data-dir --cache-dir --config")
# hatch test's own options (pypa/hatch src/hatch/cli/test/__init__.py); it hands
# --retries N and --retry-delay S to pytest-rerunfailures as --reruns/--reruns-delay.
_HATCH_TEST_VALUES: dict[str, str | None] = {
    "--retries": "--reruns",
    "--retry-delay": "--reruns-delay",
    "--python": None,
    "-py": None,
    "--include": None,
    "-i": None,
    "--exclude": None,
    "-x": None,
}
_HATCH_TEST_FLAGS = word_set(
    "-r --randomize -p --parallel -c --cover --cover-quiet -a --all -s --show"
)
_TOX_SUBCOMMANDS = word_set("run r run-parallel p legacy le")
_TOX_VALUES = word_set(
    "-c --conf --root --workdir -x --override --installpkg --hashseed -m -f --result-json"
    " --exit-and-dump-after --runner --colored -i --index-url --skip-env"
)
_TOX_OPTIONAL_VALUES = word_set("-p --parallel --skip-missing-interpreters")
_COVERAGE_RUN_VALUES = word_set(
    "--source --rcfile --data-file --concurrency --context --include --omit --debug"
)


def recognise_launcher(values: Sequence[str], dynamic: Sequence[bool] = ()) -> Launch | None:
    """Whether the command ``values`` (a simple command's words after its leading
    ``NAME=value`` assignments) runs pytest, and how: ``pytest`` (any path), ``python
    -m pytest``, ``coverage run -m pytest``, ``tox [-e ENV] [-- args]``, ``hatch test``,
    ``hatch run [ENV:]pytest``, ``uv run``/``poetry run``/``pdm run``/``pixi run``/``conda
    run``... and a container's command (``docker run IMAGE pytest``), each possibly behind
    ``env``, ``sudo``, ``timeout``, ``xvfb-run``... A ``$PYTHON -m pytest`` counts. Not:
    ``pip install pytest``, ``echo pytest``, ``command -v pytest``, ``nox``, ``make
    test`` (``runners.py`` reads those).
    """
    if not values or not has_launcher_hint(" ".join(values)):
        return None
    return launcher_of(values, dynamic)


def launcher_of(values: Sequence[str], dynamic: Sequence[bool] = ()) -> Launch | None:
    """``recognise_launcher`` for a non-empty list of words, without its first
    test: the shell walk asks ``has_launcher_hint`` itself, once per command."""
    # The two shapes nearly every CI command has, read as _launch reads them (no
    # wrapper is named like pytest or python): "pytest ...", "python -m pytest ...".
    name = basename(values[0])
    if _PYTEST_NAME.fullmatch(name):
        return Launch(name, tuple(zip(values[1:], range(1, len(values)), strict=True)))
    if (
        len(values) > 2
        and values[1] == "-m"
        and values[2] in _PYTEST_MODULES
        and _PYTHON_NAME.fullmatch(name)
    ):
        args = tuple(zip(values[3:], range(3, len(values)), strict=True))
        return Launch(f"{name} -m {values[2]}", args)
    return read_launcher(values, dynamic)


def read_launcher(values: Sequence[str], dynamic: Sequence[bool] = ()) -> Launch | None:
    """The general reading behind ``launcher_of``: every wrapper, runner and shape."""
    builder = _Builder()
    if not _launch(values, dynamic, 0, builder, ""):
        return None
    return Launch(
        builder.launcher,
        tuple(builder.args),
        tuple(builder.env),
        tuple(builder.wrappers),
        builder.tox_env,
        builder.chdir,
    )


def _skip_options(
    values: Sequence[str],
    j: int,
    takes_value: frozenset[str],
    chdir: frozenset[str],
    builder: _Builder,
) -> int:
    """Step over options starting at ``j``; returns the index of the first other word."""
    while j < len(values):
        word = values[j]
        if word == "--":
            return j + 1
        if not word.startswith("-") or word == "-":
            return j
        name, eq, value = word.partition("=")
        if eq and name in chdir:
            builder.chdir = join_dir(builder.chdir, value)
        if word in takes_value:
            if word in chdir and j + 1 < len(values):
                builder.chdir = join_dir(builder.chdir, values[j + 1])
            j += 2
        else:
            j += 1
    return j


def _launch(
    values: Sequence[str], dynamic: Sequence[bool], i: int, builder: _Builder, prefix: str
) -> bool:
    """Whether the command from ``values[i]`` runs pytest, noting how in ``builder``;
    ``prefix`` is the launcher as written so far (``"uv run "``)."""
    found = unwrap(values, i, builder)
    if found is None:
        return False
    i = found
    name = basename(values[i])
    head = f"{prefix}{name}"
    if _PYTEST_NAME.fullmatch(name):
        return builder.found(head, values, i + 1)
    expansion = i < len(dynamic) and dynamic[i]
    if _PYTHON_NAME.fullmatch(name) or (expansion and values[i + 1 : i + 2] == ["-m"]):
        return _python(values, dynamic, i + 1, builder, head)
    if name == "coverage":
        return _coverage(values, i + 1, builder, head)
    if name == "tox":
        return _tox(values, dynamic, i + 1, builder, head)
    if name == "hatch":
        return _hatch(values, dynamic, i + 1, builder, head)
    runner = _RUNNERS.get(name)
    if runner is None:
        if name in CONTAINERS:  # docker run IMAGE pytest, docker compose run SERVICE pytest
            inner, _ = container_command(values, i)
            if inner is not None:
                builder.wrappers.append(" ".join(values[i:inner]))
                return _launch(values, dynamic, inner, builder, "")
        return False
    j = i + 1
    if runner.subcommands:
        j = _skip_options(values, j, runner.global_values, runner.chdir, builder)
        two = " ".join(values[j : j + 2])
        if two in runner.subcommands:  # uv tool run
            head = f"{head} {two}"
            j += 2
        elif j < len(values) and values[j] in runner.subcommands:
            head = f"{head} {values[j]}"
            j += 1
        else:
            return False
    options_start = j
    j = _skip_options(values, j, runner.run_values, runner.chdir, builder)
    if j >= len(values):
        return False
    if {"-m", "--module"} & set(values[options_start:j]) and values[j] in _PYTEST_MODULES:
        return builder.found(f"{head} -m {values[j]}", values, j + 1)  # uv run -m pytest
    return _launch(values, dynamic, j, builder, head + " ")


def _python(
    values: Sequence[str], dynamic: Sequence[bool], j: int, builder: _Builder, head: str
) -> bool:
    """``python [options] -m pytest|coverage|tox ...`` or ``python path/to/pytest``."""
    module = None
    while j < len(values) and values[j].startswith("-") and values[j] != "-":
        word = values[j]
        if word == "-m":
            module = values[j + 1] if j + 1 < len(values) else None
            j += 2
            break
        if word.startswith("-m"):
            module = word[2:]
            j += 1
            break
        if word.startswith("-c"):
            return False
        j += 2 if word in ("-W", "-X") else 1
    if module is None:
        script = _pytest_script(values, j)
        return script is not None and builder.found(f"{head} {script}", values, j + 1)
    if module in _PYTEST_MODULES:
        return builder.found(f"{head} -m {module}", values, j)
    if module == "coverage":
        return _coverage(values, j, builder, f"{head} -m coverage")
    if module == "tox":
        return _tox(values, dynamic, j, builder, f"{head} -m tox")
    if module == "hatch" or module in _RUNNERS:  # python -m uv run pytest: as uv run pytest
        words = [*values[: j - 1], module, *values[j:]]
        return _launch(words, dynamic, j - 1, builder, f"{head} -m ")
    return False


def _coverage(values: Sequence[str], j: int, builder: _Builder, head: str) -> bool:
    """``coverage run [options] -m pytest ...`` (or a path to pytest)."""
    if j >= len(values) or values[j] != "run":
        return False
    j += 1
    while j < len(values) and values[j].startswith("-"):
        word = values[j]
        if word == "-m":
            if j + 1 < len(values) and values[j + 1] in _PYTEST_MODULES:
                return builder.found(f"{head} run -m {values[j + 1]}", values, j + 2)
            return False
        j += 2 if word in _COVERAGE_RUN_VALUES else 1
    script = _pytest_script(values, j)
    return script is not None and builder.found(f"{head} run {script}", values, j + 1)


def _pytest_script(values: Sequence[str], j: int) -> str | None:
    """The name of the pytest script at ``values[j]`` (``.venv/bin/pytest``), if it is one."""
    if j >= len(values):
        return None
    name = basename(values[j])
    return name if _PYTEST_NAME.fullmatch(name) else None


def _tox(
    values: Sequence[str], dynamic: Sequence[bool], j: int, builder: _Builder, head: str
) -> bool:
    """``tox [run] [-e ENV] [options] [-- pytest arguments]``.

    The words after ``--`` are tox's ``{posargs}``, which a tox env that runs
    pytest hands on to it. ``tox exec -e ENV -- command`` runs the command after
    ``--`` instead, read here like any other command.
    """
    executes = False
    if j < len(values) and values[j] in _TOX_SUBCOMMANDS:
        head = f"{head} {values[j]}"
        j += 1
    elif j < len(values) and values[j] in ("exec", "e"):
        head = f"{head} {values[j]}"
        executes = True
        j += 1
    envs: list[str] = []
    while j < len(values) and values[j] != "--":
        word = values[j]
        if word in ("-e", "--env") and j + 1 < len(values):
            envs.append(values[j + 1])
            j += 2
        elif word.startswith("-e") and len(word) > 2:
            envs.append(word[2:].removeprefix("="))
            j += 1
        elif word in _TOX_VALUES:
            j += 2
        elif word in _TOX_OPTIONAL_VALUES and j + 1 < len(values):
            following = values[j + 1]
            takes = following.isdigit() or following in ("auto", "all", "true", "false", "config")
            j += 2 if takes else 1
        else:
            j += 1
    builder.tox_env = ",".join(envs) or None
    if builder.tox_env:
        head = f"{head} -e {builder.tox_env}"
    if executes:
        return j + 1 < len(values) and _launch(values, dynamic, j + 1, builder, head + " ")
    return builder.found(head, values, j + 1)


def _hatch(
    values: Sequence[str], dynamic: Sequence[bool], j: int, builder: _Builder, head: str
) -> bool:
    """``hatch run [ENV:]pytest ...`` and ``hatch test [options] [pytest arguments]``."""
    j = _skip_options(values, j, _HATCH_GLOBAL_VALUES, frozenset(), builder)
    if j >= len(values):
        return False
    if values[j] == "run":
        j += 1
        while j < len(values) and values[j][:1] in ("+", "-") and "=" in values[j]:
            j += 1  # matrix selections such as +py=3.11
        if j >= len(values):
            return False
        environment, colon, script = values[j].rpartition(":")
        if colon and _PYTEST_NAME.fullmatch(script):
            return builder.found(f"{head} run {environment}:{script}", values, j + 1)
        return _launch(values, dynamic, j, builder, f"{head} run ")
    if values[j] != "test":
        return False
    builder.launcher = f"{head} test"
    j += 1
    while j < len(values):
        word = values[j]
        if word == "--":
            builder.args.extend((values[k], k) for k in range(j + 1, len(values)))
            break
        name, eq, value = word.partition("=")
        if name in _HATCH_TEST_VALUES:
            renamed = _HATCH_TEST_VALUES[name]
            if eq and renamed:
                builder.args.append((f"{renamed}={value}", j))
            elif renamed and j + 1 < len(values):
                builder.args.extend(((renamed, j), (values[j + 1], j + 1)))
            j += 1 if eq else 2
        else:
            if word not in _HATCH_TEST_FLAGS:
                builder.args.append((word, j))
            j += 1
    return True
