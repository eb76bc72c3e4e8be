"""Reading a Makefile statically: the recipe lines ``make TARGET`` runs.

``make test`` in a CI step runs pytest only through the recipe of ``test``
(after those of its prerequisites), each line in a shell of its own, with the
Makefile's variables expanded; a line written ``-pytest ...`` has its failure
ignored. So the options and targets of that pytest run are written here, and a
finding about them belongs on the recipe's line. The file is read as text:
variables are expanded from their definitions (and the command line's
``NAME=value``), never by running make; conditionals are not evaluated (both
branches are read), functions such as ``$(shell ...)`` are left as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# The files GNU make looks for, in its order.
MAKEFILE_NAMES = ("GNUmakefile", "makefile", "Makefile")

_ASSIGN = re.compile(
    r"(?:(?:export|override)\s+)*([A-Za-z_][\w.-]*)\s*(::?=|:::=|\?=|\+=|!=|=)\s*(.*)"
)
_RULE = re.compile(r"([^:=#\t][^:=#]*?)\s*::?(?!=)\s*([^;#]*?)\s*(?:;(.*))?")
_REFERENCE = re.compile(r"\$(?:\(([^()$]*)\)|\{([^{}$]*)\}|([@<^$]))")
_DIRECTIVE = re.compile(
    r"(?:ifeq|ifneq|ifdef|ifndef|else|endif|include|-include|sinclude|vpath|unexport)\b"
)
MAX_EXPANSION = 10  # nested variable references followed, at most
MAX_REFERENCES = 10_000  # references expanded in one recipe line, at most (A = $(B)$(B)...)


@dataclass(frozen=True)
class RecipeLine:
    """One recipe line, expanded, with where it is written (1-based, inclusive lines)."""

    target: str
    text: str  # variables expanded, the @ - + prefixes removed
    line: int
    column: int
    end_line: int
    end_column: int
    ignore_status: bool  # written "-command": make goes on when it fails


# One recipe line as written: raw text, line, column, end line, end column.
_Recipe = tuple[str, int, int, int, int]


@dataclass(frozen=True)
class _Rule:
    prerequisites: tuple[str, ...]
    recipe: tuple[_Recipe, ...]


@dataclass(frozen=True)
class Makefile:
    """The rules and variables of one Makefile, as written."""

    rules: dict[str, _Rule]
    variables: dict[str, str]
    default_goal: str | None

    def recipe(
        self, goals: Sequence[str], overrides: Mapping[str, str] | None = None
    ) -> list[RecipeLine]:
        """The lines ``make GOALS`` runs, prerequisites first (each target once);
        ``overrides`` are the command line's ``NAME=value`` assignments."""
        variables = {**self.variables, **(overrides or {})}
        found: list[RecipeLine] = []
        done: set[str] = set()

        def visit(target: str, depth: int) -> None:
            rule = self.rules.get(target)
            if rule is None or target in done or depth > MAX_EXPANSION:
                return
            done.add(target)
            for prerequisite in rule.prerequisites:
                visit(prerequisite, depth + 1)
            for raw, line, column, end_line, end_column in rule.recipe:
                text, ignore = _prefixes(raw)
                automatic = {"@": target, "<": next(iter(rule.prerequisites), "")}
                automatic["^"] = " ".join(rule.prerequisites)
                text = expand(text, variables, automatic)
                found.append(RecipeLine(target, text, line, column, end_line, end_column, ignore))

        for goal in goals or ([self.default_goal] if self.default_goal else []):
            visit(goal, 0)
        return found


def read_makefile(text: str) -> Makefile:
    """Rules (targets, prerequisites, recipe lines) and variable definitions."""
    rules: dict[str, _Rule] = {}
    variables: dict[str, str] = {}
    default_goal: str | None = None
    current: list[str] = []  # the targets whose recipe is being read
    lines = text.splitlines()
    index = 0
    in_define = False
    while index < len(lines):
        number = index + 1
        raw = lines[index]
        if raw.startswith("\t") and current:
            entry, index = _recipe_line(lines, index)
            _add_recipe(rules, current, entry)
            continue
        index += 1
        logical = raw
        while logical.endswith("\\") and index < len(lines):
            logical = logical[:-1] + " " + lines[index].strip()
            index += 1
        stripped = logical.split("#", 1)[0].strip()
        if in_define:
            in_define = stripped != "endef"
            continue
        if not stripped:
            continue  # a blank line or comment does not end a recipe
        if stripped.startswith("define "):
            in_define, current = True, []
            continue
        if _DIRECTIVE.match(stripped):
            continue
        current = []
        assignment = _ASSIGN.fullmatch(stripped)
        if assignment is not None:
            _assign(variables, *assignment.groups())
            continue
        header = _RULE.fullmatch(stripped)
        if header is None or "=" in header[2]:
            continue  # not a rule, or a target-specific variable (test: ARGS = -x)
        current = _add_rule(rules, header, logical, number)
        if default_goal is None and current:
            default_goal = current[0]
    return Makefile(rules, variables, default_goal)


def _recipe_line(lines: Sequence[str], index: int) -> tuple[_Recipe, int]:
    """The recipe line that starts at ``lines[index]`` (tab-indented), and the index of
    the line after it: a backslash continues it, the next line's tab is dropped."""
    number = index + 1
    parts = [lines[index][1:]]
    index += 1
    while parts[-1].endswith("\\") and index < len(lines):
        parts.append(lines[index].removeprefix("\t"))
        index += 1
    return ("\n".join(parts), number, 2, index, len(lines[index - 1]) + 1), index


def _add_recipe(rules: dict[str, _Rule], targets: Sequence[str], entry: _Recipe) -> None:
    """Append one recipe line to the rule of each of ``targets``: a rule written for
    several targets (``unit lint: ; ...``) gives each of them the same recipe."""
    for target in targets:
        rule = rules[target]
        rules[target] = _Rule(rule.prerequisites, (*rule.recipe, entry))


def _assign(variables: dict[str, str], name: str, operator: str, value: str) -> None:
    """Apply one variable assignment as make does, by its operator."""
    if operator == "?=":
        variables.setdefault(name, value)
    elif operator == "+=":
        variables[name] = f"{variables.get(name, '')} {value}".strip()
    elif operator != "!=":  # != runs a shell command: its value is unknown
        variables[name] = value


def _add_rule(
    rules: dict[str, _Rule], header: re.Match[str], logical: str, number: int
) -> list[str]:
    """Record a rule's header (``targets: prerequisites ; recipe``) and return the
    targets that the recipe lines after it belong to.

    A target named again keeps its prerequisites and recipe and gains the new
    prerequisites; pattern targets (``%.o``) are left out, and special targets
    (``.PHONY``) take no recipe.
    """
    targets = [t for t in header[1].split() if "%" not in t]
    prerequisites = tuple(p for p in header[2].split("|")[0].split() if p)
    for target in targets:
        old = rules.get(target)
        previous = old.prerequisites if old is not None else ()
        rules[target] = _Rule((*previous, *prerequisites), old.recipe if old else ())
    current = [t for t in targets if not t.startswith(".")]
    if header[3] and header[3].strip():
        column = logical.index(";") + 2
        _add_recipe(rules, current, (header[3].strip(), number, column, number, len(logical) + 1))
    return current


def expand(
    text: str, variables: Mapping[str, str], automatic: Mapping[str, str] | None = None
) -> str:
    """Make's ``$(NAME)``/``${NAME}`` from ``variables`` (nested ones too), ``$@`` and
    kin from ``automatic``, ``$$`` as ``$``. A function call (``$(shell ...)``,
    ``$(wildcard ...)``) or an undefined name is left as written, to be read as dynamic.
    """

    budget = [MAX_REFERENCES]

    def one(match: re.Match[str], depth: int) -> str:
        name = match[1] if match[1] is not None else match[2]
        if name is None:
            char = match[3]
            return "$" if char == "$" else (automatic or {}).get(char, match[0])
        if " " in name.strip() or name not in variables or budget[0] <= 0:
            return match[0]
        budget[0] -= 1
        if depth >= MAX_EXPANSION:
            return ""
        return _REFERENCE.sub(lambda inner: one(inner, depth + 1), variables[name])

    return _REFERENCE.sub(lambda match: one(match, 0), text)


def _prefixes(raw: str) -> tuple[str, bool]:
    """A recipe line without its ``@``/``-``/``+`` prefixes, and whether ``-`` was one."""
    text = raw.lstrip()
    ignore = False
    while text[:1] in ("@", "-", "+") and text:
        ignore = ignore or text[0] == "-"
        text = text[1:].lstrip()
    return text, ignore
