"""A rule's whole data file: prose and examples, parsed with tomllib and checked.

``detlint check`` never needs this module (``catalogue`` reads the headers alone);
``detlint rule``, the generated docs and the tests do. The file format:

- the header, first and one line each: ``code``, ``name``, ``summary``,
  ``severity`` (info | warning | error), ``default`` (on by default) and ``fix``
  (none | safe | unsafe);
- ``why``, ``what`` and ``alternative``: Markdown;
- ``fixed``: Markdown, what ``--fix`` changes and why it is safe or not; required
  when ``fix`` is not ``none``, and not allowed when it is;
- ``[[examples]]``: ``kind`` (invalid | valid), ``description``, one or more
  ``[[examples.files]]`` (``path``, ``content``) making up a tiny repository, and
  for an invalid example the ``path`` and ``line`` the finding must be reported at.

Every field is checked, unknown keys included, so that a typo is an error naming
the file and the field rather than an example that silently tests nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath

from detlint.rules.catalogue import (
    HEADER_KEYS,
    CatalogueError,
    RuleInfo,
    check_header,
    parse_toml,
    read_text,
    rule_files,
    rules_directory,
    unique_names,
)

KINDS = ("invalid", "valid")
PROSE_KEYS = ("why", "what", "alternative")


@dataclass(frozen=True)
class ExampleFile:
    path: str  # relative, "/"-separated, inside the example's tiny repository
    content: str


@dataclass(frozen=True)
class Example:
    """A tiny repository on which the rule must (invalid) or must not (valid) report."""

    kind: str  # invalid | valid
    description: str
    files: tuple[ExampleFile, ...]
    path: str | None = None  # invalid only: the file the finding is in
    line: int | None = None  # invalid only: the line it is reported at


@dataclass(frozen=True)
class RulePage:
    """A rule's whole entry: the header, the prose (Markdown) and the examples."""

    info: RuleInfo
    why: str
    what: str
    alternative: str
    examples: tuple[Example, ...]
    source: Path
    fixed: str = ""  # what --fix changes; empty for a rule without a fix


def _example_file(path: Path, where: str, entry: object) -> ExampleFile:
    if not isinstance(entry, dict) or set(entry) != {"path", "content"}:
        raise CatalogueError(f"{path}: {where} must have exactly 'path' and 'content'")
    name, content = entry["path"], entry["content"]
    if not isinstance(name, str) or not isinstance(content, str):
        raise CatalogueError(f"{path}: {where}: 'path' and 'content' must be strings")
    pure = PurePosixPath(name)
    if not name or "\\" in name or pure.is_absolute() or ".." in pure.parts:
        raise CatalogueError(f"{path}: {where}: path {name!r} must be relative, inside the example")
    return ExampleFile(name, content)


def _example(path: Path, index: int, entry: object) -> Example:
    where = f"examples[{index}]"

    def fail(problem: str) -> CatalogueError:
        return CatalogueError(f"{path}: {where}: {problem}")

    if not isinstance(entry, dict):
        raise fail("must be a table")
    kind = entry.get("kind")
    if kind not in KINDS:
        raise fail("'kind' must be 'invalid' or 'valid'")
    allowed = {"kind", "description", "files"} | ({"path", "line"} if kind == "invalid" else set())
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise fail(f"unexpected key {unknown[0]!r} in a {kind} example")
    description = entry.get("description")
    if not isinstance(description, str) or not description.strip() or "\n" in description:
        raise fail("'description' must be one non-empty line")
    raw_files = entry.get("files")
    if not isinstance(raw_files, list) or not raw_files:
        raise fail("'files' must list at least one file ([[examples.files]])")
    files = tuple(
        _example_file(path, f"{where}.files[{number}]", item)
        for number, item in enumerate(raw_files)
    )
    names = [file.path for file in files]
    if len(set(names)) != len(names):
        raise fail("a file path is listed twice")
    if kind == "valid":
        return Example(kind, description, files)
    target, line = entry.get("path"), entry.get("line")
    if target not in names:
        raise fail("'path' must name one of the example's files")
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        raise fail("'line' must be a positive integer")
    if line > len(files[names.index(target)].content.splitlines()):
        raise fail(f"line {line} is past the end of {target}")
    return Example(kind, description, files, target, line)


def read_page(path: Path) -> RulePage:
    """A rule's whole entry, parsed with tomllib and validated field by field."""
    document = parse_toml(path, read_text(path))
    info = check_header(path, document)
    unknown = sorted(set(document) - {*HEADER_KEYS, *PROSE_KEYS, "examples", "fixed"})
    if unknown:
        raise CatalogueError(f"{path}: unexpected key {unknown[0]!r}")
    prose = []
    for key in PROSE_KEYS:
        value = document.get(key)
        if not isinstance(value, str) or not value.strip():
            raise CatalogueError(f"{path}: {key!r} must be a non-empty string")
        prose.append(value.strip())
    raw = document.get("examples")
    if not isinstance(raw, list):
        raise CatalogueError(f"{path}: 'examples' must be an array of tables ([[examples]])")
    examples = tuple(_example(path, index, entry) for index, entry in enumerate(raw))
    for kind in KINDS:
        if not any(example.kind == kind for example in examples):
            raise CatalogueError(f"{path}: needs at least one {kind} example")
    why, what, alternative = prose
    fixed = document.get("fixed", "")
    if info.fix == "none" and "fixed" in document:
        raise CatalogueError(f"{path}: 'fixed' describes a fix, but 'fix' is \"none\"")
    if info.fix != "none" and (not isinstance(fixed, str) or not fixed.strip()):
        raise CatalogueError(f"{path}: 'fixed' must say what the {info.fix} fix changes")
    return RulePage(info, why, what, alternative, examples, path, str(fixed).strip())


def read_pages(directory: Path) -> dict[str, RulePage]:
    """Every rule's whole entry, by code, in code order."""
    pages = [read_page(path) for path in rule_files(directory)]
    unique_names(directory, [page.info for page in pages])
    return {page.info.code: page for page in pages}


@cache
def pages() -> dict[str, RulePage]:
    """Every rule's whole entry (prose and examples), by code, in code order."""
    return read_pages(rules_directory())
