"""The files a CI command hands control to, read once each: scripts, tox, Makefiles.

A step often runs pytest one level down: ``./ci/test.sh``, ``tox -e py311``,
``make test``. ``Follower`` reads those files for ``calls.py``, which follows a
command's calls through them (and through tasks and Python wrappers) to the runs
they hold: a shell script as a script (a new bash without errexit, with the options
the files it sources set), a Makefile's recipe lines (each a shell of its own), and
``tox -e ENV`` as the ``commands`` of that environment in tox's configuration
(``tox.ini``, else ``setup.cfg``, pyproject.toml's ``[tool.tox]`` or ``tox.toml``) with
``{posargs}`` replaced by what follows ``--`` (in ``changedir``, seeing only the
variables tox passes; a bare ``tox`` runs the envlist, or the environments a
``[gh-actions]`` mapping names for tox-gh-actions; a name set at run time, each
environment it may name). Files are read once however many steps call them.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from detlint.base.paths import join, mounted_tail
from detlint.base.span import Span
from detlint.readers.ci.commands.makefile import Makefile, read_makefile
from detlint.readers.ci.commands.sourced import inline_sourced_options
from detlint.readers.ci.facts import EnvSetting
from detlint.readers.ci.shell.commands import CommandFacts, PytestRun, read_command
from detlint.readers.tox.config_file import TOX_CONFIG_FILES, ToxSettings, read_tox_config
from detlint.readers.tox.ini_format import (
    ToxCommand,
    ToxEnv,
    substitute,
)

_MAKE_VALUES = frozenset({"-C", "--directory", "-f", "--file", "--makefile", "-o", "-W", "-I"})
_PYTEST_NAME = re.compile(r"py\.?test(?:-?3(?:\.\d+)?)?(?:\.exe)?")


@dataclass(frozen=True)
class Followed:
    """A pytest run written in a file a CI command calls.

    ``directory`` is the repository directory its commands start in (None: the
    caller's), ``env`` the variables it sees (None: the caller's; tox passes only
    some), and ``sources`` the command lines its rerun options come from, in the
    order pytest reads them (empty: the run itself, at ``span``).
    """

    run: PytestRun
    span: Span
    directory: str | None = None
    env: tuple[EnvSetting, ...] | None = None
    sources: tuple[tuple[PytestRun, Span], ...] = ()
    # Where it runs, when the call may not reach it: in a tox environment or nox session
    # the step's selection, known only at run time, may name.
    condition: str | None = None


def runs_tox_commands(launcher: str) -> bool:
    """Whether a launcher is tox running an environment's ``commands`` (``tox -e py``,
    ``python -m tox``), not ``tox exec -- pytest`` (which runs the command it is given)."""
    if "tox" not in launcher:
        return False
    words = launcher.split()
    if "tox" not in words:
        return False
    after = words[words.index("tox") + 1 : words.index("tox") + 2]
    return after not in (["exec"], ["e"]) and not _PYTEST_NAME.fullmatch(words[-1])


class Follower:
    """Reads the files CI commands call; ``read_file`` gives a repository file's text."""

    def __init__(
        self, read_file: Callable[[str], str | None], display: Callable[[str], str]
    ) -> None:
        self.read_file = read_file
        self.display = display
        self._scripts: dict[str, CommandFacts | None] = {}
        self._tox: dict[str, ToxSettings | None] = {}
        self._makefiles: dict[str, Makefile | None] = {}
        self._lines: dict[str, CommandFacts] = {}
        self._texts: dict[str, str | None] = {}

    def located(self, written: str, directory: str) -> str:
        """A script path as written, from ``directory``, as a repository path ("" when an
        absolute path names no file here)."""
        return self.mounted(written) if written.startswith("/") else join(directory, written)

    def mounted(self, written: str) -> str:
        """An absolute script path as a repository path: the longest tail of it that is a
        file here (``/workspace/<repo>/ci/test.sh`` is ``ci/test.sh`` where the CI image
        mounts the checkout), or "" when none is."""
        return mounted_tail(written, lambda path: self._text(path) is not None) or ""

    def tox(
        self, run: PytestRun, at: Span, directory: str, base: str, env: Sequence[EnvSetting]
    ) -> list[Followed] | None:
        """The pytest runs of the tox environments ``run`` (a tox launcher written at
        ``at``, started in ``directory``) runs, or None when no configuration of tox
        (``TOX_CONFIG_FILES``) configures them
        (the run is then read as the pytest run tox stands for). An environment name
        the step decides at run time (``tox -e "$SUITE"``) may be any of them: each
        environment the configuration defines that it may name is followed, its runs
        saying so where they differ from one environment to another."""
        if not runs_tox_commands(run.launcher):
            return None
        path = self.find(directory, base, TOX_CONFIG_FILES, self._tox_config)
        config = self._tox_config(path) if path is not None else None
        if path is None or config is None:
            return None
        known, unknown = _chosen(run, config, env)
        if not unknown and not any(map(config.env, known)):
            return None
        shown = self.display(path)
        found: list[Followed] = []
        for tox_env in filter(None, map(config.env, known)):
            found += self._tox_runs(tox_env, run, at, env, shown, path)
        for written in unknown:
            names = [n for n in config.defined_envs if n not in known and _may_name(written, n)]
            if not names:  # none defined: tox makes it from [testenv] and its factors
                names = [written]
            by_runs: dict[tuple[Followed, ...], list[str]] = {}
            for name in names:
                named = config.env(name)
                runs = self._tox_runs(named, run, at, env, shown, path) if named else []
                by_runs.setdefault(tuple(runs), []).append(name)
            if len({tuple((f.run, f.span, f.directory) for f in r) for r in by_runs}) == 1:
                found += next(iter(by_runs))  # each it may name runs the same: no condition
                continue
            for held, group in by_runs.items():
                where = _selected_env(group)
                found += [dataclasses.replace(item, condition=where) for item in held]
        return found

    def _tox_runs(
        self,
        tox_env: ToxEnv,
        run: PytestRun,
        at: Span,
        env: Sequence[EnvSetting],
        shown: str,
        path: str,
    ) -> list[Followed]:
        """The pytest runs of one tox environment's commands, ``path`` the file that
        configures it (``shown`` as displayed)."""
        tox_dir, file = posixpath.split(path)
        start = tox_dir
        if tox_env.changedir:
            start = join(tox_dir, substitute(tox_env.changedir, None, tox_dir, tox_env.name))
        seen = self._tox_env(tox_env, env, shown, tox_dir)
        found: list[Followed] = []
        for command in tox_env.commands:
            posargs = run.args if "{posargs" in command.text else None
            full = self.line(substitute(command.text, posargs, tox_dir, tox_env.name))
            own = self.line(substitute(command.text, None, tox_dir, tox_env.name))
            span = Span(shown, command.line, command.column, command.end_line, command.end_column)
            for index, inner in enumerate(full.runs):
                written = own.runs[index] if index < len(own.runs) else inner
                sources = ((written, span), (run, at)) if posargs else ((written, span),)
                masked, where = _tox_masking(run, command, tox_env, inner, file)
                inner = dataclasses.replace(inner, masked=masked, masked_at=None)
                found.append(Followed(inner, at if where else span, start, seen, sources))
        return found

    def _tox_env(
        self, tox_env: ToxEnv, env: Sequence[EnvSetting], shown: str, tox_dir: str
    ) -> tuple[EnvSetting, ...]:
        """What the commands of ``tox_env`` see: the caller's variables tox passes,
        then those ``set_env`` sets (located where tox's settings are)."""
        passed = [setting for setting in env if tox_env.passes(setting.name)]
        for name, value, line in tox_env.set_env:
            text = substitute(value, None, tox_dir, tox_env.name)
            end = line.column + len(line.text)
            passed.append(
                EnvSetting(name, text, Span(shown, line.line, line.column, line.line, end))
            )
        return tuple(passed)

    def line(self, text: str) -> CommandFacts:
        """One command of a tox environment or one recipe line: a shell of its own."""
        found = self._lines.get(text)
        if found is None:
            found = self._lines[text] = read_command(text, errexit=False, pipefail=False)
        return found

    def script(self, path: str) -> CommandFacts | None:
        """A repository shell script as read, with the options the files it sources set
        (``sourced.py``); None when it is not there."""
        if path not in self._scripts:
            text = self._text(path)
            if text is not None:
                text = inline_sourced_options(text, path, self._text)
            self._scripts[path] = (
                None if text is None else read_command(text, errexit=False, pipefail=False)
            )
        return self._scripts[path]

    def _tox_config(self, path: str) -> ToxSettings | None:
        if path not in self._tox:
            text = self._text(path)
            name = posixpath.basename(path)
            self._tox[path] = None if text is None else read_tox_config(name, text)
        return self._tox[path]

    def makefile(self, path: str) -> Makefile | None:
        if path not in self._makefiles:
            text = self._text(path)
            self._makefiles[path] = None if text is None else read_makefile(text)
        return self._makefiles[path]

    def text(self, path: str) -> str | None:
        """A repository file's text (read once), None when it is not there."""
        return self._text(path)

    def _text(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = self.read_file(path)
        return self._texts[path]

    def find(
        self,
        directory: str,
        top: str,
        names: Sequence[str],
        holds: Callable[[str], object] | None = None,
    ) -> str | None:
        """The first of ``names`` in ``directory`` or a parent of it up to ``top``; with
        ``holds``, only a file for which it answers something else than None counts."""
        current = directory
        while True:
            for name in names:
                path = join(current, name)
                if self._text(path) is not None and (holds is None or holds(path) is not None):
                    return path
            if current == top or not current:
                return None
            current = posixpath.dirname(current)
            if top and current != top and not current.startswith(top + "/"):
                return None  # above the checkout


# A name (a tox environment, a nox session) the shell or the CI system fills in at run time.
RUN_TIME = re.compile(r"[$`]|\{\{|\}\}")
_VARIABLE = re.compile(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")
_RUN_TIME_PART = re.compile(
    r"(\$\{\{.*?\}\}|\$\{[A-Za-z_]\w*\}|\$[A-Za-z_]\w*|\$\([^)]*\)|`[^`]*`)"
)


def _chosen(
    run: PytestRun, config: ToxSettings, env: Sequence[EnvSetting]
) -> tuple[list[str], list[str]]:
    """The environments ``run`` names (``-e``, else ``TOXENV``, else what a bare ``tox``
    runs), a ``$NAME`` read from the variables the step sets literally; and, apart, the
    names the step decides at run time (``${{ matrix.python }}-smoke``)."""
    chosen = run.tox_env or next((s.value for s in reversed(env) if s.name == "TOXENV"), "")
    if "$" in chosen:
        values = {s.name: s.value for s in env if not RUN_TIME.search(s.value)}
        chosen = _VARIABLE.sub(lambda m: values.get(m.group(1) or m.group(2), m.group(0)), chosen)
    names = [name.strip() for name in chosen.split(",") if name.strip()]
    if not names and config.gh_actions_envs:
        return list(config.gh_actions_envs), []  # tox-gh-actions picks them on GitHub
    if not names or "ALL" in names:
        return list(config.envlist or ("py",)), []
    unknown = [name for name in names if RUN_TIME.search(name)]
    return [name for name in names if name not in unknown], unknown


def _may_name(written: str, name: str) -> bool:
    """Whether ``written``, an environment name with parts set at run time, may be
    ``name``: its literal parts are there, in order (``${{ matrix.py }}-smoke`` may be
    ``3.12-smoke``); a part the reader cannot delimit may be anything."""
    pattern = []
    for index, part in enumerate(_RUN_TIME_PART.split(written)):
        if index % 2:
            pattern.append(".*")
        elif RUN_TIME.search(part):
            return True
        else:
            pattern.append(re.escape(part))
    return re.fullmatch("".join(pattern), name) is not None


def _selected_env(names: Sequence[str]) -> str:
    """Where runs of environments a step may select apply: "in tox environment `lint`,
    if the step selects it"."""
    if len(names) == 1:
        return f"in tox environment `{names[0]}`, if the step selects it"
    shown = ", ".join(f"`{name}`" for name in names[:3])
    more = f" and {len(names) - 3} more" if len(names) > 3 else ""
    return f"in tox environments {shown}{more}, if the step selects one of them"


def _tox_masking(
    run: PytestRun, command: ToxCommand, tox_env: ToxEnv, inner: PytestRun, file: str
) -> tuple[str | None, bool]:
    """What hides pytest's failure under tox, and whether it is written in the CI command;
    ``file`` is the name of the file tox's settings are in (tox.ini, setup.cfg, ...)."""
    if run.masked is not None:
        return run.masked, True
    if inner.masked is not None:
        return inner.masked, False
    if command.ignore_status:
        return f"`-` before the command in {file}", False
    if tox_env.ignore_outcome:
        return f"`ignore_outcome = true` in {file}", False
    return None, False


def make_call(
    words: list[str], working: str
) -> tuple[str, str | None, list[str], dict[str, str], bool] | None:
    """make's directory, makefile, goals, ``NAME=value`` overrides and ``-i``."""
    directory, file = working, None
    goals: list[str] = []
    overrides: dict[str, str] = {}
    ignore = False
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        name, eq, value = word.partition("=")
        if word in _MAKE_VALUES and index < len(words):
            value, index = words[index], index + 1
            name, eq = word, "="
        if name in ("-C", "--directory") and eq:
            directory = join(directory, value)
        elif name in ("-f", "--file", "--makefile") and eq:
            file = value
        elif word.startswith("-C") and len(word) > 2:
            directory = join(directory, word[2:])
        elif word in ("-i", "--ignore-errors"):
            ignore = True
        elif word in ("-j", "-l", "--jobs", "--load-average"):
            index += 1 if index < len(words) and words[index].isdigit() else 0
        elif word.startswith("-"):
            continue
        elif eq and re.fullmatch(r"[A-Za-z_][\w.-]*", name):
            overrides[name] = value
        elif "$" in word:
            return None  # a goal the shell computes: unknown
        else:
            goals.append(word)
    return directory, file, goals, overrides, ignore
