"""Check that the package's layout still shows the pipeline it runs.

detlint's data flows one way (paths -> readers -> compose -> rules -> report / fixes),
and the package is laid out so that a newcomer can read that flow from folder names.
This script keeps it so, and CI runs it (``tests/test_layout.py``):

- at most ``MAX_TOP_LEVEL`` entries at the top of ``detlint/`` (``__init__``/``__main__``
  aside);
- no import cycle between modules, counting every import: at module level, inside a
  function (lazy) and under ``if TYPE_CHECKING:``;
- every import points down the stack of ``LAYERS`` (a layer imports its own modules and
  those of the layers below it, never one above), and the pairs in ``TYPES_ONLY`` only
  under ``if TYPE_CHECKING:`` (a formatter names the analysis it renders, never runs it);
- every rule in the catalogue (``rules/*.toml``) has its module under
  ``detlint/rules/checks/``, named after the rule;
- modules over ``MAX_MODULE_LINES`` lines and functions over ``MAX_FUNCTION_LINES`` lines
  (from ``def`` to the last line, decorators aside) only where ``ALLOWED`` states why,
  and no more of them than ``MAX_LONG_MODULES`` and ``MAX_LONG_FUNCTIONS``.

Run it from the project root: ``python scripts/check_layout.py`` (``--verbose`` prints the
sizes and the layer of every module). It reads the source with ``ast``; it imports nothing
of detlint.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "detlint"
MAX_TOP_LEVEL = 10
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
MAX_LONG_MODULES = 3
MAX_LONG_FUNCTIONS = 5

# The stack, bottom first: a module may import modules of its own layer and of the layers
# listed before it. The most specific prefix names a module's layer, so a folder's parts
# can be ordered among themselves (readers/yaml/ below readers/ci/).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("detlint.base", "detlint.model", "detlint"),
    # readers/: file formats first, then what reads a project, then the CI pass that
    # follows commands into them, then the repository one run asks about.
    ("detlint.readers.yaml", "detlint.readers.reasons", "detlint.readers.tox"),
    ("detlint.readers.dependencies", "detlint.readers.python"),
    ("detlint.readers.project",),
    ("detlint.readers.ci",),
    ("detlint.readers.repository", "detlint.readers"),
    # compose/: a test's policy, then a test under each CI run.
    ("detlint.compose",),
    ("detlint.compose.ci",),
    # rules/: the catalogue, findings and wording, then one module per rule, then what
    # runs them and applies suppressions to what they found.
    ("detlint.rules",),
    ("detlint.rules.checks",),
    ("detlint.rules.registry", "detlint.rules.suppression"),
    ("detlint.engine", "detlint.fixes"),
    ("detlint.evidence",),
    ("detlint.report",),
    ("detlint.cli", "detlint.__main__"),
)

# (importer, imported): allowed only under ``if TYPE_CHECKING:``.
TYPES_ONLY = (("detlint.report", "detlint.engine"),)

# Within a layer, some parts stand on others: (part, the parts of its layer it must not
# import). ``base`` and ``model`` are the floor: they import nothing else of detlint.
FLOOR = ("detlint.base", "detlint.model")

# "path" or "path:function" -> why it is longer than the limit.
ALLOWED: dict[str, str] = {
    "detlint/readers/ci/shell/parser.py": (
        "the shell grammar is one set of mutually recursive methods of one parser; cut in "
        "two, neither half reads alone"
    ),
    "detlint/readers/ci/shell/simulation.py": (
        "one interpreter whose methods recurse into each other along the syntax tree, the "
        "parser's counterpart; its values and the grading of subtrees are modules of their own"
    ),
    "detlint/readers/yaml/load.py:run": (
        "the composer's loop runs once per YAML event of every pipeline file, with its names "
        "bound locally and the common scalar built inline; a call per event costs more than "
        "the rest of the loop"
    ),
    "detlint/readers/ci/shell/lexer.py:_run": (
        "the tokenizer's loop runs once per token of every CI command, one branch per token "
        "kind sharing the loop's position and here-document state"
    ),
}


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    tree: ast.Module
    lines: int


def modules(root: Path) -> dict[str, Module]:
    found: dict[str, Module] = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        text = path.read_text(encoding="utf-8")
        name = ".".join(parts)
        found[name] = Module(name, path, ast.parse(text, str(path)), text.count("\n"))
    return found


def _resolve(module: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.name.split(".")
    if module.path.name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _known(name: str, known: dict[str, Module]) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking_lines(tree: ast.Module) -> set[int]:
    """The lines of the imports under ``if TYPE_CHECKING:``."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                for child in ast.walk(inner):
                    if isinstance(child, ast.Import | ast.ImportFrom):
                        lines.add(child.lineno)
    return lines


def imports(module: Module, known: dict[str, Module]) -> Iterator[tuple[str, int]]:
    """Every detlint module ``module`` imports (with the line), wherever the import is."""
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    target = _known(alias.name, known)
                    if target:
                        yield target, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, node)
            if base.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                target = _known(f"{base}.{alias.name}", known) or _known(base, known)
                if target:
                    yield target, node.lineno


def layer_of(name: str) -> tuple[int, str]:
    best: tuple[int, str] = (-1, "")
    for rank, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            matches = name == prefix or name.startswith(prefix + ".")
            if matches and len(prefix) > len(best[1]):
                best = (rank, prefix)
    return best


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def rule_modules(root: Path) -> list[str]:
    """Rules of the catalogue without their module in ``detlint/rules/checks/``."""
    missing = []
    for path in sorted((root / "rules").glob("DET*.toml")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("name = "):
                name = line.split("=", 1)[1].strip().strip('"').replace("-", "_")
                if not (root / PACKAGE / "rules" / "checks" / f"{name}.py").is_file():
                    missing.append(f"{path.stem} {name}: no detlint/rules/checks/{name}.py")
                break
    return missing


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def long_functions(module: Module, root: Path) -> Iterator[tuple[str, int]]:
    path = module.path.relative_to(root).as_posix()
    for node in ast.walk(module.tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                yield f"{path}:{node.name}", length


def check(root: Path, verbose: bool = False, allowed: dict[str, str] | None = None) -> list[str]:
    allowed = ALLOWED if allowed is None else allowed
    known = modules(root)
    errors: list[str] = []
    top = sorted(
        entry.name
        for entry in (root / PACKAGE).iterdir()
        if entry.name not in ("__init__.py", "__main__.py", "__pycache__")
        and (entry.is_dir() or entry.suffix == ".py")
    )
    if len(top) > MAX_TOP_LEVEL:
        errors.append(f"{len(top)} entries at the top of {PACKAGE}/ (at most {MAX_TOP_LEVEL})")
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, module in known.items():
        typing_lines = _type_checking_lines(module.tree)
        rank, prefix = layer_of(name)
        if rank < 0:
            errors.append(f"{name}: in no layer of LAYERS")
        for target, line in imports(module, known):
            if target == name:
                continue
            graph[name].add(target)
            target_rank, target_prefix = layer_of(target)
            where = f"{module.path.relative_to(root)}:{line}"
            if target_rank > rank:
                errors.append(f"{where}: {name} imports {target}, a layer above it")
            floor = next((f for f in FLOOR if prefix == f), None)
            if floor and target != PACKAGE and target_prefix != floor:
                errors.append(f"{where}: {name} is in {floor}, which imports only itself")
            for importer, imported in TYPES_ONLY:
                if (
                    _within(name, importer)
                    and _within(target, imported)
                    and line not in typing_lines
                ):
                    errors.append(f"{where}: {name} imports {target} at run time")
    for component in cycles(graph):
        errors.append("import cycle: " + " <-> ".join(component))
    errors += rule_modules(root)
    long_modules = []
    for module in known.values():
        if module.lines > MAX_MODULE_LINES:
            key = module.path.relative_to(root).as_posix()
            long_modules.append(key)
            if key not in allowed:
                errors.append(f"{key}: {module.lines} lines, over {MAX_MODULE_LINES}")
    if len(long_modules) > MAX_LONG_MODULES:
        errors.append(f"{len(long_modules)} modules over {MAX_MODULE_LINES} lines")
    functions = [item for module in known.values() for item in long_functions(module, root)]
    for key, length in functions:
        if key not in allowed:
            errors.append(f"{key}: {length} lines, over {MAX_FUNCTION_LINES}")
    if len(functions) > MAX_LONG_FUNCTIONS:
        errors.append(f"{len(functions)} functions over {MAX_FUNCTION_LINES} lines")
    stale = [key for key in allowed if key not in long_modules + [k for k, _ in functions]]
    errors += [f"ALLOWED names {key}, which is no longer long" for key in stale]
    if verbose:
        print(f"{len(top)} top-level entries: {', '.join(top)}")
        print(f"{len(known)} modules, {sum(m.lines for m in known.values())} lines")
        for module in sorted(known.values(), key=lambda m: -m.lines)[:15]:
            print(f"  {module.lines:5} {module.path.relative_to(root)}")
        for key, length in sorted(functions, key=lambda item: -item[1]):
            print(f"  {length:5} {key}")
    return errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    errors = check(args.root, args.verbose)
    for error in errors:
        print(error)
    print(f"layout: {'ok' if not errors else f'{len(errors)} problems'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
