"""Skips and xfails written as entries of a data list a test decorator consumes.

Distilled from torch-xpu-ops' functorch ports (``@skipOps(..., {skip("matmul"),  # flaky``,
``vjp_fail.union({...})``, a module-level ``aot_autograd_failures`` set nothing uses)
and PyTorch's OpInfo ``DecorateInfo`` / ``decorate(..., decorator=unittest.skipIf(...))``.
"""

from __future__ import annotations

from realworld_cases import RERUNFAILURES, audit, check, findings

_HEAD = """\
import unittest

import torch
from functorch_additional_op_db import additional_op_db
from common import decorate, DecorateInfo, ops, op_db, skip, skipOps, xfail

from platforms import IS_MACOS

"""

_UNKNOWN = "how many instances that is is not known statically"


def _check(tmp_path, body: str) -> dict:
    return check(tmp_path, {**RERUNFAILURES, "tests/test_ops.py": _HEAD + body})


def _lines(document: dict, code: str = "DET202") -> dict[int, str]:
    return {f["line"]: f["message"] for f in findings(document, code)}


def test_flaky_entries_of_a_literal_set_are_reported_at_their_lines(tmp_path):
    document = _check(
        tmp_path,
        """\
class TestOperators(unittest.TestCase):
    @ops(op_db, allowed_dtypes=(torch.float,))
    @skipOps("TestOperators", "test_vmap_autograd_grad", {
        xfail("linalg.eig"),  # numerical
        skip("matmul"),  # flaky needs investigation
        skip(
            "ldexp", dtypes=(torch.float32,), device_type="cpu"
        ),  # fails on all but mac
        skip("to"),  # RuntimeError: required rank 4 tensor
    })
    def test_vmap_autograd_grad(self, device, dtype, op):
        assert op(device) == 1
""",
    )
    lines = _lines(document)
    assert list(lines) == [13]
    assert lines[13] == (
        "test skipped as 'flaky': it never runs, so a 10% violation is never reported "
        "(was 10.0%) and nothing shows it (1 attempt, no trial loop recognised; skips the "
        f"'matmul' instances of test_vmap_autograd_grad; {_UNKNOWN})"
    )
    assert findings(document) == findings(document, "DET202")


def test_entries_through_a_module_name_and_union_and_a_multiline_comment(tmp_path):
    document = _check(
        tmp_path,
        """\
vjp_fail = {
    xfail("linalg.eig"),  # numerical
    skip("nn.functional.dropout"),  # randomness, intermittent on CI
}


class TestOperators(unittest.TestCase):
    @skipOps("TestOperators", "test_vjpvjp", vjp_fail.union({
        skip("nn.functional.max_unpool1d"),  # silent incorrectness; Flaky
        skip(
            "linalg.householder_product", "", device_type="cpu"
        ),  # flaky, I'm not sure why
    }))
    def test_vjpvjp(self, device, dtype, op):
        assert op(device) == 1
""",
    )
    lines = _lines(document)
    assert sorted(lines) == [11, 17, 18]
    assert "skips the 'nn.functional.dropout' instances of test_vjpvjp" in lines[11]
    assert "test skipped as 'intermittent'" in lines[11]
    assert "skips the 'nn.functional.max_unpool1d' instances of test_vjpvjp" in lines[17]
    assert (
        "skips the 'linalg.householder_product' (device_type='cpu') instances of test_vjpvjp; "
        + _UNKNOWN
    ) in lines[18]


def test_a_set_nothing_consumes_is_dead(tmp_path):
    document = _check(
        tmp_path,
        """\
aot_autograd_failures = {
    skip("as_strided", "partial_views"),  # flaky
    decorate("linalg.householder_product", decorator=unittest.skipIf(IS_MACOS, "flaky")),
}


class TestOperators(unittest.TestCase):
    @skipOps("TestOperators", "test_vjp", {
        # skip because this is flaky depending on what the max_norm is!
        skip("nn.functional.embedding", ""),
    })
    def test_vjp(self, device, dtype, op):
        assert op(device) == 1
""",
    )
    assert findings(document) == []


def test_decorate_and_decorate_info_entries_read_their_skip_reasons(tmp_path):
    document = _check(
        tmp_path,
        """\
class TestCommon(unittest.TestCase):
    @skipOps("TestCommon", "test_out", (
        decorate("linalg.householder_product", decorator=unittest.skipIf(IS_MACOS, "flaky")),
        DecorateInfo(unittest.skip("Flaky on ROCm"), "TestCommon", "test_out"),
        DecorateInfo(unittest.skip("Not implemented"), "TestCommon", "test_out"),
    ) | {skip("abs")})
    def test_out(self, device, dtype, op):
        assert op(device) == 1
""",
    )
    lines = _lines(document)
    assert sorted(lines) == [11, 12]
    assert lines[11].startswith("test skipped as 'flaky' where `IS_MACOS`: there it never runs")
    assert "skips the 'linalg.householder_product' instances of test_out" in lines[11]
    assert lines[12].startswith("test skipped as 'Flaky': it never runs")
    assert (
        "skips the instances the DecorateInfo('TestCommon', 'test_out') entry names of "
        "test_out; " + _UNKNOWN
    ) in lines[12]


def test_an_entry_skips_only_its_instances_not_the_whole_test(tmp_path):
    document = audit(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_ops.py": _HEAD
            + """\
import pytest


@skipOps("TestOperators", "test_grad", {skip("matmul")})  # flaky
@pytest.mark.flaky(reruns=2)
def test_grad(op):
    assert op() == 1
""",
        },
    )
    tests = [t for t in document["tests"] if "test_grad" in t["test"]]
    labels = sorted(t["test"] for t in tests)
    assert labels == [
        "tests/test_ops.py::test_grad",
        "tests/test_ops.py::test_grad[the 'matmul' instances on line 12]",
    ]
    (entry,) = [k for k in document["knobs"] if k["line"] == 12]
    assert entry["tests"] == ["tests/test_ops.py::test_grad"]
