"""``detlint check --fix`` and its companions from the user's side, on whole repositories.

The golden edits of each builder are in test_fix_python.py and test_fix_ci.py;
here the command line is run on copies of the example and fixture repositories:
what is written and what is not, the exit status, the outputs that carry fixes,
and the properties every fix must keep (only the reported spans change, every
file still parses, a second run changes nothing, the fixed findings are gone).
"""

from __future__ import annotations

import json
import shutil
import stat
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from detlint.cli.main import cli
from detlint.fixes.apply import write_atomic
from detlint.fixes.source_text import SourceText
from detlint.fixes.validate import parse_problem
from detlint.rules.catalogue import rules_directory
from detlint.rules.catalogue_pages import read_pages

ROOT = Path(__file__).parents[2]
NEEDLE = ROOT / "examples" / "needle"
REPOS = Path(__file__).parents[1] / "fixtures" / "repos"


def invoke(*args: str):
    return CliRunner().invoke(cli, ["check", *args], prog_name="detlint")


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


@pytest.fixture
def needle(tmp_path, monkeypatch):
    target = tmp_path / "needle"
    shutil.copytree(NEEDLE, target)
    monkeypatch.chdir(target)
    return target


def test_without_fix_nothing_is_written_whatever_the_format(needle):
    before = snapshot(needle)
    for output_format in ("concise", "full", "json", "sarif", "github", "junit", "buildkite"):
        invoke("--unsafe-fixes", "--output-format", output_format)
    assert snapshot(needle) == before


def test_safe_fix_only_leaves_unsafe_fixes_alone(needle):
    before = snapshot(needle)
    result = invoke("--fix")
    assert result.exit_code == 1  # the findings remain
    assert snapshot(needle) == before
    assert (
        "No fixes available (2 hidden fixes can be enabled with the `--unsafe-fixes` option)."
        in (result.output)
    )


def test_diff_shows_the_edits_and_writes_nothing(needle):
    before = snapshot(needle)
    result = invoke("--diff", "--unsafe-fixes")
    assert result.exit_code == 1
    assert snapshot(needle) == before
    diff = result.stdout
    assert "--- a/tests/test_batch_invariance.py\n+++ b/tests/test_batch_invariance.py\n" in diff
    assert '-NEEDLE_TRIALS = int(os.getenv("NEEDLE_TRIALS", "5"))\n' in diff
    assert '+NEEDLE_TRIALS = int(os.getenv("NEEDLE_TRIALS", "29"))\n' in diff
    assert "-@pytest.mark.flaky(reruns=3)\n" in diff
    assert "--- a/.buildkite/pipeline.yml\n" in diff
    assert "Would fix 2 findings." in result.stderr
    # Nothing to fix without --unsafe-fixes: no diff, exit 0.
    quiet = invoke("--diff")
    assert (quiet.exit_code, quiet.stdout) == (0, "")


def test_fix_applies_the_advice_and_a_second_run_changes_nothing(needle):
    result = invoke("--fix", "--unsafe-fixes", "--show-fixes")
    test_file = (needle / "tests" / "test_batch_invariance.py").read_text()
    assert "@pytest.mark.flaky" not in test_file
    assert 'int(os.getenv("NEEDLE_TRIALS", "29"))' in test_file
    # the other markers, their order and the docstring are kept
    skipif = '@pytest.mark.skipif(sys.platform == "darwin", reason="needs CUDA")\n'
    assert skipif + "@pytest.mark.parametrize(" in test_file
    pipeline = (needle / ".buildkite" / "pipeline.yml").read_text()
    assert "exit_status: -1, limit: 2" in pipeline
    assert "Fixed 2 findings:" in result.stdout
    assert "1 \N{MULTIPLICATION SIGN} DET101 (retry-marker)" in result.stdout
    assert "(2 fixed, 0 remaining)" in result.stdout  # DET501 went with the two it stacked
    assert result.exit_code == 0
    after = snapshot(needle)
    again = invoke("--fix", "--unsafe-fixes")
    assert snapshot(needle) == after
    assert again.exit_code == 0
    assert "All checks passed" in again.stdout


def test_exit_non_zero_on_fix_and_fix_only(needle):
    result = invoke("--fix-only", "--unsafe-fixes", "--exit-non-zero-on-fix")
    assert result.exit_code == 1
    assert result.stdout == ""  # no findings reported
    assert "Fixed 2 findings (0 remaining)." in result.stderr
    again = invoke("--fix-only", "--unsafe-fixes", "--exit-non-zero-on-fix")
    assert again.exit_code == 0


def test_json_and_sarif_carry_each_fix_with_byte_and_line_ranges(needle):
    document = json.loads(invoke("--output-format", "json").stdout)
    by_code = {finding["code"]: finding for finding in document["findings"]}
    fix = by_code["DET101"]["fix"]
    assert fix["applicability"] == "unsafe"
    assert fix["placeholder"] is None
    data = (needle / "tests" / "test_batch_invariance.py").read_bytes()
    removed = [edit for edit in fix["edits"] if edit["content"] == ""]
    assert [data[e["start_byte"] : e["end_byte"]] for e in removed] == [
        b"@pytest.mark.flaky(reruns=3)\n"
    ]
    assert {(edit["line"], edit["content"]) for edit in fix["edits"]} == {(16, '"29"'), (25, "")}
    assert by_code["DET501"]["fix"] is None
    sarif = json.loads(invoke("--output-format", "sarif").stdout)
    results = {r["ruleId"]: r for r in sarif["runs"][0]["results"]}
    change = results["DET411"]["fixes"][0]["artifactChanges"][0]
    assert change["artifactLocation"]["uri"] == ".buildkite/pipeline.yml"
    replacement = change["replacements"][0]
    assert "exit_status: 255" in replacement["insertedContent"]["text"]
    assert "fixes" not in results["DET501"]


def test_a_fix_that_cannot_be_made_says_why_and_the_run_goes_on(tmp_path, monkeypatch):
    (tmp_path / "requirements.txt").write_text("flaky\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_kernel.py").write_text(
        # The flaky package's decorator, and no `import pytest` to write a quarantine with.
        "from flaky import flaky\n\n\n@flaky(max_runs=3)\ndef test_kernel():\n    assert True\n"
    )
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    result = invoke("--fix", "--unsafe-fixes")
    assert result.exit_code == 1
    assert snapshot(tmp_path) == before
    assert "DET101 not fixed:" in result.stderr
    document = json.loads(invoke("--output-format", "json", "--unsafe-fixes").stdout)
    (det101,) = [f for f in document["findings"] if f["code"] == "DET101"]
    assert det101["fix"] is None
    assert det101["fix_unavailable"]


def test_a_configured_quarantine_reason_is_used_and_fixes_det201(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["pytest-rerunfailures"]\n\n'
        '[tool.detlint]\nquarantine-reason = "flaky, see https://example.org/issues/7"\n'
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "import pytest\n\n\n@pytest.mark.flaky(reruns=2)\ndef test_a():\n    assert True\n\n\n"
        '@pytest.mark.xfail(reason="flaky on CI")\ndef test_b():\n    assert True\n'
    )
    monkeypatch.chdir(tmp_path)
    result = invoke("--fix", "--unsafe-fixes")
    text = (tmp_path / "tests" / "test_a.py").read_text()
    assert (
        '@pytest.mark.xfail(strict=False, reason="flaky, see https://example.org/issues/7")\n'
        "def test_a():" in text
    )
    assert (
        '@pytest.mark.xfail(reason="flaky on CI (flaky, see https://example.org/issues/7)")' in text
    )
    assert result.exit_code == 0, result.output
    assert invoke("--fix", "--unsafe-fixes").exit_code == 0
    assert (tmp_path / "tests" / "test_a.py").read_text() == text


def test_the_default_placeholder_leaves_det201_asking_for_the_issue(tmp_path, monkeypatch):
    (tmp_path / "requirements.txt").write_text("pytest-rerunfailures\n")
    (tmp_path / "test_a.py").write_text(
        "import pytest\n\n\n@pytest.mark.flaky(reruns=2)\ndef test_a():\n    assert True\n"
    )
    monkeypatch.chdir(tmp_path)
    result = invoke("--fix", "--unsafe-fixes")
    assert (
        '@pytest.mark.xfail(strict=False, reason="flaky: <tracking issue>")'
        in (tmp_path / "test_a.py").read_text()
    )
    assert "DET201" in result.stdout  # the placeholder is a quarantine that names no issue
    assert "DET101" not in result.stdout


def test_a_quarantine_names_the_issue_the_markers_comment_names(tmp_path, monkeypatch):
    (tmp_path / "requirements.txt").write_text("pytest-rerunfailures\n")
    (tmp_path / "test_a.py").write_text(
        "import pytest\n\n\n"
        "@pytest.mark.flaky(reruns=5)  # See https://github.com/dask/dask/issues/9793\n"
        "def test_a():\n    assert True\n"
    )
    monkeypatch.chdir(tmp_path)
    result = invoke("--fix", "--unsafe-fixes")
    # Wrapped as ruff format wraps it: the line with its comment would pass 88 characters.
    assert (tmp_path / "test_a.py").read_text().splitlines()[3:6] == [
        "@pytest.mark.xfail(",
        '    strict=False, reason="flaky, see https://github.com/dask/dask/issues/9793"',
        ")  # See https://github.com/dask/dask/issues/9793",
    ]
    assert result.exit_code == 0  # a quarantine that names its issue is no DET201


def test_a_param_marks_list_keeps_its_other_marks(tmp_path, monkeypatch):
    """The Python pass reports a pytest.param's marks as one span (the list): the fix
    edits the rerun marker in it and keeps the rest (litgpt's marks=[flaky(...)])."""
    (tmp_path / "requirements.txt").write_text("pytest-rerunfailures\n")
    (tmp_path / "test_p.py").write_text(
        "import pytest\n\n\n@pytest.mark.parametrize(\n    'x',\n    [\n"
        "        pytest.param(1, marks=[pytest.mark.flaky(reruns=3), pytest.mark.slow]),\n"
        "        pytest.param(2, marks=[pytest.mark.flaky(reruns=3)]),\n"
        "        3,\n    ],\n)\ndef test_p(x):\n    assert x\n"
    )
    monkeypatch.chdir(tmp_path)
    invoke("--fix", "--unsafe-fixes")
    quarantine = 'pytest.mark.xfail(strict=False, reason="flaky: <tracking issue>")'
    lines = (tmp_path / "test_p.py").read_text().splitlines()
    assert lines[6] == f"        pytest.param(1, marks=[{quarantine}, pytest.mark.slow]),"
    assert lines[7] == f"        pytest.param(2, marks=[{quarantine}]),"


def test_a_soft_fail_of_chosen_exit_statuses_is_left_to_the_team(tmp_path, monkeypatch):
    """`allow_failure: true` goes; `exit_codes: [1, 137]` keeps an OOM tolerance only the
    team can split from exit status 1, so it gets no fix."""
    (tmp_path / ".gitlab-ci.yml").write_text(
        "test:\n  script:\n    - pytest tests\n  allow_failure:\n    exit_codes: [1, 137]\n"
        "other:\n  script:\n    - pytest tests\n  allow_failure: true\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n")
    monkeypatch.chdir(tmp_path)
    document = json.loads(invoke("--output-format", "json").stdout)
    fixes = {f["line"]: f["fix"] for f in document["findings"] if f["code"] == "DET401"}
    assert fixes[4] is None
    assert fixes[9]["message"] == "Remove `allow_failure` so that test failures fail the build"
    invoke("--fix", "--unsafe-fixes")
    text = (tmp_path / ".gitlab-ci.yml").read_text()
    assert "exit_codes: [1, 137]" in text
    assert text.endswith("other:\n  script:\n    - pytest tests\n")


def test_fix_and_unsafe_fixes_settings_and_no_fix(needle):
    (needle / "detlint.toml").write_text("fix = true\nunsafe-fixes = true\n")
    before = snapshot(needle)
    result = invoke("--no-fix")
    assert snapshot(needle) == before  # --no-fix wins over the setting
    assert " [*] " in result.stdout  # unsafe fixes count as applicable: the setting
    assert invoke().exit_code == 0  # fix = true: a plain check fixes
    assert "@pytest.mark.flaky" not in (needle / "tests" / "test_batch_invariance.py").read_text()


def test_a_fix_setting_must_be_a_boolean(needle):
    (needle / "detlint.toml").write_text('fix = "yes"\n')
    result = invoke()
    assert result.exit_code == 2
    assert "fix must be true or false" in result.output


def test_rerun_options_leave_a_tox_command_line_and_nothing_else(tmp_path, monkeypatch):
    """celery's `smoke: pytest ... --reruns 5 --reruns-delay 10 {posargs}` in tox.ini."""
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text(
        "on: push\njobs:\n  smoke:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: tox -e smoke\n"
    )
    tox = (
        "[tox]\nenvlist = unit, smoke\n\n[testenv]\ndeps = pytest-rerunfailures\n"
        "commands =\n    unit: pytest tests {posargs}\n"
        "    smoke: pytest tests --reruns 5 --reruns-delay 10 {posargs}  # the smoke suite\n"
    )
    (tmp_path / "tox.ini").write_text(tox)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n")
    monkeypatch.chdir(tmp_path)
    result = invoke("--fix", "--unsafe-fixes")
    assert (tmp_path / "tox.ini").read_text() == tox.replace(" --reruns 5 --reruns-delay 10", "")
    assert result.exit_code == 0, result.output


def test_fixes_that_overlap_wait_for_a_later_round(tmp_path, monkeypatch):
    """Two markers whose fixes raise one trial default: --diff shows one and says the
    other follows; --fix makes both, the second on the edited file."""
    (tmp_path / "requirements.txt").write_text("pytest-rerunfailures\n")
    (tmp_path / "test_k.py").write_text(
        'import os\n\nimport pytest\n\nTRIALS = int(os.getenv("K_TRIALS", "5"))\n\n\n'
        "@pytest.mark.flaky(reruns=3)\ndef test_a():\n    for seed in range(TRIALS):\n"
        "        assert run(seed) == run(seed)\n\n\n"
        "@pytest.mark.flaky(reruns=3)\ndef test_b():\n    for seed in range(TRIALS):\n"
        "        assert run(seed) == run(seed)\n"
    )
    monkeypatch.chdir(tmp_path)
    diff = invoke("--diff", "--unsafe-fixes")
    assert "Would fix 1 finding (1 more overlap these edits" in diff.stderr
    assert diff.stdout.count("-@pytest.mark.flaky(reruns=3)") == 1
    result = invoke("--fix", "--unsafe-fixes")
    text = (tmp_path / "test_k.py").read_text()
    assert "flaky" not in text
    assert 'TRIALS = int(os.getenv("K_TRIALS", "29"))' in text
    assert result.exit_code == 0, result.output


# -- writing ---------------------------------------------------------------------


def test_a_file_changed_since_it_was_read_is_not_written(tmp_path):
    path = tmp_path / "ci.yml"
    path.write_bytes(b"new content\n")
    assert write_atomic(path, b"fixed\n", expected=b"old content\n") is not None
    assert path.read_bytes() == b"new content\n"


def test_writes_keep_the_mode_and_go_through_symlinks(tmp_path):
    target = tmp_path / "real.yml"
    target.write_bytes(b"a: 1\n")
    target.chmod(0o751)
    link = tmp_path / "link.yml"
    link.symlink_to(target)
    assert write_atomic(link, b"a: 2\n", expected=b"a: 1\n") is None
    assert link.is_symlink()
    assert target.read_bytes() == b"a: 2\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


# -- properties on every repository detlint's tests know -------------------------


def _repositories() -> list[tuple[str, Path]]:
    """The example and the fixture repositories."""
    found = [("examples/needle", NEEDLE)]
    return found + [(f"repos/{p.name}", p) for p in sorted(REPOS.iterdir()) if p.is_dir()]


def _rule_example_trees(base: Path) -> list[tuple[str, Path]]:
    trees = []
    for code, page in read_pages(rules_directory()).items():
        for number, example in enumerate(page.examples):
            root = base / f"{code}-{number}"
            for file in example.files:
                (root / file.path).parent.mkdir(parents=True, exist_ok=True)
                (root / file.path).write_text(file.content)
            trees.append((f"{code} example {number}", root))
    return trees


def _apply_bytes(data: bytes, edits: list[tuple[int, int, str]]) -> bytes | None:
    """The file with the edits applied by byte range, or None when two overlap."""
    edits = sorted(edits)
    out, position = [], 0
    for start, end, content in edits:
        if start < position:
            return None
        out += [data[position:start], content.encode("utf-8")]
        position = end
    return b"".join([*out, data[position:]])


def test_every_fix_on_every_known_repository_keeps_the_rest_of_each_file(tmp_path, monkeypatch):
    """Apply all fixes everywhere: each changed file parses, its bytes outside the
    reported edits are unchanged, the fixed findings are gone, no DET901 is new, and
    a second --fix changes nothing."""
    copies = []
    for name, source in _repositories():
        target = tmp_path / name.replace("/", "-")
        shutil.copytree(source, target, symlinks=True)
        copies.append((name, target))
    copies += _rule_example_trees(tmp_path / "rule-examples")
    fixed_somewhere = 0
    for name, root in copies:
        monkeypatch.chdir(root)
        report = json.loads(
            invoke("--output-format", "json", "--unsafe-fixes", "--select", "ALL").stdout
        )
        with_fix = [f for f in report["findings"] if f.get("fix")]
        before = snapshot(root)
        problems_before = sum(f["code"] == "DET901" for f in report["findings"])
        invoke("--fix", "--unsafe-fixes", "--select", "ALL")
        after = snapshot(root)
        edits: dict[str, list[tuple[int, int, str]]] = {}
        for finding in with_fix:
            for edit in finding["fix"]["edits"]:
                edits.setdefault(edit["path"], []).append(
                    (edit["start_byte"], edit["end_byte"], edit["content"])
                )
        for path in after:
            if after[path] == before.get(path):
                continue
            assert path in edits, f"{name}: {path} changed without a reported edit"
            text = SourceText.decode(path, after[path]).text
            assert parse_problem(path, text) is None, (name, path)
            expected = _apply_bytes(before[path], edits[path])
            if expected is not None:  # non-overlapping edits: applied in one round, exactly
                assert after[path] == expected, f"{name}: {path} differs outside its edits"
            fixed_somewhere += 1
        recheck = json.loads(invoke("--output-format", "json", "--select", "ALL").stdout)
        # Each fixed finding is gone: per code and file, fewer by the fixes made in one
        # round. A quarantine's placeholder may add a DET201, which asks for the issue.
        count = Counter((f["code"], f["path"]) for f in report["findings"])
        fixes = Counter(
            (f["code"], f["path"])
            for f in with_fix
            if _apply_bytes(before[f["path"]], edits.get(f["path"], [])) is not None
        )
        left = Counter((f["code"], f["path"]) for f in recheck["findings"])
        for key, number in fixes.items():
            if key[0] != "DET201":
                assert left[key] <= count[key] - number, f"{name}: {key} not fixed"
        assert sum(f["code"] == "DET901" for f in recheck["findings"]) <= problems_before, name
        invoke("--fix", "--unsafe-fixes", "--select", "ALL")
        assert snapshot(root) == after, f"{name}: a second --fix changed files"
    assert fixed_somewhere >= 15  # the property is checked on many fixed files, not on none


def test_the_last_parse_check_reads_files_as_their_tools_do():
    # tox and setuptools accept a key twice in a section; configparser's strict mode does not
    duplicated = "[testenv]\ndeps = a\ndeps = b\n\n[pytest]\naddopts = -ra\n"
    assert parse_problem("tox.ini", duplicated) is None
    assert parse_problem("tox.ini", "[pytest\naddopts = -ra\n") is not None
    assert parse_problem("ci.yml", "steps: [\n") is not None
    assert parse_problem("test_a.py", "def f(:\n") is not None
