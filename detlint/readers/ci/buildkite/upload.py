"""Which pipeline files a Buildkite step hands control to with ``pipeline upload``.

A pipeline often starts as one small file whose step runs ``buildkite-agent
pipeline upload`` on the file holding the real steps, so the knobs that hide a
test failure live in files only an upload names. The reader follows uploads
to find those files: this module reads a shell command (or a plugin's config)
the way the agent would and returns the files it uploads.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator

from detlint.readers.yaml.tree import YNode, YScalar, YSeq

# Where `buildkite-agent pipeline upload` looks when it is given no file and no stdin.
DEFAULT_UPLOAD_FILES = (
    "buildkite.yml",
    "buildkite.yaml",
    "buildkite.json",
    ".buildkite/pipeline.yml",
    ".buildkite/pipeline.yaml",
    ".buildkite/pipeline.json",
    "buildkite/pipeline.yml",
    "buildkite/pipeline.yaml",
    "buildkite/pipeline.json",
)

# `pipeline upload` options that take a value (the rest are flags).
_UPLOAD_VALUE_OPTION_NAMES = (
    "--log-level --experiment --profile --agent-access-token --endpoint --job --format "
    "--git-diff-base --changed-files-path --jwks-file --jwks-key-id --signing-aws-kms-key "
    "--signing-gcp-kms-key --redacted-vars"
)
_UPLOAD_VALUE_OPTIONS = frozenset(_UPLOAD_VALUE_OPTION_NAMES.split())

# Words before a shell command's program name that do not change which program it is.
_COMMAND_PREFIX_NAMES = "sudo exec command time env nohup if then else elif do ! {"
_COMMAND_PREFIXES = frozenset(_COMMAND_PREFIX_NAMES.split())


def plugin_strings(node: YNode | None) -> list[str]:
    """Strings inside plugin configs that run an upload (e.g. monorepo-diff's ``command``)."""
    found: list[str] = []
    stack: list[tuple[YNode, int]] = [(node, 0)] if node is not None else []
    seen: set[int] = set()
    while stack and len(seen) < 2000:
        current, depth = stack.pop()
        if id(current) in seen or depth > 8:
            continue
        seen.add(id(current))
        if isinstance(current, YScalar):
            if isinstance(current.value, str) and "buildkite-agent" in current.value:
                found.append(current.value)
        elif isinstance(current, YSeq):
            stack.extend((item, depth + 1) for item in reversed(current.items))
        else:
            stack.extend((value, depth + 1) for _, value in reversed(current.items))
    return found


def upload_paths(command: str) -> list[str]:
    """The pipeline files ``buildkite-agent pipeline upload`` reads in a shell command.

    A file argument or ``< file`` is taken as written; with neither, and nothing
    piped in, the agent looks in DEFAULT_UPLOAD_FILES. Arguments that hold ``$``
    or a backtick are only known at run time and are left out; so is a
    ``--dry-run``, which uploads nothing.
    """
    paths: list[str] = []
    for segment, piped in _segments(command):
        paths.extend(_upload_arguments(segment, piped))
    return paths


def _segments(command: str) -> Iterator[tuple[list[str], bool]]:
    """Simple commands (words) of a script, and whether each reads a pipe."""
    for line in command.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        try:
            words = list(lexer)
        except ValueError:
            words = line.split()
        segment: list[str] = []
        piped = False
        for word in words:
            if word and all(char in ";&|()" for char in word):
                yield segment, piped
                segment, piped = [], word == "|"
            else:
                segment.append(word)
        yield segment, piped


def _upload_arguments(words: list[str], piped: bool) -> list[str]:
    start = _upload_start(words)
    if start is None:
        return []
    files: list[str] = []
    dynamic = False
    arguments = iter(words[start:])
    for word in arguments:
        if word == "--dry-run" or word.startswith("--dry-run="):
            return []
        if word.startswith("<"):
            piped = True
            target = word[1:] or next(arguments, "")
            if target and not word.startswith("<<"):
                files.append(target)
        elif word.startswith("-") and word != "-":
            if word.split("=", 1)[0] in _UPLOAD_VALUE_OPTIONS and "=" not in word:
                next(arguments, None)
        elif "$" in word or "`" in word or word == "-":
            dynamic = True
        else:
            files.append(word)
    if files or dynamic or piped:
        return [file for file in files if "$" not in file and "`" not in file]
    return list(DEFAULT_UPLOAD_FILES)


def _upload_start(words: list[str]) -> int | None:
    """The index just after ``buildkite-agent pipeline upload``, when that is the command run.

    Leading ``NAME=value`` assignments, wrappers (``sudo``, ``exec``) and shell
    keywords (``if``, ``then``) are passed over; an argument of another program
    (``echo buildkite-agent pipeline upload``) is not an upload.
    """
    index = 0
    while index < len(words) and (
        words[index] in _COMMAND_PREFIXES or _is_assignment(words[index])
    ):
        index += 1
    program = words[index].rsplit("/", 1)[-1] if index < len(words) else ""
    if program == "buildkite-agent" and words[index + 1 : index + 3] == ["pipeline", "upload"]:
        return index + 3
    return None


def _is_assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return bool(equals) and name.isidentifier()
