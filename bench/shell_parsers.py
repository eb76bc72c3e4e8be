"""detlint's shell parser against tree-sitter-bash on real CI scripts: agreement and speed.

The CI pass reads every step's shell text with a hand-written lexer and parser
(``detlint/readers/ci/shell/``). tree-sitter-bash is the maintained grammar other CI
linters use; this script decides whether it could replace ours behind the one seam
the walk calls (``parser.parse``), by the two things that matter: it must find the
same simple commands (the walk finds test runs among them, the interpreter decides
exit statuses over them), and it must not be slower.

Texts: every script of every step of the pipelines detlint reads in the given
checkouts, and every ``*.sh`` file in them. For each text, both parsers give the
simple commands as (line, first word after the assignments), nested ``bash -c`` and
``$(...)`` scripts included where each parser reads them; the texts whose two lists
differ are counted and the first few shown. Speed is the total parse time of each,
median of ``--repeat`` runs, in this process.

tree-sitter is not a dependency of detlint: run this with an interpreter that has
both detlint and ``tree-sitter``/``tree-sitter-bash`` installed, e.g.::

    python -m venv /tmp/ts && /tmp/ts/bin/pip install -e . tree-sitter tree-sitter-bash
    /tmp/ts/bin/python bench/shell_parsers.py /tmp/rw/*
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Iterator
from pathlib import Path


def _texts(checkouts: list[Path]) -> list[str]:
    from detlint.readers.ci.facts import script_groups, script_key
    from detlint.readers.ci.pipeline_files import is_yaml_name, system_by_path
    from detlint.readers.ci.pipeline_reader import PipelineReader

    texts: dict[str, None] = {}
    for root in checkouts:
        reader = PipelineReader(root, root)
        for path in root.rglob("*"):
            if ".git" in path.parts or not path.is_file():
                continue
            if path.suffix == ".sh":
                with contextlib.suppress(UnicodeDecodeError, OSError):
                    texts[path.read_text(encoding="utf-8")] = None
                continue
            if not is_yaml_name(path.name):
                continue
            facts = reader.read(path, system_by_path(str(path.relative_to(root))))
            if facts is None:
                continue
            for step in facts.steps:
                for group in script_groups(step):
                    texts[script_key(group)[0]] = None
    return list(texts)


def _ours(text: str) -> list[tuple[int, str]]:
    from detlint.readers.ci.shell.nodes import CommandList, Simple, children
    from detlint.readers.ci.shell.parser import parse

    program, _ = parse(text)
    found: list[tuple[int, str]] = []
    stack: list[object] = [program]
    while stack:
        node = stack.pop()
        if isinstance(node, Simple):
            if node.words:
                found.append((text.count("\n", 0, node.start), node.words[0].raw))
            stack.extend(node.subs)
            if node.nested is not None:
                stack.append(node.nested)
        if isinstance(node, CommandList | Simple) or hasattr(node, "start"):
            stack.extend(children(node))  # type: ignore[arg-type]
    return sorted(found)


def _theirs(parser: object, text: str) -> list[tuple[int, str]]:
    tree = parser.parse(text.encode())  # type: ignore[attr-defined]
    found: list[tuple[int, str]] = []

    def walk(node: object) -> Iterator[object]:
        stack = [node]
        while stack:
            current = stack.pop()
            yield current
            stack.extend(current.children)  # type: ignore[attr-defined]

    for node in walk(tree.root_node):
        kind = node.type  # type: ignore[attr-defined]
        if kind == "command":
            name = node.child_by_field_name("name")  # type: ignore[attr-defined]
            if name is not None:
                found.append((name.start_point[0], name.text.decode(errors="replace")))
        elif kind in _KEYWORD_COMMANDS and node.children:  # type: ignore[attr-defined]
            # export/declare/local, unset and [ / [[ are node types of their own there.
            first = node.children[0]  # type: ignore[attr-defined]
            found.append((first.start_point[0], first.text.decode(errors="replace")))
    return sorted(found)


_KEYWORD_COMMANDS = frozenset({"declaration_command", "unset_command", "test_command"})


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("checkouts", nargs="+", type=Path)
    options.add_argument("--repeat", type=int, default=3)
    options.add_argument("--show", type=int, default=8)
    args = options.parse_args()
    import tree_sitter
    import tree_sitter_bash

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    texts = _texts(args.checkouts)
    differ = []
    counts = 0  # same commands, some counted more often by one parser
    for text in texts:
        ours, theirs = _ours(text), _theirs(parser, text)
        if set(ours) != set(theirs):
            differ.append((text, ours, theirs))
        elif ours != theirs:
            counts += 1
    from detlint.readers.ci.shell.parser import parse

    def timed(run: object) -> float:
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            for text in texts:
                run(text)  # type: ignore[operator]
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    ours_time = timed(parse)
    theirs_time = timed(lambda text: parser.parse(text.encode()))
    size = sum(len(text) for text in texts)
    print(f"{len(texts)} scripts, {size / 1e6:.1f} MB")
    print(f"same simple commands: {len(texts) - len(differ)} of {len(texts)}")
    print(f"  of them, {counts} with a command read more often by one parser")
    missed = sum(not set(theirs) <= set(ours) for _, ours, theirs in differ)
    print(f"scripts where tree-sitter finds a command detlint does not: {missed}")
    print(f"parse time: detlint {ours_time:.3f} s, tree-sitter-bash {theirs_time:.3f} s")
    for text, ours, theirs in differ[: args.show]:
        only_ours = sorted(set(ours) - set(theirs))[:4]
        only_theirs = sorted(set(theirs) - set(ours))[:4]
        print("---", text[:120].replace("\n", "\\n"))
        print("    only detlint:", only_ours, " only tree-sitter:", only_theirs)


if __name__ == "__main__":
    main()
