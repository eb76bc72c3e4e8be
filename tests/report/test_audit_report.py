"""The audit for people: the view's numbers, the HTML page and the Markdown summary.

Each repository here is written by the test; every number asserted is worked out
from the model's closed forms (1 - (1 - q)**T per attempt, every one of R + 1
attempts failing), never read back from detlint. The browser and the HTML
validator check the page in tests/test_audit_browser.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import cmarkgfm
import pytest
from click.testing import CliRunner
from realworld_cases import RERUNFAILURES, check, only
from repo_expectations import written_repository

from detlint.base.percentages import percent
from detlint.cli.main import cli
from detlint.cli.shared import settings_and_codes
from detlint.engine import analyse
from detlint.model import BLOCKING, Policy, Reruns
from detlint.report.audit import markdown
from detlint.report.audit.curves import GRID, curve
from detlint.report.audit.facts import AuditView
from detlint.report.audit.view import audit_view

Q = 0.1
ATTEMPT = 1 - (1 - Q) ** 5  # one attempt of the needle test's 5 trials

SUITE = {
    **RERUNFAILURES,
    "tests/test_needle.py": """\
        import os

        import pytest


        @pytest.mark.flaky(reruns=3)
        def test_needle():
            trials = int(os.getenv("NEEDLE_TRIALS", "5"))
            for _ in range(trials):
                assert run()
        """,
    "tests/test_quarantine.py": """\
        import sys

        import pytest


        @pytest.mark.skip(reason="flaky on CI")
        def test_skipped_as_flaky():
            assert run()


        @pytest.mark.xfail(strict=False, reason="flaky, see #12")
        def test_quarantined():
            assert run()


        @pytest.mark.skip(reason="needs a GPU")
        @pytest.mark.flaky(reruns=2)
        def test_never_runs_here():
            assert run()


        @pytest.mark.skipif(sys.platform == "win32", reason="posix only")
        @pytest.mark.flaky(reruns=1)
        def test_posix():
            assert run()


        @pytest.mark.xfail(sys.platform == "win32", reason="rounding differs, bug 40")
        def test_known_bug_on_windows():
            assert run()
        """,
}

PIPELINE = {
    ".buildkite/pipeline.yml": """\
        steps:
          - label: tests
            command: pytest tests/test_needle.py
            soft_fail: true
            retry:
              automatic:
                - exit_status: "*"
                  limit: 2
        """,
}


def view_of(root: Path, files: dict[str, str]) -> AuditView:
    repo = written_repository(root, files)
    previous = Path.cwd()
    os.chdir(repo)
    try:
        settings, selected = settings_and_codes((), (), None, None, None)
        analysis = analyse((), Path.cwd(), settings, selected)
        return audit_view(analysis, Path.cwd(), Q, 0.95, "detlint audit", "2026-12-02")
    finally:
        os.chdir(previous)


def by_name(view: AuditView) -> dict[str, object]:
    return {test.label.rpartition("::")[2]: test for test in view.tests}


def run_audit(repo: Path, *args: str) -> str:
    previous = Path.cwd()
    os.chdir(repo)
    try:
        result = CliRunner().invoke(cli, ["audit", "--no-cache", *args], prog_name="detlint")
    finally:
        os.chdir(previous)
    assert result.exit_code == 0, result.output
    return result.output


# -- the view --------------------------------------------------------------------


def test_each_test_shows_its_whole_stack_with_the_models_numbers(tmp_path):
    tests = by_name(view_of(tmp_path, SUITE))
    needle = tests["test_needle"]
    assert needle.reported == pytest.approx(ATTEMPT**4)
    assert needle.reported_without == pytest.approx(ATTEMPT)
    assert needle.loss == pytest.approx(ATTEMPT - ATTEMPT**4)
    assert needle.layers == (
        "5 trials per attempt",
        "reruns=3 (pytest-rerunfailures, 4 attempts)",
        "blocks the build",
    )
    # q50: (1 - (1 - q)**5)**4 = 1/2.
    assert needle.q50 == pytest.approx(1 - (1 - 0.5**0.25) ** 0.2)
    assert needle.rules == ("DET101",)
    assert "NEEDLE_TRIALS to 29" in needle.suggestion
    posix = tests["test_posix"]
    assert posix.reported == pytest.approx(Q**2)
    assert posix.environments == (
        'skipped where `sys.platform == "win32"`: a 10% violation is reported 0% of the time',
    )
    for name in ("test_skipped_as_flaky", "test_quarantined"):
        assert tests[name].never_blocks
        assert tests[name].reported == 0.0
        assert tests[name].reported_without == pytest.approx(Q)


def test_skips_and_xfails_that_do_not_say_flaky_are_left_out_and_counted(tmp_path):
    """A skip for a GPU, an xfail for a known bug or a platform skipif hide no
    intermittent failure: the report leaves them out and says how many it left."""
    view = view_of(tmp_path, SUITE)
    assert set(by_name(view)) == {
        "test_needle",
        "test_skipped_as_flaky",
        "test_quarantined",
        "test_posix",
    }
    assert (view.headline.not_run, view.headline.without_hiding_knob) == (1, 1)


def test_the_headline_counts_medians_and_names_the_change_that_wins_back_most(tmp_path):
    view = view_of(tmp_path, SUITE)
    head = view.headline
    assert (head.tests, head.masked, head.never_block, head.effectively_never) == (4, 4, 2, 0)
    reported = sorted([ATTEMPT**4, 0.0, 0.0, Q**2])
    assert head.median_reported == pytest.approx((reported[1] + reported[2]) / 2)
    assert head.median_without == pytest.approx(Q)
    assert head.best is not None
    assert head.best.description == "pytest.mark.flaky(reruns=3)"
    assert head.best.gain == pytest.approx(ATTEMPT - ATTEMPT**4)
    gains = {knob.description: knob.gain for knob in view.knobs}
    assert gains['pytest.mark.skip(reason="flaky on CI")'] == pytest.approx(Q)
    assert gains["pytest.mark.flaky(reruns=1)"] == pytest.approx(Q - Q**2)
    kinds = {kind.kind: kind for kind in view.kinds}
    assert kinds["rerun-marker"].knobs == 2  # the test that never runs is not in the report
    assert kinds["rerun-marker"].gain == pytest.approx(ATTEMPT - ATTEMPT**4 + Q - Q**2)


def test_each_ci_knob_is_credited_with_what_removing_it_alone_gives(tmp_path):
    """A soft-failed step that also retries the job: removing the soft fail makes the
    step block, with the retries and the rerun marker still there; removing the retry
    or the marker alone wins back nothing, the step still never blocks."""
    view = view_of(tmp_path, {**SUITE, **PIPELINE})
    needle = by_name(view)["test_needle"]
    assert needle.step == "tests"
    assert needle.never_blocks
    assert needle.reported == 0.0
    assert needle.layers[-1] == "soft fail: never blocks (still visible)"
    knobs = {knob.kind: knob for knob in view.knobs if needle_path(knob.path)}
    assert knobs["soft-fail"].gain == pytest.approx(ATTEMPT**12)  # 4 attempts x 3 job runs
    assert knobs["job-retry"].gain == 0.0
    assert knobs["rerun-marker"].gain == 0.0
    (step,) = view.steps
    assert step.knobs[0].startswith("soft_fail: true")
    assert (step.tests, step.test_files) == (1, 1)


def needle_path(path: str) -> bool:
    return path.endswith(("test_needle.py", "pipeline.yml"))


def test_a_second_knob_inside_pytest_leaves_the_test_uncounted(tmp_path):
    """A marker in front of the config's reruns: without the marker the config's
    reruns apply, so the marker is not credited with the whole loss."""
    files = {
        **RERUNFAILURES,
        "pytest.ini": "[pytest]\naddopts = --reruns 2\n",
        "tests/test_a.py": """\
            import pytest


            @pytest.mark.flaky(reruns=3)
            def test_a():
                assert run()
            """,
    }
    view = view_of(tmp_path, files)
    (test,) = view.tests
    assert test.reported == pytest.approx(Q**4)
    marker = next(knob for knob in view.knobs if knob.kind == "rerun-marker")
    assert (marker.counted, marker.uncounted, marker.gain) == (0, 1, 0.0)
    assert view.headline.best is None


def test_the_curves_are_the_models_numbers_on_every_point():
    policy = Policy(trials=5, layers=(Reruns(3),), gate=BLOCKING)
    drawn = curve("needle", policy, Q)
    assert drawn.rates == GRID
    assert (GRID[0], GRID[-1]) == (pytest.approx(1e-4), 1.0)
    for q, reported, without in zip(GRID, drawn.reported, drawn.reported_without, strict=True):
        attempt = 1 - (1 - q) ** 5
        assert reported == pytest.approx(attempt**4, rel=1e-12, abs=1e-300)
        assert without == pytest.approx(attempt, rel=1e-12)
    assert drawn.q50 == pytest.approx(1 - (1 - 0.5**0.25) ** 0.2)
    assert drawn.q50_without == pytest.approx(1 - 0.5**0.2)
    assert drawn.at_reference == pytest.approx(ATTEMPT**4)


# -- the HTML page ---------------------------------------------------------------

_ATTRIBUTE = re.compile(r"""\s(?:src|href|xlink:href|action|poster)\s*=\s*["']([^"']*)["']""")


def html_of(repo: Path) -> str:
    run_audit(repo, "--output-format", "html", "-o", "audit.html")
    return (repo / "audit.html").read_text(encoding="utf-8")


def embedded_data(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="audit-data">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found.group(1))


def test_the_page_is_self_contained_and_holds_every_test(tmp_path):
    repo = written_repository(tmp_path, {**SUITE, **PIPELINE})
    page = html_of(repo)
    assert page.startswith("<!DOCTYPE html>")
    # Nothing is fetched: no external script, style, image or font, no URL to load.
    assert not re.search(r"<(?:link|img|iframe|object|embed)\b", page)
    assert not re.search(r"<script[^>]*\bsrc=", page)
    assert not re.search(r"url\((?!#)|@import", page)  # url(#clip) is the plot's own
    assert all(value.startswith("#") for value in _ATTRIBUTE.findall(page))
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "ids must be unique across the inlined plots"
    data = embedded_data(page)
    rows = {row["l"].rpartition("::")[2]: row for row in data["tests"]}
    assert set(rows) == {"test_needle", "test_skipped_as_flaky", "test_quarantined", "test_posix"}
    needle = data["policies"][rows["test_needle"]["P"]]
    assert needle["nb"] is True
    assert needle["wt"] == percent(ATTEMPT)
    assert data["helps"][rows["test_needle"]["g"]].startswith("let the step block")
    # The headline, in words, with the model's numbers.
    assert "4 tests run under knobs that hide intermittent failures" in page
    assert "soft_fail: true" in page
    assert page.count('<figure class="curve"') == 2
    for svg in re.findall(r"<svg.*?</svg>", page, re.S):
        assert "<path" in svg


def test_user_text_is_escaped_in_the_page(tmp_path):
    files = {
        **RERUNFAILURES,
        "tests/test_x.py": """\
            import pytest


            @pytest.mark.skip(reason="flaky </script><b>bold</b>")
            def test_x():
                assert run()
            """,
    }
    page = html_of(written_repository(tmp_path, files))
    assert "<b>bold</b>" not in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page  # the knob table, escaped by the template
    data = embedded_data(page)  # the JSON cannot close its own script element
    assert data["knobs"][0]["d"].endswith('"flaky </script><b>bold</b>")')


def many_tests(
    modules: int, per_module: int, name: str = "test_case_{index:03d}_{module:02d}"
) -> dict[str, str]:
    """A repository of ``modules`` files of ``per_module`` tests each, every one under a
    rerun marker (reruns from 1 to 5)."""
    files = dict(RERUNFAILURES)
    for module in range(modules):
        body = ["import pytest", ""]
        for index in range(per_module):
            body += [
                f"@pytest.mark.flaky(reruns={(module + index) % 5 + 1})",
                f"def {name.format(index=index, module=module)}():",
                "    assert compute() == expected()",
                "",
            ]
        files[f"tests/test_module_{module:02d}.py"] = "\n".join(body)
    return files


def test_a_page_of_five_thousand_tests_stays_under_five_megabytes(tmp_path):
    files = many_tests(50, 100, "test_case_{index:03d}_with_a_long_descriptive_name_{module}")
    page = html_of(written_repository(tmp_path, files))
    assert len(page.encode()) < 5 * 1024 * 1024
    assert len(embedded_data(page)["tests"]) == 5000


def test_the_html_report_without_its_libraries_says_what_to_install(tmp_path):
    """sys.modules[name] = None makes an import fail as if the package were absent."""
    repo = written_repository(tmp_path, SUITE)
    program = (
        "import sys; sys.modules['matplotlib'] = None; "
        "from detlint.cli.main import main; sys.argv = ['detlint', 'audit', '--output-format', "
        "'html']; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=repo, capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "detlint audit: error: the HTML report needs matplotlib, which is not installed: "
        "pip install 'detlint[report]'"
    ]


def test_check_and_the_other_audit_formats_import_no_report_library(tmp_path):
    repo = written_repository(tmp_path, {**SUITE, **PIPELINE})
    program = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from detlint.cli.main import cli\n"
        "for args in (['check'], ['audit', '--output-format', 'markdown'], ['audit']):\n"
        "    CliRunner().invoke(cli, [*args, '--no-cache'], prog_name='detlint')\n"
        "print(sorted(n for n in ('jinja2', 'matplotlib', 'tqdm') if n in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=repo, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


# -- the Markdown summary ------------------------------------------------------------


def test_the_summary_renders_as_github_markdown_with_the_numbers(tmp_path):
    text = run_audit(
        written_repository(tmp_path, {**SUITE, **PIPELINE}), "--output-format", "markdown"
    )
    rendered = cmarkgfm.github_flavored_markdown_to_html(text)
    assert rendered.count("<table>") == 4  # headline, tests, knobs, steps
    assert "<a " not in rendered  # link-free
    assert "<h2>detlint audit:" in rendered
    rows = re.findall(r"<tr>(.*?)</tr>", rendered, re.S)
    needle = next(row for row in rows if "test_needle" in row)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", needle, re.S)
    assert cells[3:] == ["never", percent(ATTEMPT), f"{ATTEMPT * 100:.1f}"]
    assert "soft fail: never blocks" in cells[2]


def test_table_cells_keep_pipes_and_markup_out_of_the_table(tmp_path):
    assert markdown.cell("a | b\n<script>x</script> <0.001%") == (
        "a \\| b &lt;script>x&lt;/script> <0.001%"
    )
    assert markdown.code("test[`x`|y]") == "``test[`x`\\|y]``"
    assert markdown.code("`x`") == "`` `x` ``"
    rendered = cmarkgfm.github_flavored_markdown_to_html(
        "| a | b |\n|---|---|\n| "
        + markdown.code("t[a|b]")
        + " | "
        + markdown.cell("<img src=x>")
        + " |\n"
    )
    assert "<code>t[a|b]</code>" in rendered
    assert "<img" not in rendered


def test_the_summary_stays_under_its_limit_and_says_what_it_cut(tmp_path, monkeypatch):
    files = dict(RERUNFAILURES)
    body = ["import pytest", ""]
    for index in range(60):
        body += [
            f"@pytest.mark.flaky(reruns={index % 4 + 1})",
            f"def test_{'long_name_' * 20}{index}():",
            "    assert compute()",
            "",
        ]
    files["tests/test_many.py"] = "\n".join(body)
    repo = written_repository(tmp_path, files)
    whole = run_audit(repo, "--output-format", "markdown")
    assert "The 50 tests that lose most (of 60)" in whole
    assert "Not shown: 10 tests" in whole
    monkeypatch.setattr(markdown, "LIMIT", 12_000)
    cut = run_audit(repo, "--output-format", "markdown")
    assert len(cut.encode()) <= 12_000
    shown = int(re.search(r"### The (\d+) tests that lose most", cut).group(1))
    assert 0 < shown < 50
    assert f"Not shown: {60 - shown} tests" in cut


PARAMS = """\
import pytest

gpu = pytest.mark.skipif(not has_gpu(), reason="needs a GPU")
mps = pytest.mark.skipif(not has_mps(), reason="needs MPS")


@pytest.mark.flaky(reruns=3)
@pytest.mark.parametrize(
    "precision",
    [
        pytest.param(32, marks=gpu),
        pytest.param(16, marks=gpu), pytest.param(8, marks=mps),
        "bf16",
    ],
)
def test_parity(precision):
    assert run(precision)
"""


def test_a_marker_on_a_parametrized_test_covers_its_instances_once(tmp_path):
    """pytorch-lightning test_spike.py: 24 params, 16 with `marks=RunIf(...)`; the
    rerun marker's finding said "covers 2 tests, 40 test instances" (the params' own
    gates counted again, and as tests)."""
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_params.py": PARAMS})
    message = only(document, "DET101")["message"]
    assert "; covers 4 test instances)" in message


def test_params_with_marks_of_one_name_are_told_apart(tmp_path):
    """pytorch-lightning test_parity_simple.py: four `pytest.param(..., marks=RunIf(...))`
    of one test, two on one line, were four table rows with one label."""
    files = {
        **RERUNFAILURES,
        "tests/test_params.py": PARAMS,
    }
    labels = [test.label.rpartition("::")[2] for test in view_of(tmp_path, files).tests]
    assert sorted(labels) == [
        "test_parity",
        "test_parity[pytest.param marks=skipif on line 11]",
        "test_parity[pytest.param marks=skipif on line 12, column 32]",
        "test_parity[pytest.param marks=skipif on line 12, column 60]",
    ]


def test_no_change_is_named_when_no_knob_alone_gives_back_a_point(tmp_path):
    """celery: five reruns inside a job that retries twice. Removing either alone
    leaves the test reporting at most 0.1% of violations: the headline names neither,
    and says why."""
    files = {
        **RERUNFAILURES,
        "tests/test_chain.py": """\
            import pytest


            @pytest.mark.flaky(reruns=5)
            def test_chain():
                assert run()
            """,
        ".buildkite/pipeline.yml": """\
            steps:
              - label: tests
                command: pytest tests/test_chain.py
                retry:
                  automatic:
                    - exit_status: "*"
                      limit: 2
            """,
    }
    view = view_of(tmp_path, files)
    gains = sorted(knob.gain for knob in view.knobs)
    assert gains == [pytest.approx(Q**6 - Q**18), pytest.approx(Q**3 - Q**18)]
    assert view.headline.best is None
    summary = run_audit(written_repository(tmp_path, files), "--output-format", "markdown")
    assert "No single knob, removed alone, gives its tests back a point" in summary


def test_the_headline_counts_the_test_files_a_soft_failed_step_runs_as_files(tmp_path):
    """tpu-inference: a soft-failed step runs all of tests/; the tests of files with no
    knob or trial loop are linked per file, so the headline counts those files."""
    files = {
        **SUITE,
        "tests/test_plain.py": "def test_plain():\n    assert run()\n",
        "tests/test_other.py": "def test_other():\n    assert run()\n",
        ".buildkite/pipeline.yml": """\
            steps:
              - label: tests
                command: pytest tests
                soft_fail: true
            """,
    }
    view = view_of(tmp_path, files)
    assert view.headline.files_under_ci_knobs == 2
    summary = run_audit(written_repository(tmp_path, files), "--output-format", "markdown")
    assert "CI steps with such knobs also run 2 more test files" in summary
