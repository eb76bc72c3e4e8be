"""Inline ``# detlint: ignore`` comments on real runs: where a comment reaches, what it
covers, what it must not (string literals, other codes, the previous statement), and
DET902 for comments that hide nothing."""

from __future__ import annotations

import textwrap

import pytest

from detlint.engine import analyse
from detlint.readers.project.settings import Settings
from detlint.rules.catalogue import RULES, select_codes
from detlint.rules.suppression import apply_suppressions, parse_comments

DEFAULT = select_codes(None, ())
WITH_UNUSED = DEFAULT | {"DET902"}

MARKERS = '''\
import pytest


# detlint: ignore[DET101] accepted until the GPU pool is fixed
@pytest.mark.flaky(reruns=3)
def test_comment_above():
    pass


@pytest.mark.flaky(reruns=3)  # detlint: ignore[DET101]
def test_trailing():
    pass


@pytest.mark.flaky(
    reruns=3,  # detlint: ignore[DET101]
)
def test_inside_multiline_marker():
    pass


# detlint: ignore[DET101]
@pytest.mark.parametrize("size", [1, 2])
@pytest.mark.flaky(reruns=3)
def test_above_decorator_block():
    pass


X = 1  # detlint: ignore[DET101]
@pytest.mark.flaky(reruns=3)
def test_trailing_comment_on_the_line_above():
    pass


NOTE = """
# detlint: ignore[DET101]"""
@pytest.mark.flaky(reruns=3)
def test_directive_in_a_string():
    pass


# detlint: ignore[DET102]
@pytest.mark.flaky(reruns=3)
def test_wrong_code():
    pass


# detlint: ignore
@pytest.mark.flaky(reruns=3)
def test_bare_ignore():
    pass


@pytest.mark.flaky(reruns=3)
def test_no_comment():
    pass
'''


def _write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _run(root, report_unused=False, selected=DEFAULT):
    analysis = analyse([root], root, Settings(), selected)
    return analysis, apply_suppressions(
        analysis.findings, analysis.checked, root, report_unused, selected
    )


def _line_of(root, path, needle):
    lines = (root / path).read_text().splitlines()
    (number,) = [i for i, line in enumerate(lines, start=1) if needle in line]
    return number


@pytest.fixture(scope="module")
def markers(tmp_path_factory):
    root = tmp_path_factory.mktemp("markers")
    _write(
        root,
        {"requirements.txt": "pytest-rerunfailures==16.7\n", "tests/test_markers.py": MARKERS},
    )
    analysis, result = _run(root, report_unused=True, selected=WITH_UNUSED)
    return root, analysis, result


def _marker_lines(root, names):
    """The line of the flaky marker that decorates each named test."""
    lines = (root / "tests/test_markers.py").read_text().splitlines()
    found = {}
    for name in names:
        at = next(i for i, line in enumerate(lines) if f"def {name}(" in line)
        marker = next(i for i in range(at, 0, -1) if "mark.flaky" in lines[i - 1])
        found[name] = marker
    return found


def test_comments_in_reach_hide_the_marker_and_others_do_not(markers):
    root, analysis, result = markers
    hidden = {
        "test_comment_above",
        "test_trailing",
        "test_inside_multiline_marker",
        "test_above_decorator_block",
        "test_bare_ignore",
    }
    shown = {
        "test_trailing_comment_on_the_line_above",
        "test_directive_in_a_string",
        "test_wrong_code",
        "test_no_comment",
    }
    lines = _marker_lines(root, hidden | shown)
    # Every marker is a DET101 finding before suppression, so the split below is the
    # comments' doing and not the analysis missing a marker.
    assert {f.span.line for f in analysis.findings if f.code == "DET101"} == set(lines.values())
    assert {f.span.line for f in result.suppressed} == {lines[name] for name in hidden}
    assert {f.span.line for f in result.kept if f.code == "DET101"} == {
        lines[name] for name in shown
    }
    assert len(result.kept) + len(result.suppressed) == len(analysis.findings)


def test_wrong_code_and_the_misplaced_comments_are_reported_unused(markers):
    root, _, result = markers
    path = "tests/test_markers.py"
    by_line = {f.span.line: f for f in result.unused}
    wrong = _line_of(root, path, "# detlint: ignore[DET102]")
    trailing_above = _line_of(root, path, "X = 1  # detlint: ignore[DET101]")
    assert set(by_line) == {wrong, trailing_above}  # the string literal is no comment at all
    assert all(f.code == "DET902" and f.span.path == path for f in result.unused)
    assert "no DET102 finding on this line or the next" in by_line[wrong].message
    assert "no DET101 finding on this line" in by_line[trailing_above].message
    assert by_line[trailing_above].span.column == len("X = 1  ") + 1


def test_a_bare_ignore_is_judged_only_when_every_rule_ran(tmp_path):
    _write(
        tmp_path,
        {
            "requirements.txt": "pytest-rerunfailures==16.7\n",
            "tests/test_a.py": """\
                import pytest

                X = 1  # detlint: ignore
                """,
        },
    )
    _, some = _run(tmp_path, report_unused=True, selected=WITH_UNUSED)
    assert some.unused == ()  # a rule that did not run may be what it is there for
    every = frozenset(RULES) | {"DET902"}
    _, every_rule = _run(tmp_path, report_unused=True, selected=every)
    ((unused,),) = [every_rule.unused]
    assert (unused.span.line, unused.code) == (3, "DET902")


def test_unknown_and_unselected_codes(tmp_path):
    _write(
        tmp_path,
        {
            "requirements.txt": "pytest-rerunfailures==16.7\n",
            "tests/test_a.py": """\
                import pytest

                # detlint: ignore[DET1]
                @pytest.mark.flaky(reruns=3)
                def test_prefix():
                    pass

                # detlint: ignore[DET301]
                def test_unselected_code():
                    pass

                # detlint: ignore[DET101, DET431]
                @pytest.mark.flaky(reruns=3)
                def test_one_code_of_two_used():
                    pass
                """,
        },
    )
    _, result = _run(tmp_path, report_unused=True, selected=WITH_UNUSED)
    # A prefix is not a code: the marker stays reported, and the comment says why.
    assert [f.span.line for f in result.kept if f.code == "DET101"] == [4]
    messages = {f.span.line: f.message for f in result.unused}
    assert set(messages) == {3, 12}  # DET301 did not run: its comment cannot be judged
    assert "unknown code DET1" in messages[3]
    assert "does not need DET431" in messages[12]
    assert "DET101" not in messages[12].split("does not need")[1]


def test_a_stale_comment_in_a_file_without_findings_is_found(tmp_path):
    _write(
        tmp_path,
        {
            "requirements.txt": "pytest-rerunfailures==16.7\n",
            "tests/test_clean.py": "def test_ok():  # detlint: ignore[DET101] old\n    pass\n",
        },
    )
    analysis, result = _run(tmp_path, report_unused=True, selected=WITH_UNUSED)
    assert analysis.findings == ()
    ((unused,),) = [result.unused]
    assert (unused.span.path, unused.span.line) == ("tests/test_clean.py", 1)
    _, quiet = _run(tmp_path, report_unused=False, selected=WITH_UNUSED)
    assert quiet.unused == ()  # DET902 is opt-in


def test_det902_is_hidden_only_by_naming_it(tmp_path):
    _write(
        tmp_path,
        {
            "requirements.txt": "pytest-rerunfailures==16.7\n",
            "tests/test_a.py": """\
                def test_a():  # detlint: ignore[DET101, DET902]
                    pass

                def test_b():  # detlint: ignore[DET101]
                    pass
                """,
        },
    )
    _, result = _run(tmp_path, report_unused=True, selected=WITH_UNUSED)
    assert [f.span.line for f in result.unused] == [4]
    assert [(f.code, f.span.line) for f in result.suppressed] == [("DET902", 1)]


PIPELINE = """\
steps:
  - label: commented above
    command: pytest tests
    # detlint: ignore[DET401] nightly only, tracked in #12
    soft_fail: true

  - label: trailing
    command: pytest tests
    soft_fail: true  # detlint: ignore[DET401]

  - label: echoes a directive
    command: "echo '#detlint: ignore[DET401]' && pytest tests"
    soft_fail: true

  - label: plain
    command: pytest tests
    soft_fail: true
"""


def test_buildkite_soft_fail_on_or_above_the_key(tmp_path):
    _write(
        tmp_path,
        {
            "requirements.txt": "pytest-rerunfailures==16.7\n",
            "tests/test_a.py": "def test_a():\n    pass\n",
            ".buildkite/pipeline.yml": PIPELINE,
        },
    )
    analysis, result = _run(tmp_path)
    path = ".buildkite/pipeline.yml"
    soft_fails = [i for i, line in enumerate(PIPELINE.splitlines(), 1) if "soft_fail" in line]
    assert len(soft_fails) == 4
    assert sorted(f.span.line for f in analysis.findings if f.code == "DET401") == soft_fails
    assert sorted(f.span.line for f in result.suppressed) == soft_fails[:2]
    assert sorted(f.span.line for f in result.kept if f.span.path == path) == soft_fails[2:]


@pytest.mark.parametrize(
    ("source", "codes", "comment_only"),
    [
        (b"x = 1  # detlint: ignore[det101 , DET202] reason\n", ("DET101", "DET202"), False),
        (b"# noqa: E501  # detlint: ignore\n", None, True),
        (b"  #detlint:ignore[DET101]\n", ("DET101",), True),
    ],
)
def test_directive_forms(source, codes, comment_only):
    ((comment,),) = [parse_comments(source, python=True).comments]
    assert comment.codes == codes
    assert comment.comment_only is comment_only


@pytest.mark.parametrize(
    "source",
    [
        b"x = 1  # detlint: ignore[DET101\n",  # never closed: not a bare ignore
        b"x = 1  # detlint: ignored\n",
        b'x = "# detlint: ignore"\n',
    ],
)
def test_not_directives(source):
    assert parse_comments(source, python=True).comments == ()


def test_python_that_tokenize_rejects_falls_back_to_lines():
    source = b'# detlint: ignore[DET101]\n@pytest.mark.flaky\ndef f(:\n    """never closed\n'
    ((comment,),) = [parse_comments(source, python=True).comments]
    assert (comment.line, comment.codes) == (1, ("DET101",))


def test_yaml_hash_inside_a_word_is_no_comment():
    source = b"command: echo a#detlint: ignore\nkey: 1 # detlint: ignore[DET401]\n"
    ((comment,),) = [parse_comments(source, python=False).comments]
    assert (comment.line, comment.column, comment.comment_only) == (2, 8, False)


def test_decorator_block_is_known_when_tokenizing_stops_at_the_finding():
    source = (
        b"# detlint: ignore[DET101]\n"
        b"@pytest.mark.parametrize(\n"
        b'    "x", [1, 2],\n'
        b")\n"
        b"@pytest.mark.flaky(\n"
        b"    reruns=3)\n"
        b"def test_a(x):\n"
        b"    pass\n"
    )
    # Line 5 is the last line a finding reaches: reading stops inside that decorator.
    comments = parse_comments(source, python=True, last_line=5)
    assert [c.line for c in comments.comments] == [1]
    assert comments.decorator_starts[5] == 2
    assert comments.decorator_starts[3] == 2
    assert 7 not in comments.decorator_starts
