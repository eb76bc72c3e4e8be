"""The rule catalogue: codes, names, severities and defaults, from the files in ``rules/``.

The data files are the one source of these facts (the rules' code supplies only the
wording of each message), so adding or retuning a rule is a data change that the
docs, ``detlint rule`` and the example tests all follow.

Each rule is one TOML file, ``rules/DET101.toml``, shipped in the wheel as
``detlint/_rules/`` (see ``[tool.hatch.build.targets.wheel.force-include]``). A
source checkout or an editable install has no ``_rules`` next to the package, so
the repository's top-level ``rules/`` is read instead: the same files, never a copy
that can go stale.

Every ``detlint check`` needs each rule's code, name, severity and default, but
none of its prose or examples, and importing ``tomllib`` alone costs more than
detlint's own work on one file. So ``RULES`` reads only the header, the six
one-line keys every file starts with, with a strict line reader that accepts a
subset of TOML (``key = "text without escapes"`` and ``key = true|false``) and
hands anything else to ``tomllib``; the test suite checks that both readings agree
on every file. ``catalogue_pages.pages()`` reads whole entries, which only
``detlint rule``, the docs and the tests need. A malformed file is a
``CatalogueError`` naming the file and the field, never a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from detlint.base.severity import SEVERITIES

FIXES = ("none", "safe", "unsafe")  # "safe": the fix keeps behaviour; "unsafe": it may not
HEADER_KEYS = ("code", "name", "summary", "severity", "default", "fix")
_HEADER_SCAN = 40  # lines the fast reader looks at before it leaves the file to tomllib


class CatalogueError(Exception):
    """A catalogue file that is missing, unreadable or malformed (names the file)."""


class RuleInfo(NamedTuple):
    """What every run needs of a rule: its identity, severity and whether it is on.

    A NamedTuple, as immutable as a frozen dataclass and cheaper to define: every run
    reads the catalogue's headers, a one-file pre-commit run included."""

    code: str
    name: str
    severity: str  # info | warning | error
    default: bool  # on without --select / --extend-select
    summary: str  # one line
    fix: str = "none"  # none | safe | unsafe


def rules_directory(package: Path | None = None) -> Path:
    """The directory of rule files for the ``detlint`` package at ``package``.

    A wheel ships them inside the package (``_rules``); a source checkout keeps them
    at the repository's top level, beside the package.
    """
    if package is None:
        package = Path(__file__).parent.parent
    for candidate in (package / "_rules", package.parent / "rules"):
        if rule_files(candidate):
            return candidate
    raise CatalogueError(
        f"no rule files (DET*.toml) in {package / '_rules'} or {package.parent / 'rules'}"
    )


def rule_files(directory: Path) -> list[Path]:
    """The rule files in ``directory`` in code order (none if it does not exist)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return [
        directory / name
        for name in sorted(names)
        if name.startswith("DET") and name.endswith(".toml")
    ]


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CatalogueError(f"{path}: cannot be read: {error}") from None


def parse_toml(path: Path, text: str) -> dict[str, Any]:
    from detlint.base.toml_reader import TOMLDecodeError, load_toml

    try:
        return load_toml(text)
    except TOMLDecodeError as error:
        raise CatalogueError(f"{path}: invalid TOML: {error}") from None


def _simple_value(text: str) -> str | bool | None:
    """A TOML value in the fast reader's subset: ``true``, ``false`` or a basic
    string without escapes or control characters; None for anything else."""
    if text in ("true", "false"):
        return text == "true"
    inner = text[1:-1]
    if len(text) < 2 or text[0] != '"' or text[-1] != '"' or '"' in inner or "\\" in inner:
        return None
    return inner if inner.isprintable() else None


def quick_header(text: str) -> dict[str, Any] | None:
    """The header keys from the file's first lines, or None if they are not all there
    in the simple form (the caller then parses the whole file)."""
    found: dict[str, Any] = {}
    for line in text.split("\n", _HEADER_SCAN):  # the header is at the top: no need to split all
        if not line.strip() or line.startswith("#"):
            continue
        key, equals, rest = line.partition(" = ")
        value = _simple_value(rest.rstrip(" \t\r")) if equals else None
        if value is None or key not in HEADER_KEYS or key in found:
            break
        found[key] = value
        if len(found) == len(HEADER_KEYS):
            return found
    return None


def _is_code(text: str) -> bool:
    return len(text) == 6 and text.startswith("DET") and text[3:].isdecimal() and text.isascii()


def _is_kebab(text: str) -> bool:
    """``retry-marker``: lowercase ASCII words and digits joined by single hyphens."""
    parts = text.split("-")
    return (
        text.isascii()
        and text[:1].isalpha()
        and all(part.isalnum() and part == part.lower() for part in parts)
    )


def check_header(path: Path, document: dict[str, Any]) -> RuleInfo:
    """The header fields of a parsed rule file, validated."""

    def fail(problem: str) -> CatalogueError:
        return CatalogueError(f"{path}: {problem}")

    for key in HEADER_KEYS:
        if key not in document:
            raise fail(f"missing key {key!r}")
    for key in ("code", "name", "summary", "severity", "fix"):
        if not isinstance(document[key], str):
            raise fail(f"{key!r} must be a string")
    code, name, summary = document["code"], document["name"], document["summary"]
    if not _is_code(code):
        raise fail(f"code {code!r} is not DET followed by three digits")
    if code != path.stem:
        raise fail(f"code {code!r} does not match the file name")
    if not _is_kebab(name):
        raise fail(f"name {name!r} is not kebab-case")
    if not summary.strip() or "\n" in summary:
        raise fail("'summary' must be one non-empty line")
    if document["severity"] not in SEVERITIES:
        raise fail(f"'severity' must be one of {', '.join(SEVERITIES)}")
    if document["fix"] not in FIXES:
        raise fail(f"'fix' must be one of {', '.join(FIXES)}")
    if not isinstance(document["default"], bool):
        raise fail("'default' must be true or false")
    return RuleInfo(code, name, document["severity"], document["default"], summary, document["fix"])


def read_info(path: Path) -> RuleInfo:
    """A rule's header, read fast (see the module docstring) and validated."""
    text = read_text(path)
    header = quick_header(text)
    return check_header(path, header if header is not None else parse_toml(path, text))


def unique_names(directory: Path, infos: list[RuleInfo]) -> dict[str, RuleInfo]:
    """The rules by code, in code order; two rules may not share a name."""
    seen: dict[str, str] = {}
    for info in infos:
        if info.name in seen:
            raise CatalogueError(
                f"{directory}: {info.code} and {seen[info.name]} share the name {info.name!r}"
            )
        seen[info.name] = info.code
    return {info.code: info for info in infos}


def read_infos(directory: Path) -> dict[str, RuleInfo]:
    """Every rule's header, by code, in code order."""
    return unique_names(directory, [read_info(path) for path in rule_files(directory)])


class Catalogue(Mapping[str, RuleInfo]):
    """Every rule by code, in code order, read from ``directory`` (by default the
    package's own catalogue) when first looked at."""

    def __init__(self, directory: Path | None = None) -> None:
        self._directory = directory
        self._rules: dict[str, RuleInfo] | None = None

    def _loaded(self) -> dict[str, RuleInfo]:
        if self._rules is None:
            self._rules = read_infos(self._directory or rules_directory())
        return self._rules

    def __getitem__(self, code: str) -> RuleInfo:
        return self._loaded()[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())


RULES: Mapping[str, RuleInfo] = Catalogue()


def find_rule(key: str) -> str | None:
    """The code of the rule named ``key`` by code (any case) or by name."""
    if key.upper() in RULES:
        return key.upper()
    return next((code for code, info in RULES.items() if info.name == key.lower()), None)


def select_codes(
    select: tuple[str, ...] | None, ignore: tuple[str, ...], extend: tuple[str, ...] = ()
) -> frozenset[str]:
    """Codes to report: ``select`` (codes or prefixes, ``ALL``) replaces the defaults."""

    def matching(patterns: tuple[str, ...]) -> set[str]:
        found = set()
        for pattern in patterns:
            if pattern.upper() == "ALL":
                found |= set(RULES)
            else:
                found |= {code for code in RULES if code.startswith(pattern.upper())}
        return found

    chosen = matching(select) if select is not None else {c for c, r in RULES.items() if r.default}
    chosen |= matching(extend)
    return frozenset(chosen - matching(ignore))


def unknown_codes(patterns: tuple[str, ...]) -> list[str]:
    """The patterns that match no rule code (``ALL`` matches every one)."""
    return [
        pattern
        for pattern in patterns
        if pattern.upper() != "ALL" and not any(code.startswith(pattern.upper()) for code in RULES)
    ]
