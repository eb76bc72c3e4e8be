"""The audit's ranking of knobs lists every knob ``detlint check`` reports, each with
what removing it alone wins back on the CI step it sits on.

One test runs under a rerun marker and two Buildkite steps (one soft-failed, one
retrying the job); a GitHub step with ``continue-on-error`` runs a file whose test
has no knob. Every number asserted is worked out below from the model's closed
form (a test of one trial reports a violation of rate q in an attempt with
probability q; every one of its attempts must fail), never read back from detlint.
"""

from __future__ import annotations

import html
import re

import pytest
from realworld_cases import RERUNFAILURES
from repo_expectations import run_check, written_repository
from test_audit_report import run_audit

Q = 0.1
# test_a: @flaky(reruns=1), one trial per attempt: 2 attempts inside pytest.
INSIDE = Q**2  # 0.01
# Step 'soft' (soft_fail: true) never blocks: it reports 0; without the soft fail it
# reports what pytest does, Q**2.
SOFT = (0.0, INSIDE)
# Step 'retried' (retry.automatic limit 2: 3 job runs of 2 attempts) reports Q**6;
# without the job retry, Q**2.
RETRY = (Q**6, INSIDE)
# The marker is counted on the step likeliest to report test_a, 'retried' (Q**6 > 0):
# without it, 3 job runs of one attempt, Q**3.
MARKER = (Q**6, Q**3)
# test_b has no knob: one test of one trial, as check assumes. continue-on-error makes
# its step report 0; without it, Q.
CONTINUE = (0.0, Q)

FILES = {
    **RERUNFAILURES,
    "tests/test_a.py": """\
        import pytest


        @pytest.mark.flaky(reruns=1)
        def test_a():
            assert run()
        """,
    "tests/test_b.py": """\
        def test_b():
            assert run()
        """,
    ".buildkite/pipeline.yml": """\
        steps:
          - label: soft
            command: pytest tests/test_a.py
            soft_fail: true
          - label: retried
            command: pytest tests/test_a.py
            retry:
              automatic:
                - exit_status: "*"
                  limit: 2
        """,
    ".github/workflows/ci.yml": """\
        name: ci
        on: [push]
        jobs:
          test:
            runs-on: ubuntu-latest
            steps:
              - uses: actions/checkout@v4
              - run: pytest tests/test_b.py
                continue-on-error: true
        """,
}

# Where each knob is written, its kind, and (reported, reported without it alone).
EXPECTED = {
    ".github/workflows/ci.yml:9": ("continue-on-error", CONTINUE),
    ".buildkite/pipeline.yml:4": ("soft-fail", SOFT),
    ".buildkite/pipeline.yml:8": ("job-retry", RETRY),
    "tests/test_a.py:4": ("rerun-marker", MARKER),
}


def percent_text(value: float) -> str:
    """The report's rounding of these numbers (three significant digits at most)."""
    texts = {0.0: "0%", Q**6: "<0.001%", Q**3: "0.10%", Q**2: "1.0%", Q: "10.0%"}
    return next(text for number, text in texts.items() if number == pytest.approx(value))


@pytest.fixture
def repo(tmp_path):
    return written_repository(tmp_path, FILES)


def test_check_reports_each_knob_once_a_finding_and_with_these_numbers(repo):
    """The knobs the ranking must hold are those check reports, at these places."""
    _, document = run_check(repo, "--no-cache")
    places = {f"{f['path']}:{f['line']}" for f in document["findings"]}
    assert places == set(EXPECTED)
    by_code = {(f["code"], f["path"]): f["numbers"] for f in document["findings"]}
    # check's own numbers for the CI knobs are the step's, as the ranking's are.
    soft = by_code["DET401", ".buildkite/pipeline.yml"]
    assert (soft["reported"], soft["reported_without"]) == pytest.approx(SOFT)
    retry = by_code["DET411", ".buildkite/pipeline.yml"]
    assert (retry["reported"], retry["reported_without"]) == pytest.approx(RETRY)
    kept = by_code["DET401", ".github/workflows/ci.yml"]
    assert (kept["reported"], kept["reported_without"]) == pytest.approx(CONTINUE)


def test_the_markdown_ranking_holds_every_knob_check_reports(repo):
    summary = run_audit(repo, "--output-format", "markdown")
    assert "### Knobs, by what removing each wins back (4 of 4)" in summary
    rows = [line for line in summary.splitlines() if re.search(r"\| `[^`]+:\d+` \|", line)]
    ranked = []
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        where = cells[1].strip("`")
        if where in EXPECTED:
            ranked.append(where)
            kind, (reported, without) = EXPECTED[where]
            assert cells[0].startswith(f"{kind}: ")
            assert cells[4:7] == [
                percent_text(reported),
                percent_text(without),
                f"{without - reported:.2f}",
            ], row
    # Ranked by win back: 0.1, then 0.01, 0.01 - 1e-6, 0.001 - 1e-6.
    assert ranked == list(EXPECTED)
    assert "| 1 (1 test file without knobs) |" in rows[0]
    # The knob that wins back most is the continue-on-error over test_b.py.
    assert (
        "**The change that wins back most: jobs.test.steps[1].continue-on-error: true "
        "(line 9) at .github/workflows/ci.yml:9 (continue-on-error). With it, the 1 test "
        "(a test file whose tests have no knob, counted as one test) it reaches reports a 10% "
        "violation 0% of the time instead of 10.0% without it"
    ) in summary


def test_the_html_ranking_holds_every_knob_and_counts_all_of_them(repo):
    run_audit(repo, "--output-format", "html", "-o", "audit.html")
    page = (repo / "audit.html").read_text(encoding="utf-8")
    assert "The 4 knobs that win back most (of 4)</h3>" in page
    table = page[page.index('<table id="knob-table">') :]
    table = table[: table.index("</table>")]
    places = [html.unescape(place) for place in re.findall(r'mono muted">([^<]+)</div>', table)]
    assert places == list(EXPECTED)
    rows = table.split("<tr>")[2:]
    for row, (kind, (reported, without)) in zip(rows, EXPECTED.values(), strict=True):
        assert f'<span class="tag">{kind}</span>' in row
        numbers = [html.unescape(n) for n in re.findall(r'<td class="num">([^<]*)</td>', row)]
        assert numbers[-3:] == [
            percent_text(reported),
            percent_text(without),
            f"{without - reported:.2f}",
        ]
    kinds = page[page.index('<table id="kind-table">') :]
    kinds = kinds[: kinds.index("</table>")]
    for kind, _ in EXPECTED.values():
        assert f'<span class="tag">{kind}</span>' in kinds
