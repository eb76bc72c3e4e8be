"""Commands that run another command, and how to see through them.

A CI command often reaches pytest (or a shell) through something that runs the
rest of its words as a command: ``env FOO=1``, ``sudo -E``, ``timeout 600``,
``xvfb-run -a``, ``nice -n 10``, ``gosu app``... (``skip_wrappers``). Some of them also change
what that command sees: ``env`` sets variables, ``env -C DIR`` and ``sudo -D
DIR`` its working directory (``Wrapped``).

Shells and ``eval`` run a string as a script instead (``script_argument``):
``bash -ec 'pytest | tee log'`` must be read as a script of its own, in a shell
whose errexit and pipefail its flags set. ``set`` uses the same flag letters
(``read_flags``).

Everything here works on words after quote removal, so the launcher reader
(``launchers.py``) and the shell parser share it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field


def word_set(text: str) -> frozenset[str]:
    """The words of ``text``: tables of option names read better written as one string."""
    return frozenset(text.split())


@dataclass
class Wrapped:
    """What the wrappers in front of a command add to it."""

    env: list[tuple[str, str]] = field(default_factory=list)  # env NAME=value, in order
    wrappers: list[str] = field(default_factory=list)  # each as written, e.g. "timeout 600"
    chdir: str | None = None  # the working directory they set (env -C, sudo -D)
    status: int | None = None  # the status a failure of the command reaches the caller as


@dataclass(frozen=True)
class _Wrapper:
    """A command that runs the rest of its words as a command."""

    values: frozenset[str] = frozenset()  # its options that take a value
    operands: int = 0  # words between its options and the command (timeout's duration)
    refuse: frozenset[str] = frozenset()  # options after which nothing runs (command -v)
    chdir: frozenset[str] = frozenset()  # options whose value becomes the working directory


_WRAPPERS: dict[str, _Wrapper] = {
    "sudo": _Wrapper(
        word_set(
            "-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt --close-from --chdir"
            " --role --type --other-user --command-timeout"
        ),
        refuse=word_set("-l --list -v --validate -K -e --edit"),
        chdir=word_set("-D --chdir"),
    ),
    "doas": _Wrapper(word_set("-u -C")),
    # Commands that run the rest as another user, as container images do before tests:
    # ``gosu USER cmd``, ``su-exec USER cmd``, ``run-as UID:GID cmd``, ``runuser -u USER
    # cmd``, ``setpriv --reuid=... cmd``, ``chpst -u USER cmd``, ``chroot DIR cmd``.
    "gosu": _Wrapper(operands=1),
    "su-exec": _Wrapper(operands=1),
    "s6-setuidgid": _Wrapper(operands=1),
    "run-as": _Wrapper(operands=1),
    "runuser": _Wrapper(
        word_set("-u -g -G --user --group --supp-group -w --whitelist-environment")
    ),
    "setpriv": _Wrapper(
        word_set(
            "--reuid --regid --ruid --rgid --euid --egid --groups --inh-caps --ambient-caps"
            " --bounding-set --securebits --pdeathsig --selinux-label --apparmor-profile"
        )
    ),
    "chpst": _Wrapper(word_set("-u -U -b -e -/ -n -l -L -m -d -o -p -f -c -r")),
    "chroot": _Wrapper(word_set("--userspec --groups"), operands=1),
    "exec": _Wrapper(word_set("-a")),
    "command": _Wrapper(refuse=word_set("-v -V")),
    "builtin": _Wrapper(),
    "nohup": _Wrapper(),
    "setsid": _Wrapper(),
    "eatmydata": _Wrapper(),
    "unbuffer": _Wrapper(),
    "chronic": _Wrapper(),
    "catchsegv": _Wrapper(),
    "dbus-run-session": _Wrapper(),
    "nice": _Wrapper(word_set("-n --adjustment")),
    "ionice": _Wrapper(word_set("-c -n --class --classdata")),
    "stdbuf": _Wrapper(word_set("-i -o -e --input --output --error")),
    "taskset": _Wrapper(operands=1),
    "time": _Wrapper(word_set("-f --format -o --output")),
    "timeout": _Wrapper(word_set("-s --signal -k --kill-after"), operands=1),
    # xargs runs the command once per batch of input lines: a failing run turns its
    # status into 123 (``XARGS_FAILED``).
    "xargs": _Wrapper(
        word_set(
            "-a -d -E -I -L -n -P -s --arg-file --delimiter --eof --max-lines --max-args"
            " --max-procs --max-chars --process-slot-var"
        )
    ),
    "flock": _Wrapper(word_set("-w --timeout -E --conflict-exit-code"), operands=1),
    "xvfb-run": _Wrapper(
        word_set(
            "-e --error-file -f --auth-file -n --server-num -p --xauth-protocol -s --server-args"
            " -w --wait"
        )
    ),
}

XARGS_FAILED = 123  # xargs's status when a command it ran exited with 1-125


def through_xargs(wrappers: Sequence[str]) -> bool:
    """Whether one of the wrappers in front of a command is ``xargs``."""
    return any(basename(wrapper.split()[0]) == "xargs" for wrapper in wrappers if wrapper)


_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
# Test services' clients that run the command after "--" and report its results.
_DASHDASH_WRAPPERS = frozenset({"trunk-analytics-cli", "trunk", "buildkite-test-collector"})
_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh"})
_SCRIPT_RUNNER_ENDINGS = ("sh", "eval")  # how "eval" and every name in _SHELLS end


def basename(path: str) -> str:
    """The last component of a command's path, as ``posixpath.basename`` gives it;
    inlined because every word that may name a command goes through it."""
    return path[path.rfind("/") + 1 :]


def join_dir(cwd: str | None, directory: str) -> str | None:
    """``cd directory`` from ``cwd`` (None: where the step started), as written and
    normalised; None again when the result is the starting directory."""
    if directory in ("", "~"):
        return "~"
    if directory.startswith(("/", "~", "$")) or cwd is None:
        joined = directory
    else:
        joined = posixpath.join(cwd, directory)
    normal = posixpath.normpath(joined)
    return None if normal == "." else normal


def skip_wrappers(values: Sequence[str], start: int = 0) -> int | None:
    """The index of the command that ``env``/``sudo``/``timeout``... in front of
    ``values[start]`` run; None when they run nothing (``command -v x``)."""
    return unwrap(values, start, Wrapped())


def unwrap(values: Sequence[str], i: int, wrapped: Wrapped) -> int | None:
    """``skip_wrappers`` from ``values[i]``, noting in ``wrapped`` what the wrappers add."""
    for _ in range(16):
        if i >= len(values):
            return None
        name = basename(values[i])
        if name == "env":
            i = _skip_env(values, i + 1, wrapped)
            continue
        if name in _DASHDASH_WRAPPERS and "--" in values[i + 1 :]:
            # trunk-analytics-cli test [options] -- pytest ...: the command after "--".
            j = list(values).index("--", i + 1) + 1
            wrapped.wrappers.append(" ".join(values[i : j - 1]))
            i = j
            continue
        wrapper = _WRAPPERS.get(name)
        if wrapper is None:
            if name.endswith(".sh"):
                # run_in_docker.sh bash -c '...', ./env.sh VAR=x pytest: a script that runs
                # what it is handed, after the assignments it is handed (an env setter).
                j = i + 1
                while j < len(values) and _ASSIGNMENT.match(values[j]):
                    j += 1
                if j < len(values) and _runs_commands(values[j]):
                    wrapped.wrappers.append(" ".join(values[i:j]))
                    for word in values[i + 1 : j]:
                        assignment = _ASSIGNMENT.match(word)
                        if assignment is not None:
                            wrapped.env.append((assignment.group(1), word[assignment.end() :]))
                    i = j
                    continue
            return i
        j = i + 1
        while j < len(values) and values[j].startswith("-") and values[j] != "-":
            word = values[j]
            if word == "--":
                j += 1
                break
            if word.partition("=")[0] in wrapper.refuse:
                return None
            if word in wrapper.values:
                if word in wrapper.chdir and j + 1 < len(values):
                    wrapped.chdir = join_dir(wrapped.chdir, values[j + 1])
                j += 2
            else:
                j += 1
        j += wrapper.operands
        wrapped.wrappers.append(" ".join(values[i:j]))
        if name == "xargs":
            wrapped.status = XARGS_FAILED
        i = j
    return i


# What a repository script handed a command as its arguments is handed: a shell,
# Python or pytest, or a launcher that runs them (``ci/in_docker.sh python -m pytest``).
_HANDED = re.compile(
    r"(?:ba|da|z|k)?sh|(?:python|pypy)(?:\d+(?:\.\d+)*)?|py\.?test(?:-?3)?"
    r"|uv|uvx|tox|nox|hatch|poetry|pdm|pixi|conda|micromamba|coverage|make|timeout|env|xvfb-run"
)


def _runs_commands(word: str) -> bool:
    """Whether a script's first argument names a command: ``docker_run.sh bash -c
    '...'`` and ``with_gpu.sh pytest tests`` run it (the script passes ``"$@"`` on),
    where ``deploy.sh staging`` hands it a name."""
    return _HANDED.fullmatch(basename(word)) is not None


def _skip_env(values: Sequence[str], j: int, wrapped: Wrapped) -> int:
    """``env [-i] [-u NAME] [-C DIR] [NAME=value]... command``."""
    while j < len(values):
        word = values[j]
        if word in ("-u", "--unset", "-C", "--chdir"):
            if word in ("-C", "--chdir") and j + 1 < len(values):
                wrapped.chdir = join_dir(wrapped.chdir, values[j + 1])
            j += 2
        elif word.startswith("--chdir="):
            wrapped.chdir = join_dir(wrapped.chdir, word.partition("=")[2])
            j += 1
        elif word.startswith(("-S", "--split-string")):
            return len(values)  # env -S "cmd args": one string, not read
        elif word.startswith("-"):
            j += 1
        else:
            assignment = _ASSIGNMENT.match(word)
            if assignment is None:
                break
            wrapped.env.append((assignment.group(1), word[assignment.end() :]))
            j += 1
    return j


def script_argument(values: Sequence[str]) -> tuple[int, tuple[bool, bool] | None] | None:
    """Where the script string of a command is: the index of ``STRING`` in
    ``bash -c STRING`` with the errexit and pipefail that shell starts with, or
    of the first word after ``eval`` (run in the current shell: None)."""
    # Only a word naming eval or a shell (all of which end in "sh") can start a
    # script string; most commands have none, and need no unwrapping.
    for value in values:
        if value.endswith(_SCRIPT_RUNNER_ENDINGS):
            break
    else:
        return None
    index = skip_wrappers(values)
    if index is None or index >= len(values):
        return None
    name = basename(values[index])
    if name == "eval" and index + 1 < len(values):
        return index + 1, None
    if name not in _SHELLS:
        return None
    errexit = pipefail = has_c = False
    i = index + 1
    while i < len(values):
        value = values[i]
        if value == "--":
            i += 1
            break
        if value.startswith("--"):  # --norc, --noprofile, --login
            i += 1
            continue
        if len(value) < 2 or value[0] not in "-+":
            break
        settings, letters, i = read_flags(values, i)
        errexit = settings.get("errexit", errexit)
        pipefail = settings.get("pipefail", pipefail)
        has_c = has_c or "c" in letters
        i += 1
    if not has_c or i >= len(values):
        return None
    return i, (errexit, pipefail)


def shell_options(words: Sequence[str]) -> tuple[bool, bool]:
    """(errexit, pipefail) a shell's command line sets (``/bin/bash -eo pipefail``,
    ``bash --noprofile --norc -e -o pipefail {0}``): its flag words, each read as
    ``set`` reads it."""
    errexit = pipefail = False
    i = 1
    while i < len(words):
        word = words[i]
        if len(word) > 1 and word[0] in "-+" and not word.startswith("--"):
            settings, _, i = read_flags(words, i)
            errexit = settings.get("errexit", errexit)
            pipefail = settings.get("pipefail", pipefail)
        i += 1
    return errexit, pipefail


def read_flags(values: Sequence[str], i: int) -> tuple[dict[str, bool], str, int]:
    """Read the flag word ``values[i]`` of ``set`` or of a shell's command line
    (``-e``, ``+e``, ``-eo pipefail``, ``-ec``), which use the same letters.

    Returns the errexit and pipefail settings it makes (True: on), its other
    letters (``c``), and the index of the last word it used (``-o`` takes the
    next word as an option name).
    """
    word = values[i]
    on = word[0] == "-"
    settings: dict[str, bool] = {}
    letters = ""
    for letter in word[1:]:
        if letter == "e":
            settings["errexit"] = on
        elif letter == "o" and i + 1 < len(values):
            i += 1
            if values[i] in ("errexit", "pipefail"):
                settings[values[i]] = on
        else:
            letters += letter
    return settings, letters, i
