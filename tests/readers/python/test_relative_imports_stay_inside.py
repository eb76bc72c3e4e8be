"""A relative import whose dots climb past the repository's root names a module outside
it: detlint reads nothing there (a file beside the checkout is not the project's), so a
rerun alias defined outside is not followed, while the same alias one level in is."""

from __future__ import annotations

import textwrap

from realworld_cases import RERUNFAILURES, check, findings

ALIAS = """\
    import pytest

    rerun_alias = pytest.mark.flaky(reruns=3)
    """

TEST = """\
    from {dots}util import rerun_alias


    @rerun_alias
    def test_sum():
        assert sum([1, 2]) == 3
    """


def test_an_alias_inside_the_repository_is_followed(tmp_path):
    repo = tmp_path / "repo"
    files = {
        **RERUNFAILURES,
        "util.py": ALIAS,
        "tests/__init__.py": "",
        "tests/test_a.py": TEST.format(dots=".."),
    }
    found = [(f["code"], f["path"], f["line"]) for f in findings(check(repo, files))]
    assert ("DET101", "tests/test_a.py", 4) in found


def test_an_alias_past_the_root_is_not_read(tmp_path):
    (tmp_path / "util.py").write_text(textwrap.dedent(ALIAS))  # beside the checkout
    repo = tmp_path / "repo"
    files = {**RERUNFAILURES, "tests/__init__.py": "", "tests/test_a.py": TEST.format(dots="...")}
    assert [f for f in findings(check(repo, files)) if f["path"] == "tests/test_a.py"] == []
