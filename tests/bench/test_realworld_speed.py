"""bench/realworld_speed.py on a tiny checkout: its arguments, its rows and its tables.

The timings themselves are not asserted (they are the measurement); what is: the
checkout is surveyed right, the one-file target is the test file with a knob,
every row ran once after its warm-up, detlint's findings were counted, the tree
was not written to, and the tables name every row.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "realworld_speed.py"


def _load():
    spec = importlib.util.spec_from_file_location("realworld_speed", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["realworld_speed"] = module
    spec.loader.exec_module(module)
    return module


speed = _load()


def _checkout(root: Path) -> Path:
    tree = root / "tiny"
    (tree / "tests").mkdir(parents=True)
    (tree / "tests" / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    (tree / "tests" / "test_rerun.py").write_text(
        "import pytest\n\n\n@pytest.mark.flaky(reruns=2)\ndef test_sometimes():\n    assert True\n"
    )
    (tree / "ci.yml").write_text("steps: []\n")
    return tree


def test_one_round_on_a_tiny_checkout(tmp_path, capsys):
    tree = _checkout(tmp_path / "checkouts")
    code = speed.main(
        ["--checkouts", str(tmp_path / "checkouts"), "tiny", "--repeat", "1", "--json", "--quiet"]
    )
    assert code == 0
    document = json.loads(capsys.readouterr().out)
    assert document["runs"] == 1
    (repo,) = document["repositories"]
    assert (repo["name"], repo["files"], repo["python_files"], repo["yaml_files"]) == (
        "tiny",
        3,
        2,
        1,
    )
    assert repo["one_file"] == "tests/test_rerun.py"
    assert repo["tree_written"] is None
    assert sorted(p.name for p in tree.rglob("*")) == [
        "ci.yml",
        "test_plain.py",
        "test_rerun.py",
        "tests",
    ]
    keys = [row["key"] for row in repo["commands"]]
    assert keys == [
        "check",
        "check_warm",
        "check_json",
        "audit",
        "ruff",
        "ruff_warm",
        "grep",
        "parse",
        "one_file",
    ]
    assert all(row["median_seconds"] > 0 and row["peak_rss_mb"] > 0 for row in repo["commands"])
    # grep finds "flaky" in one file (exit 0); detlint reports the bare rerun marker (exit 1).
    by_key = {row["key"]: row for row in repo["commands"]}
    assert by_key["grep"]["exit_codes"] == [0]
    assert by_key["check"]["exit_codes"] == [1]
    assert by_key["parse"]["exit_codes"] == [0]
    assert repo["detlint_findings"] >= 1
    assert set(repo["ratios"]) == {label for label, _, _ in speed.RATIOS}
    assert all(value is not None and value > 0 for value in repo["ratios"].values())
    assert document["worst_cold"] == "tiny"

    text = speed.render_text(document)
    assert "== tiny: 3 files, 2 .py, 1 YAML" in text
    assert "one file: tests/test_rerun.py; tree written: no" in text
    for row in repo["commands"]:
        assert row["command"] in text
    assert text.splitlines()[-1] == "worst detlint cold / ruff cold: tiny"


def test_a_missing_or_empty_checkout_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit) as raised:
        speed.parse_args(["--checkouts", str(tmp_path), "empty", "absent"])
    assert raised.value.code == 2
    assert f"no checkout under {tmp_path}: absent, empty" in capsys.readouterr().err


def test_default_repositories_are_listed_in_repos_toml():
    listed = (SCRIPT.parent / "realworld" / "repos.toml").read_text()
    assert len(speed.DEFAULT_REPOS) == 8
    for name in speed.DEFAULT_REPOS:
        assert f'name = "{name}"' in listed
