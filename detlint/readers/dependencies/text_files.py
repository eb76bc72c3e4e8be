"""Where dependencies are declared in the text formats: requirement strings, requirements files,
setup.cfg, tox.ini and setup.py.

Every reader takes a file's text, the path to describe it by and the normalized names wanted,
and returns :class:`Declared` entries with 1-based positions, so that a finding can point at the
very line a user would edit. Nothing scanned is ever imported or executed: ``setup.py`` is read
with :mod:`ast`, and only literals (and module-level variables bound once to literals) count,
because anything computed at run time cannot be known without running it. A file that cannot be
parsed raises :class:`DependencyFileError`, which the caller turns into a Problem.
"""

from __future__ import annotations

import ast
import configparser
import re
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from detlint.base.ini_lines import IniOption, ini_options
from detlint.base.line_index import LineIndex


class DependencyFileError(Exception):
    """A dependency file that cannot be parsed; the message is one line for a DET901 Problem.

    ``line`` and ``column`` (1-based) say where, when the parser knows: a YAML error points at
    the line to fix. The default, 1:1, is the whole file, as ``Span.file`` is.
    """

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Declared:
    """One wanted dependency found in a file; ``end_column`` is exclusive, as in Span."""

    name: str
    specifier: str
    line: int
    column: int
    end_line: int
    end_column: int
    source: str


def one_line(text: str) -> str:
    """Parser messages (configparser's especially) span lines; a Problem message must not."""
    return " ".join(text.split())


_SEPARATORS = re.compile(r"[-_.]+")


def normalize_name(name: str) -> str:
    """PEP 503: case and runs of ``-_.`` do not matter, so ``Pytest.RerunFailures`` matches."""
    return _SEPARATORS.sub("-", name).lower()


_REQUIREMENT = re.compile(
    r"\s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*(?P<rest>.*)",
    re.DOTALL,
)
_URL_MARKER = re.compile(r"\s;")


def parse_requirement(text: str) -> tuple[str, str] | None:
    """The normalized name and version specifier of a PEP 508 string, or None if it is not one.

    The specifier is kept as written because it is reported to the user; extras and environment
    markers are dropped. A direct reference keeps its URL as ``"@ <url>"`` so that a pin to a
    fork is not mistaken for an unpinned requirement. Anything after the name that cannot start
    a specifier (``flaky tests``, ``https://...``) means the text is not a requirement at all.
    """
    match = _REQUIREMENT.fullmatch(text)
    if match is None:
        return None
    rest = match["rest"].strip()
    if rest.startswith("@"):
        url = _URL_MARKER.split(rest[1:], maxsplit=1)[0].strip()
        return (normalize_name(match["name"]), f"@ {url}") if url else None
    if rest and rest[0] not in "<>=!~(;":
        return None
    specifier = rest.split(";", 1)[0].strip()
    if specifier.startswith("(") and specifier.endswith(")"):
        specifier = specifier[1:-1].strip()
    return normalize_name(match["name"]), specifier


def declared_at(
    lines: LineIndex, name: str, spec: str, start: int, end: int, source: str
) -> Declared:
    """A Declared covering ``text[start:end]`` of a text parsers report no positions for
    (TOML, JSON); the end stays on the last character's line."""
    line, column = lines.position(start)
    end_line, end_column = lines.position(max(end - 1, start))
    return Declared(name, spec, line, column, end_line, end_column + (end > start), source)


# pip's rules: "#" starts a comment at a line start or after whitespace (not in "url#egg="),
# and per-requirement options such as "--hash=..." follow the requirement after whitespace.
_COMMENT = re.compile(r"(?:^|\s)#")
_TRAILING_OPTION = re.compile(r"\s--?[A-Za-z]")


def _requirement_extent(text: str) -> tuple[int, int]:
    """Offsets of the requirement in a requirements-file line, without comment and options."""
    comment = _COMMENT.search(text)
    cut = comment.start() if comment else len(text)
    option = _TRAILING_OPTION.search(text, 0, cut)
    cut = option.start() if option else cut
    body = text[:cut]
    return len(body) - len(body.lstrip()), len(body.rstrip())


def read_requirements_txt(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    """pip requirements and constraints files, with backslash continuations joined as pip does.

    Option lines (``-r``, ``-c``, ``-e``, ``--index-url``) are skipped: an included file is read
    on its own when it belongs to the repository, and an editable install names no version.
    """
    found: list[Declared] = []
    logical = ""
    starts: list[int] = []  # where each physical line begins in the logical line
    numbers: list[int] = []  # and its line number
    lines = text.split("\n")
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        starts.append(len(logical))
        numbers.append(number)
        if line.endswith("\\") and number < len(lines) and not line.lstrip().startswith("#"):
            logical += line[:-1]
            continue
        logical += line
        start, end = _requirement_extent(logical)
        requirement = logical[start:end]
        parsed = parse_requirement(requirement)
        if parsed is not None and parsed[0] in names:
            first = bisect_right(starts, start) - 1
            last = bisect_right(starts, end - 1) - 1
            first_column = start - starts[first] + 1
            end_column = end - starts[last] + 1
            found.append(
                Declared(*parsed, numbers[first], first_column, numbers[last], end_column, source)
            )
        logical, starts, numbers = "", [], []
    return found


def _ini_values(text: str) -> list[IniOption]:
    """Options and their value lines (:func:`detlint.base.ini_lines.ini_options`), once
    configparser has accepted the file: a broken one is a DependencyFileError."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.MissingSectionHeaderError as error:
        detail = f"line {error.lineno} comes before any [section] header"
        raise DependencyFileError(f"invalid INI syntax: {detail}") from None
    except configparser.ParsingError as error:
        lines = ", ".join(str(number) for number, _ in error.errors)
        plural = "s" * (len(error.errors) > 1)
        raise DependencyFileError(f"invalid INI syntax on line{plural} {lines}") from None
    except configparser.Error as error:
        raise DependencyFileError(f"invalid INI syntax: {one_line(str(error))}") from None
    return ini_options(text)


# tox's factor conditions: "py311,cov: flaky", "!windows: flaky" ("https://" is not one).
_TOX_FACTOR = re.compile(r"[!\w{},.-]+:(?!//)\s*")


def _ini_requirements(
    value: IniOption, names: frozenset[str], source: str, *, commas: bool, factors: bool
) -> Iterator[Declared]:
    """Requirements in the value lines of one option, after inline comments are cut off.

    ``commas``: setup.cfg once allowed ``install_requires = a, b`` on one line; a line that is
    not a requirement as a whole is then split on commas (``flaky>=3,<4`` stays whole).
    ``factors``: tox's ``py311,cov: flaky`` conditions are stripped before the requirement.
    """
    for value_line in value.lines:
        number, column, raw = value_line.line, value_line.column - 1, value_line.text
        comment = _COMMENT.search(raw)
        text = raw[: comment.start()] if comment else raw
        if factors:
            factor = _TOX_FACTOR.match(text)
            column, text = (
                (column + factor.end(), text[factor.end() :]) if factor else (column, text)
            )
        parts = [(0, text)]
        if commas and parse_requirement(text) is None:
            parts = [(m.start(), m[0]) for m in re.finditer(r"[^,]+", text)]
        for offset, part in parts:
            start = column + offset + len(part) - len(part.lstrip())
            parsed = parse_requirement(part)
            if parsed is not None and parsed[0] in names:
                end = column + offset + len(part.rstrip())
                yield Declared(*parsed, number, start + 1, number, end + 1, source)


def read_setup_cfg(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    """``[options] install_requires/tests_require`` and every ``[options.extras_require]`` key."""
    found: list[Declared] = []
    for value in _ini_values(text):
        if value.section == "options" and value.option in ("install_requires", "tests_require"):
            label = f"{source} [options] {value.option}"
        elif value.section == "options.extras_require":
            label = f"{source} [options.extras_require] {value.option}"
        else:
            continue
        found.extend(_ini_requirements(value, names, label, commas=True, factors=False))
    return found


def read_tox_ini(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    """``deps`` of ``[testenv]`` and each ``[testenv:NAME]``; ``-r`` and ``{[x]deps}`` skipped."""
    from detlint.readers.tox.ini_format import testenv_values

    found: list[Declared] = []
    for value in testenv_values(_ini_values(text), "deps"):
        label = f"{source} [{value.section}] deps"
        found.extend(_ini_requirements(value, names, label, commas=False, factors=True))
    return found


_SETUP_LISTS = ("install_requires", "tests_require")
_MAX_DEPTH = 8  # how far module-level names and ``a + b`` are followed; cycles end here


def _module_constants(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level names assigned once in the whole file; a name bound again anywhere (in an
    ``if``, by ``+=``, in a function) holds a value that depends on the run, so it is ignored."""
    stores = Counter(
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    )
    constants: dict[str, ast.expr] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name) and stores[target.id] == 1:
                constants[target.id] = value
    return constants


def _strings(
    node: ast.expr, constants: dict[str, ast.expr], depth: int = 0
) -> Iterator[ast.Constant]:
    """The string literals a requirements list is made of; anything computed is ignored."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        for element in node.elts:
            yield from _strings(element, constants, depth + 1)
    elif isinstance(node, ast.Starred):
        yield from _strings(node.value, constants, depth + 1)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        yield from _strings(node.left, constants, depth + 1)
        yield from _strings(node.right, constants, depth + 1)
    elif isinstance(node, ast.Name) and node.id in constants:
        yield from _strings(constants[node.id], constants, depth + 1)


def _extras(
    node: ast.expr, constants: dict[str, ast.expr], depth: int = 0
) -> Iterator[tuple[str, ast.expr]]:
    """(extra, requirements) pairs of an ``extras_require`` dict literal or ``dict(...)`` call."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                yield from _extras(value, constants, depth + 1)
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                yield key.value, value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        yield from ((k.arg, k.value) for k in node.keywords if k.arg is not None)
    elif isinstance(node, ast.Name) and node.id in constants:
        yield from _extras(constants[node.id], constants, depth + 1)


def _is_setup(func: ast.expr) -> bool:
    """``setup(...)``, ``setuptools.setup(...)`` and ``distutils.core.setup(...)``."""
    return (isinstance(func, ast.Name) and func.id == "setup") or (
        isinstance(func, ast.Attribute) and func.attr == "setup"
    )


def _literal_position(node: ast.Constant, lines: list[str]) -> tuple[int, int, int, int]:
    """Span of a string literal's text without its quotes (the whole literal if prefixed).

    ast columns count UTF-8 bytes; spans count characters.
    """
    line = lines[node.lineno - 1]
    start = len(line.encode()[: node.col_offset].decode(errors="replace"))
    end_lineno = node.end_lineno if node.end_lineno is not None else node.lineno
    end_text = lines[end_lineno - 1].encode()[: node.end_col_offset].decode(errors="replace")
    end = len(end_text)
    literal = line[start:end]
    if end_lineno == node.lineno and literal[:1] in ("'", '"') and literal[1:-1] == node.value:
        return node.lineno, start + 2, end_lineno, end
    return node.lineno, start + 1, end_lineno, end + 1


def _parse_python(text: str) -> ast.Module:
    """A setup.py or noxfile.py parsed; what does not parse is a DependencyFileError."""
    try:
        with warnings.catch_warnings():  # "invalid escape sequence" is the scanned file's business
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except SyntaxError as error:
        where = f" at line {error.lineno}" if error.lineno else ""
        raise DependencyFileError(f"invalid Python syntax{where}: {error.msg}") from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise DependencyFileError(f"cannot parse: {one_line(str(error))}") from None


def read_setup_py(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    """``install_requires``, ``tests_require`` and ``extras_require`` of every ``setup()`` call."""
    tree = _parse_python(text)
    constants = _module_constants(tree)
    lines = re.split(r"\r\n|\r|\n", text)
    found: list[Declared] = []

    def add(literals: Iterator[ast.Constant], label: str) -> None:
        for literal in literals:
            parsed = parse_requirement(literal.value) if isinstance(literal.value, str) else None
            if parsed is not None and parsed[0] in names:
                found.append(Declared(*parsed, *_literal_position(literal, lines), label))

    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_setup(node.func)):
            continue
        for keyword in node.keywords:
            if keyword.arg in _SETUP_LISTS:
                add(_strings(keyword.value, constants), f"{source} {keyword.arg}")
            elif keyword.arg == "extras_require":
                for extra, value in _extras(keyword.value, constants):
                    add(_strings(value, constants), f"{source} extras_require {extra}")
    return found


_NOX_INSTALLS = frozenset({"install", "conda_install", "run_install"})


def read_noxfile(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    """The packages a noxfile's sessions install: ``session.install("pytest",
    "pytest-rerunfailures")`` (and ``conda_install``, ``run_install``), string
    literals only; ``-r requirements.txt`` is a file read on its own."""
    tree = _parse_python(text)
    lines = re.split(r"\r\n|\r|\n", text)
    found: list[Declared] = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _NOX_INSTALLS
        ):
            continue
        for argument in node.args:
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                parsed = parse_requirement(argument.value)
                if parsed is not None and parsed[0] in names:
                    position = _literal_position(argument, lines)
                    label = f"{source} session.{node.func.attr}"
                    found.append(Declared(*parsed, *position, label))
    return found
