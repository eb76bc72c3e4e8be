"""The package's layout shows the pipeline it runs: ``scripts/check_layout.py`` on the
real tree, and on small trees that break each of its rules once."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "check_layout.py"


def _layout():  # the script is not a package module: load it by path
    spec = importlib.util.spec_from_file_location("check_layout", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_layout"] = module
    spec.loader.exec_module(module)
    return module


layout = _layout()


def test_the_package_keeps_its_layout():
    result = subprocess.run(
        [sys.executable, str(SCRIPT)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "layout: ok"


def _tree(root: Path, files: dict[str, str]) -> Path:
    """A package ``detlint`` (and a rule catalogue) holding ``files``; every folder gets
    an ``__init__.py``."""
    for name, text in {"detlint/__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        for parent in path.relative_to(root).parents:
            if parent.parts and parent.parts[0] == "detlint":
                (root / parent / "__init__.py").touch()
    (root / "rules").mkdir(exist_ok=True)
    return root


def _errors(root: Path, files: dict[str, str]) -> list[str]:
    return layout.check(_tree(root, files), allowed={})


def test_a_small_tree_that_follows_every_rule_passes(tmp_path):
    files = {
        "detlint/base/span.py": "X = 1\n",
        "detlint/readers/ci/facts.py": "from detlint.base.span import X\n",
        "detlint/compose/policy.py": "from detlint.readers.ci.facts import X\n",
        "detlint/report/formats.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from detlint.engine import Analysis\n"
        ),
        "detlint/engine.py": "from detlint.compose import policy\n",
    }
    assert _errors(tmp_path, files) == []


def test_more_than_ten_entries_at_the_top(tmp_path):
    files = {f"detlint/part{index}.py": "" for index in range(11)}
    assert _errors(tmp_path, files) == ["11 entries at the top of detlint/ (at most 10)"]


@pytest.mark.parametrize(
    "second",
    [
        "from detlint.compose import a\n",  # at module level
        "def f():\n    from detlint.compose import a\n",  # lazy
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from detlint.compose import a\n",
    ],
    ids=["module-level", "lazy", "type-checking"],
)
def test_an_import_cycle_is_found_however_the_import_is_written(tmp_path, second):
    files = {
        "detlint/compose/a.py": "from detlint.compose import b\n",
        "detlint/compose/b.py": second,
    }
    assert _errors(tmp_path, files) == ["import cycle: detlint.compose.a <-> detlint.compose.b"]


def test_an_import_of_a_layer_above(tmp_path):
    files = {
        "detlint/compose/policy.py": "X = 1\n",
        "detlint/readers/python/facts.py": "from detlint.compose.policy import X\n",
    }
    (error,) = _errors(tmp_path, files)
    assert "detlint.readers.python.facts imports detlint.compose.policy, a layer above it" in error


def test_the_parts_of_a_folder_are_ordered_too(tmp_path):
    files = {
        "detlint/readers/ci/facts.py": "X = 1\n",
        "detlint/readers/yaml/tree.py": "from detlint.readers.ci.facts import X\n",
    }
    (error,) = _errors(tmp_path, files)
    assert "readers.yaml.tree imports detlint.readers.ci.facts, a layer above it" in error


def test_base_imports_nothing_else_of_detlint(tmp_path):
    files = {
        "detlint/model/layers.py": "X = 1\n",
        "detlint/base/span.py": "from detlint.model.layers import X\n",
    }
    (error,) = _errors(tmp_path, files)
    assert error.endswith("detlint.base.span is in detlint.base, which imports only itself")


def test_a_report_imports_the_engine_only_for_its_types(tmp_path):
    files = {
        "detlint/engine.py": "class Analysis: ...\n",
        "detlint/report/audit.py": "from detlint.engine import Analysis\n",
    }
    (error,) = _errors(tmp_path, files)
    assert error.endswith("detlint.report.audit imports detlint.engine at run time")


def test_long_modules_and_functions_need_a_stated_reason(tmp_path):
    body = "".join(f"    x{index} = {index}\n" for index in range(60))
    files = {
        "detlint/base/long.py": "X = 1\n" * 401,
        "detlint/base/function.py": f"def f():\n{body}",
    }
    errors = _errors(tmp_path, files)
    assert "detlint/base/long.py: 401 lines, over 400" in errors
    assert "detlint/base/function.py:f: 61 lines, over 60" in errors
    reasons = {"detlint/base/long.py": "why", "detlint/base/function.py:f": "why"}
    assert layout.check(tmp_path, allowed=reasons) == []


def test_a_reason_for_what_is_no_longer_long_is_stale(tmp_path):
    _tree(tmp_path, {"detlint/base/short.py": "X = 1\n"})
    errors = layout.check(tmp_path, allowed={"detlint/base/short.py": "why"})
    assert errors == ["ALLOWED names detlint/base/short.py, which is no longer long"]


def test_every_rule_has_its_module(tmp_path):
    _tree(tmp_path, {"detlint/rules/checks/retry_marker.py": "X = 1\n"})
    (tmp_path / "rules" / "DET101.toml").write_text('code = "DET101"\nname = "retry-marker"\n')
    (tmp_path / "rules" / "DET102.toml").write_text(
        'code = "DET102"\nname = "marker-plugin-mismatch"\n'
    )
    assert layout.check(tmp_path, allowed={}) == [
        "DET102 marker_plugin_mismatch: no detlint/rules/checks/marker_plugin_mismatch.py"
    ]
