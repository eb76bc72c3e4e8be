"""Reading tox's INI configuration statically: the commands a tox environment runs.

The configuration is ``tox.ini``, or failing that a ``setup.cfg`` with a
``[tox:tox]`` section, pyproject.toml's ``[tool.tox]`` or ``tox.toml``, which
tox reads in that order (``config_file.py`` picks the file). The TOML files are read
by ``toml_format.py``: native tables there, or the INI text of pyproject.toml's
``legacy_tox_ini`` string, which is read here.

A CI step that runs ``tox -e py311`` runs pytest only through the ``commands``
of ``[testenv:py311]`` (or of ``[testenv]``), with ``{posargs}`` replaced by
what follows ``--`` on tox's command line, in ``changedir``, and with an
environment tox isolates: only the variables ``pass_env`` names reach the
commands, plus those ``set_env`` sets. So the rerun options, targets and
variables that matter are written here, and a finding about them belongs on
this file's line. The file is read as INI text line by line, never by tox, so
that each command keeps its position; factor conditions (``py311,cov: ...``),
generative env lists (``py3{10,11}``) and backslash continuations are followed.
"""

from __future__ import annotations

import fnmatch
import itertools
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from detlint.base.ini_lines import IniLine, IniOption, ini_options

# What tox 4 passes to commands whatever ``pass_env`` says (on POSIX).
DEFAULT_PASS_ENV = (
    "https_proxy",
    "http_proxy",
    "no_proxy",
    "LANG",
    "LANGUAGE",
    "CURL_CA_BUNDLE",
    "SSL_CERT_FILE",
    "CC",
    "CFLAGS",
    "CCSHARED",
    "CXX",
    "CPPFLAGS",
    "LD_LIBRARY_PATH",
    "LDFLAGS",
    "HOME",
    "PIP_*",
    "VIRTUALENV_*",
)

MAX_NAMES = 256  # environments one generative name may expand to
# A factor condition in front of a value line: "py311,cov: pytest", "!windows: pytest".
_FACTORS = re.compile(r"([!\w{},.-]+):(?:\s+|$)")
_INLINE_COMMENT = re.compile(r"(?<!\\)\s#.*$")
# A {substitution} in a value, or a {a,b} alternative in an environment name.
_BRACES = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True)
class ToxCommand:
    """One command of an environment, as written (substitutions not applied)."""

    text: str  # continuation lines joined, factor condition and a leading "-" removed
    line: int
    column: int
    end_line: int
    end_column: int
    ignore_status: bool  # written "- command": tox ignores its exit status


@dataclass(frozen=True)
class ToxEnv:
    """What one tox environment runs, and the environment its commands see."""

    name: str
    commands: tuple[ToxCommand, ...]
    changedir: str | None  # as written
    pass_env: tuple[str, ...]  # patterns, the defaults included
    set_env: tuple[tuple[str, str, IniLine], ...]  # name, value, where
    ignore_outcome: bool  # a failure of this environment does not fail tox

    def passes(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.pass_env)


@dataclass(frozen=True)
class ToxConfig:
    """A tox.ini's sections: ``{section: {option: value lines}}`` (options lowercased)."""

    sections: dict[str, dict[str, tuple[IniLine, ...]]]
    core: str = "tox"  # the section of tox's own settings: "tox:tox" in setup.cfg

    @property
    def envlist(self) -> tuple[str, ...]:
        """The environments a bare ``tox`` runs, generative names expanded."""
        tox = self.sections.get(self.core, {})
        lines = tox.get("env_list") or tox.get("envlist") or ()
        names: list[str] = []
        for line in lines:
            for part in _split_list(line.text):
                names += expand_braces(part)
        return tuple(dict.fromkeys(names))

    @property
    def gh_actions_envs(self) -> tuple[str, ...]:
        """The environments tox-gh-actions maps a job's Python version to
        (``[gh-actions] python = 3.12: py312-unit``), over every version: what a bare
        ``tox`` on GitHub Actions runs instead of the envlist when the plugin is used."""
        lines = self.sections.get("gh-actions", {}).get("python", ())
        names: list[str] = []
        for line in lines:
            _, colon, envs = line.text.partition(":")
            if colon:
                for part in _split_list(envs):
                    names += expand_braces(part)
        return tuple(dict.fromkeys(names))

    @property
    def defined_envs(self) -> tuple[str, ...]:
        """Every environment the file names: the envlist, then each ``[testenv:NAME]``
        (generative names expanded)."""
        names = list(self.envlist)
        for section in self.sections:
            if section.startswith("testenv:"):
                names += expand_braces(section.removeprefix("testenv:").strip())
        return tuple(dict.fromkeys(names))

    def env(self, name: str) -> ToxEnv | None:
        """Environment ``name`` (its own section, else ``[testenv]``), None when this
        file configures no commands for it."""
        own = self.sections.get(f"testenv:{name}", {})
        base = self.sections.get("testenv", {})
        if not own and not base:
            return None

        def lines(*keys: str, filtered: bool = True) -> tuple[IniLine, ...]:
            for section in (own, base):
                for key in keys:
                    if key in section:
                        found = section[key]
                        return tuple(_for_env(found, name)) if filtered else found
            return ()

        commands = _commands(lines("commands", filtered=False), name)
        changedir = " ".join(line.text for line in lines("change_dir", "changedir")) or None
        patterns = [
            word for line in lines("pass_env", "passenv") for word in _split_list(line.text)
        ]
        set_env = []
        for line in lines("set_env", "setenv"):
            key, eq, value = line.text.partition("=")
            if eq and key.strip():
                set_env.append((key.strip(), value.strip(), line))
        outcome = " ".join(line.text for line in lines("ignore_outcome")).strip().lower()
        return ToxEnv(
            name,
            commands,
            changedir,
            (*DEFAULT_PASS_ENV, *patterns),
            tuple(set_env),
            outcome in ("true", "1", "yes", "on"),
        )


def read_tox_ini(text: str, core: str = "tox") -> ToxConfig:
    """Sections and options of a tox.ini, with the position of every value line
    (read as configparser reads INI, inline ``#`` comments cut as tox cuts them)."""
    sections: dict[str, dict[str, tuple[IniLine, ...]]] = {}
    for option in ini_options(text):
        sections.setdefault(option.section.strip(), {})[option.option] = tuple(
            IniLine(line.line, line.column, _uncomment(line.text)) for line in option.lines
        )
    return ToxConfig(sections, core)


def substitute(text: str, posargs: tuple[str, ...] | None, tox_dir: str, env: str) -> str:
    """``text`` with tox's substitutions made for static reading.

    ``{posargs}`` (or ``{posargs:default}``) becomes the quoted words after ``--``;
    ``{toxinidir}`` the repository path of tox.ini's directory, written from the
    root (``/sub``), so that a target under it resolves; ``{env:NAME:default}`` its
    default; the virtualenv's paths become relative paths whose last part is kept
    (``{envbindir}/pytest`` still names pytest). Anything else stays as written.
    """
    import shlex

    def replace(match: re.Match[str]) -> str:
        inner = match[1]
        name, colon, default = inner.partition(":")
        if name == "posargs":
            if posargs:
                return shlex.join(posargs)
            return default if colon else ""
        if name in ("toxinidir", "tox_root"):
            return "/" + tox_dir
        if name == "env":
            _, _, fallback = default.partition(":")
            return fallback
        if name in ("envpython", "env_python"):
            return "python"
        if name in ("envbindir", "env_bin_dir"):
            return ".tox/bin"
        if name in ("envdir", "env_dir", "envtmpdir", "env_tmp_dir"):
            return ".tox/" + env
        if name in ("envname", "env_name"):
            return env
        if inner == "/":
            return "/"
        return match[0]

    for _ in range(3):  # inner substitutions first: {posargs:{toxinidir}/tests}
        done = _BRACES.sub(replace, text)
        if done == text:
            break
        text = done
    return text


def expand_braces(name: str) -> list[str]:
    """A generative name's expansions: ``py3{10,11}-unit`` is py310-unit and py311-unit.
    A name that would expand to more than MAX_NAMES is kept as written."""
    pieces = _BRACES.split(name)
    choices = [
        [piece] if index % 2 == 0 else piece.split(",") for index, piece in enumerate(pieces)
    ]
    if math.prod(len(choice) for choice in choices) > MAX_NAMES:
        return [name]
    return ["".join(choice.strip() for choice in combo) for combo in itertools.product(*choices)]


def _split_list(text: str) -> list[str]:
    """Names separated by commas or whitespace (tox 4 and tox 3 spellings), braces kept."""
    return [part for part in re.split(r"[,\s]+(?![^{]*\})", text) if part]


def _uncomment(text: str) -> str:
    return _INLINE_COMMENT.sub("", text).replace("\\#", "#")


def _for_env(lines: tuple[IniLine, ...], env: str) -> list[IniLine]:
    """The value lines that apply to ``env``: a line with a factor condition only
    when the env's factors (its name split at ``-``) satisfy it."""
    factors = set(env.split("-"))
    kept = []
    for line in lines:
        condition = _FACTORS.match(line.text)
        if condition is None:
            kept.append(line)
            continue
        if _satisfied(condition[1], factors):
            rest = line.text[condition.end() :]
            kept.append(IniLine(line.line, line.column + condition.end(), rest))
    return kept


def _satisfied(condition: str, factors: set[str]) -> bool:
    """``a,b`` is a or b; ``a-b`` is a and b; ``!a`` is not a; braces expand first."""
    parts = re.split(r",(?![^{]*\})", condition)
    for alternative in (a for part in parts for a in expand_braces(part)):
        terms = [term for term in alternative.split("-") if term]
        if terms and all(
            (term[1:] not in factors) if term[0] == "!" else term in factors for term in terms
        ):
            return True
    return False


def _commands(lines: tuple[IniLine, ...], env: str) -> tuple[ToxCommand, ...]:
    """One command per value line, a trailing backslash continuing it on the next; the
    factor condition of a continued command is read once it is whole, as tox does."""
    found: list[ToxCommand] = []
    pending: list[IniLine] = []
    for line in lines:
        pending.append(line)
        if line.text.endswith("\\"):
            continue
        first, last = pending[0], pending[-1]
        text = " ".join(part.text.removesuffix("\\").strip() for part in pending).strip()
        pending = []
        kept = _for_env((IniLine(first.line, first.column, text),), env)
        if not kept:
            continue
        column, text = kept[0].column, kept[0].text
        ignore = text.startswith("-")
        if ignore:
            stripped = text[1:].lstrip()
            column += len(text) - len(stripped)
            text = stripped
        if text:
            end_column = last.column + len(last.text)
            found.append(ToxCommand(text, first.line, column, last.line, end_column, ignore))
    return tuple(found)


def testenv_values(options: Iterable[IniOption], option: str) -> Iterator[IniOption]:
    """The values of ``option`` in ``[testenv]`` and each ``[testenv:NAME]``, as written
    (the dependency readers' view of tox.ini: what each environment installs)."""
    for value in options:
        if value.option == option and (
            value.section == "testenv" or value.section.startswith("testenv:")
        ):
            yield value
