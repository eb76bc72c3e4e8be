"""The JUnit reader refuses a document type declaration before expat reads any entity it
declares, names an encoding it cannot decode, and reads namespaced files as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from detlint.evidence.reports import Build, ReportProblem, read_junit

SUITE = (
    '<testsuite name="pytest"><testcase classname="t.test_a" name="test_a"/>'
    '<testcase classname="t.test_a" name="test_b"><failure message="boom"/></testcase>'
    "</testsuite>\n"
)
REFUSED = "has a document type declaration (<!DOCTYPE>), which JUnit files never need"


@pytest.mark.parametrize(
    "doctype",
    [
        '<!DOCTYPE t SYSTEM "file:///etc/passwd">',
        '<!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
        '<!DOCTYPE t [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]>',
        "<!DOCTYPE testsuite>",
    ],
)
def test_a_doctype_is_refused(tmp_path: Path, doctype: str) -> None:
    path = tmp_path / "r.xml"
    path.write_text(f'<?xml version="1.0"?>\n{doctype}\n{SUITE}')
    assert read_junit(path, "r.xml") == ReportProblem("r.xml", REFUSED)


def test_an_unknown_encoding_is_named(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    path.write_text(f'<?xml version="1.0" encoding="bogus"?>\n{SUITE}')
    assert read_junit(path, "r.xml") == ReportProblem(
        "r.xml", "cannot decode: unknown encoding: bogus"
    )


def test_a_namespaced_file_in_utf16_is_read(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    text = SUITE.replace("<testsuite ", '<testsuite xmlns="urn:junit" ')
    path.write_bytes(f'<?xml version="1.0" encoding="utf-16"?>\n{text}'.encode("utf-16"))
    build = read_junit(path, "r.xml")
    assert isinstance(build, Build)
    counts = {
        test.test: (test.attempts, test.failed_attempts, test.outcome) for test in build.tests
    }
    assert counts == {
        "t.test_a::test_a": (1, 0, "passed"),
        "t.test_a::test_b": (1, 1, "failed"),
    }
