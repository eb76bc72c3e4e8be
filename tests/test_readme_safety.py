"""README's "Safety" section: each promise it makes names the tests that hold detlint to it.

The section sits with the adoption material, before "Speed". It is a list of promises,
each a bullet that opens with the promise in bold and cites tests as
``tests/<file>.py::<test function>``; every cited file must exist and hold that test
function (found with ``ast``, not by running it), so a test renamed or removed breaks
this test instead of leaving the README citing nothing.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")

# Each promise the section makes, by its bold opening, and a word each bullet must use.
PROMISES = {
    "It runs nothing of the repository.": "git",
    "It writes nothing unless asked.": "--output-file",
    "`--fix` writes only its edits, only inside the project.": "read-only",
    "`--write-baseline` replaces only a baseline.": "symlink",
    "The cache is yours alone, and only data.": "pickle",
    "What the tree holds cannot stop a run.": "DET901",
}
CITATION = re.compile(r"`(tests/[\w/.-]+\.py)(?:::(\w+))?`")


def section(text: str, title: str) -> str:
    match = re.search(rf"(?ms)^## {re.escape(title)}\n(.*?)(?=^## )", text)
    assert match, f"README has no '## {title}' section"
    return match.group(1)


def bullets(text: str) -> list[str]:
    """The section's list items, each joined into one line."""
    items: list[str] = []
    for line in text.splitlines():
        if line.startswith("- "):
            items.append(line[2:])
        elif line.startswith("  ") and items:
            items[-1] += " " + line.strip()
    return items


@cache
def defined_tests(path: str) -> frozenset[str]:
    """The names of the test functions defined at the top level of the file."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"), filename=path)
    return frozenset(
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    )


def missing(path: str, name: str | None) -> str | None:
    """Why the citation ``path::name`` names no test, or None when it does."""
    if not (ROOT / path).is_file():
        return f"{path} does not exist"
    if name is not None and name not in defined_tests(path):
        return f"{path} has no test function {name}"
    return None


def test_the_safety_section_sits_with_the_adoption_material_before_speed() -> None:
    titles = [line[3:] for line in README.splitlines() if line.startswith("## ")]
    assert "Safety" in titles
    assert titles.index("Safety") == titles.index("Adopting detlint in a team") + 1
    assert titles.index("Safety") + 1 == titles.index("Speed")


def test_each_promise_cites_tests_that_exist() -> None:
    items = bullets(section(README, "Safety"))
    leads = [re.match(r"\*\*(.+?)\*\*", item) for item in items]
    assert all(leads), "every bullet opens with its promise in bold"
    promises = {lead.group(1): item for lead, item in zip(leads, items, strict=True) if lead}
    assert list(promises) == list(PROMISES)
    for promise, item in promises.items():
        assert PROMISES[promise] in item, promise
        citations = CITATION.findall(item)
        assert citations, f"{promise!r} cites no test"
        assert all(name for _, name in citations), promise  # a test, not only its file
        problems = [missing(path, name or None) for path, name in citations]
        assert [problem for problem in problems if problem] == [], promise


def test_every_citation_in_the_section_is_a_test() -> None:
    """Citations outside a bullet are checked too, and nothing is cited twice."""
    cited = CITATION.findall(section(README, "Safety"))
    assert len(cited) >= 30
    assert len(set(cited)) == len(cited)
    assert [missing(path, name or None) for path, name in cited] == [None] * len(cited)


def test_a_citation_of_a_missing_test_is_caught() -> None:
    assert (
        missing("tests/test_readme_safety.py", "test_a_citation_of_a_missing_test_is_caught")
        is None
    )
    assert missing("tests/test_readme_safety.py", "test_renamed_away") == (
        "tests/test_readme_safety.py has no test function test_renamed_away"
    )
    assert missing("tests/test_gone.py", "test_a") == "tests/test_gone.py does not exist"
    assert missing("tests/test_readme_safety.py", "section") == (
        "tests/test_readme_safety.py has no test function section"
    )
