"""Vendored-named directories in which the repository's own configuration runs tests.

A directory named like vendored code (``third_party/``, ``vendor/``) is skipped because
it usually holds copies of other projects. Some projects keep their own code and tests
there and run them: a workflow runs ``pytest third_party/ascend/unittest/pytest_ut``, a
script does ``cd $PROJ/third_party/proton/test`` and then runs pytest, a pytest config
lists ``testpaths = ["vendor/x/tests"]``. The knobs of those tests lower what the
project's own CI reports, so the subtree such a line names is read; the rest of the
vendored directory stays skipped.

The named subtree is the longest existing path the line names (a directory or one
test file). A path inside a git submodule or a nested repository stays unread even
when named: it is another repository's, whose knobs are changed there, not here.

Reading is cheap and happens only when a walk skipped a vendored directory: files
that can name a test run (pipelines, shell scripts, Makefiles, nox and tox files,
pytest's config files) are first searched as bytes for a vendored directory's name
followed by ``/``; only those that hold one are read line by line.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

_MAX_BYTES = 1_000_000  # a larger file is no pipeline or script anyone writes by hand

_PYTEST_CONFIGS = frozenset({"pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini"})
_COMMAND_FILES = frozenset(
    {
        "noxfile.py",
        "makefile",
        "gnumakefile",
        "jenkinsfile",
        ".gitlab-ci.yml",
        ".travis.yml",
        "azure-pipelines.yml",
        "bitbucket-pipelines.yml",
    }
)
_COMMAND_SUFFIXES = (".sh", ".bash", ".mk")
_PIPELINE_DIRS = (".github/", ".circleci/", ".buildkite/", ".gitlab/", ".ci/", "ci/")
_YAML_SUFFIXES = (".yml", ".yaml")

# Words of a command line: quotes, separators and brackets split them.
_SPLIT = re.compile(r"""[\s"'`,;()\[\]|&]+""")
# A variable or the workspace standing for the repository root before a path.
_ROOT_PREFIX = re.compile(r"^(?:\$\{?\w+\}?/|\}\}/|\./)+")
# A line that starts another shell: a YAML step or key, a Makefile target.
_STEP_START = re.compile(r"^\s*(?:- |[\w.-]+:(?:\s|$))")
_SUBMODULE_PATH = re.compile(r"^\s*path\s*=\s*(\S+)\s*$", re.MULTILINE)
_TESTPATHS = re.compile(r"^\s*testpaths\s*[=:]")
_CHANGE_DIR = frozenset({"cd", "pushd", "working-directory:", "--rootdir"})
# pytest options whose next word is a path pytest does not collect tests from.
_VALUE_OPTIONS = frozenset(
    {
        "--ignore",
        "--ignore-glob",
        "--deselect",
        "--cov",
        "--junitxml",
        "--junit-xml",
        "--basetemp",
        "-c",
        "--confcutdir",
        "--log-file",
        "--html",
        "-o",
        "--override-ini",
    }
)


@dataclass(frozen=True)
class NamedSubtree:
    """A path inside a vendored-named directory that a line of the repository's
    configuration names as a place tests run: ``path`` (relative, POSIX; a directory
    or a file) named at ``line`` of ``source`` by ``text``. ``submodule``: the path is
    in another repository (a submodule, a nested repository), and is left unread."""

    path: str
    source: str
    line: int
    text: str
    submodule: bool = False


def may_name_runs(rel: str) -> bool:
    """Whether a file at ``rel`` (relative, POSIX) is one that can name a test run."""
    name = posixpath.basename(rel).lower()
    if name in _PYTEST_CONFIGS or name in _COMMAND_FILES or name.endswith(_COMMAND_SUFFIXES):
        return True
    return name.endswith(_YAML_SUFFIXES) and rel.startswith(_PIPELINE_DIRS)


def named_subtrees(
    root: str, files: Iterable[str], skipped: Sequence[str], kept: frozenset[str] = frozenset()
) -> tuple[NamedSubtree, ...]:
    """The subtrees of the ``skipped`` vendored directories (relative) that the run
    configuration among ``files`` (absolute) names, first naming line of each kept;
    ``kept`` holds git's submodules and nested repositories (relative), to which those
    ``.gitmodules`` declares are added."""
    needles = {posixpath.basename(v).encode() + b"/" for v in skipped}
    kept = kept | submodule_paths(root)
    found: dict[str, NamedSubtree] = {}
    prefix = os.path.join(root, "")
    for path in files:
        rel = path.removeprefix(prefix).replace(os.sep, "/")
        if not may_name_runs(rel):
            continue
        try:
            if os.path.getsize(path) > _MAX_BYTES:
                continue
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if not any(needle in data for needle in needles):
            continue
        text = data.decode("utf-8", errors="replace")
        for line, word, whole in _named_words(rel, text):
            named = _subtree(root, rel, word, skipped)
            if named is not None and named not in found:
                submodule = _in_submodule(root, named, skipped, kept)
                found[named] = NamedSubtree(named, rel, line, whole, submodule)
    return _outermost(found)


def _outermost(found: dict[str, NamedSubtree]) -> tuple[NamedSubtree, ...]:
    """The named subtrees not inside another one read (a file of a named directory
    is read with it), in path order."""
    read = [path for path, subtree in found.items() if not subtree.submodule]
    return tuple(
        found[path]
        for path in sorted(found)
        if not any(path != other and path.startswith(other + "/") for other in read)
    )


def _named_words(rel: str, text: str) -> Iterator[tuple[int, str, str]]:
    """(line number, word, the line stripped) for each word a line names as a place
    tests run: a pytest target, a directory changed into before pytest runs, an
    entry of ``testpaths``."""
    lines = text.splitlines()
    name = posixpath.basename(rel).lower()
    is_config = name in _PYTEST_CONFIGS
    shell = not (name in ("makefile", "gnumakefile") or name.endswith(".mk"))
    in_testpaths = False
    for index, raw in enumerate(lines):
        stripped = raw.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        if is_config:
            if _TESTPATHS.match(raw):
                in_testpaths = "]" not in raw.partition("=")[2] or "[" not in raw
                for word in _SPLIT.split(re.split(r"[=:]", raw, maxsplit=1)[1]):
                    yield index + 1, word, stripped
                continue
            if in_testpaths and (raw[:1].isspace() or stripped.startswith(("]", '"', "'"))):
                for word in _SPLIT.split(stripped):
                    yield index + 1, word, stripped
                in_testpaths = "]" not in stripped
                continue
            in_testpaths = False
        for word in _command_words(stripped, lines, index, shell):
            yield index + 1, word, stripped


def _command_words(stripped: str, lines: list[str], index: int, shell: bool) -> Iterator[str]:
    """The targets of a pytest command on this line, and the directory a ``cd`` on it
    changes into when pytest runs after it (on the line, or on a later line of the file
    before the next change of directory)."""
    words = [word for word in _SPLIT.split(stripped) if word]
    runs = next((i for i, word in enumerate(words) if _runs_pytest(word)), None)
    for i, word in enumerate(words):
        if word in _CHANGE_DIR and i + 1 < len(words):
            if word == "--rootdir" or _pytest_follows(words[i + 2 :], lines, index, shell):
                yield words[i + 1]
        elif word.startswith("--rootdir="):
            yield word.partition("=")[2]
        elif _is_target(words, i, runs):
            yield word


def _is_target(words: list[str], i: int, runs: int | None) -> bool:
    """Whether word ``i`` is a path the pytest command at word ``runs`` collects."""
    word = words[i]
    return (
        runs is not None
        and i > runs
        and not word.startswith("-")
        and "=" not in word
        and words[i - 1] not in _VALUE_OPTIONS
    )


def _runs_pytest(word: str) -> bool:
    """A word that runs pytest: ``pytest``, ``py.test``, a wrapper named for it
    (``run_pytest_command``), a Make variable holding it (``$(PYTEST)``)."""
    lower = word.lower()
    return "pytest" in lower or "py.test" in lower


def _pytest_follows(rest: list[str], lines: list[str], index: int, shell_lines: bool) -> bool:
    """Whether pytest runs in the directory a ``cd`` changed into: later on its line,
    or (``shell_lines``: the lines run in one shell, not Makefile recipe lines) on a
    later line before the next change of directory or the next step or target."""
    if any(_runs_pytest(word) for word in rest):
        return True
    for later in lines[index + 1 :] if shell_lines else ():
        words = _SPLIT.split(later.strip())
        if any(word in ("cd", "pushd", "working-directory:") for word in words):
            return False
        if _STEP_START.match(later):  # a YAML step, a Makefile target: another shell
            return False
        if not later.lstrip().startswith("#") and any(_runs_pytest(word) for word in words):
            return True
    return False


def _subtree(root: str, rel: str, word: str, skipped: Sequence[str]) -> str | None:
    """The longest existing path inside a skipped vendored directory that ``word`` names
    (from the root, else from the directory of the file naming it)."""
    word = _ROOT_PREFIX.sub("", word).split("::", 1)[0].rstrip("/")
    if not word or word.startswith("/") or any(c in word for c in "*?$"):
        return None
    for base in ("", posixpath.dirname(rel)):
        named = posixpath.normpath(posixpath.join(base, word))
        vendored = next((v for v in skipped if named == v or named.startswith(v + "/")), None)
        if vendored is None:
            continue
        while named != vendored and not os.path.exists(os.path.join(root, named)):
            named = posixpath.dirname(named)
        return named
    return None


def submodule_paths(root: str) -> frozenset[str]:
    """The paths ``.gitmodules`` declares (relative): submodules even where a checkout
    did not clone them or holds no ``.git`` of theirs."""
    try:
        with open(os.path.join(root, ".gitmodules"), encoding="utf-8", errors="replace") as file:
            text = file.read(_MAX_BYTES)
    except OSError:
        return frozenset()
    return frozenset(m.group(1).strip("/") for m in _SUBMODULE_PATH.finditer(text))


def _in_submodule(root: str, named: str, skipped: Sequence[str], kept: frozenset[str]) -> bool:
    """Whether a directory from the vendored one down to ``named`` is another
    repository (a submodule or nested repository: git lists it, or it holds ``.git``)."""
    vendored = next(v for v in skipped if named == v or named.startswith(v + "/"))
    parts = named[len(vendored) :].strip("/").split("/")
    current = vendored
    for part in ["", *parts]:
        current = posixpath.join(current, part) if part else current
        if current in kept or os.path.lexists(os.path.join(root, current, ".git")):
            return True
    return False


def conftests_above(root: str, named: str, vendored: str) -> Iterator[str]:
    """The ``conftest.py`` files (relative) pytest loads on the way from the vendored
    directory ``vendored`` down to ``named`` (those above it are walked already)."""
    directory = named if os.path.isdir(os.path.join(root, named)) else posixpath.dirname(named)
    current = vendored
    parts = directory[len(vendored) :].strip("/").split("/")
    for part in ["", *parts]:
        current = posixpath.join(current, part) if part else current
        conftest = posixpath.join(current, "conftest.py")
        if os.path.isfile(os.path.join(root, conftest)):
            yield conftest
