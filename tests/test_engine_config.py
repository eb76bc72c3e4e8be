"""The engine's cheap look for pytest config files must know every file pytest reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from detlint.readers.project.pytest_config_files import CANDIDATES
from detlint.readers.project.scope import PYTEST_CONFIG_FILES


def test_engine_knows_every_config_file_pytest_reads():
    # The engine keeps its own copy so that a run without knobs never imports
    # the config readers; this keeps the two lists from drifting apart.
    assert frozenset(name for name, _ in CANDIDATES) == PYTEST_CONFIG_FILES


def test_the_audit_lists_config_files_in_the_same_order_in_every_process(tmp_path):
    """String hashing differs per process; the inventory must not (it is diffed in CI)."""
    for name in ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "pytest.ini").write_text("[pytest]\naddopts = --reruns 2\n")
    outputs = set()
    for seed in ("0", "1", "2", "3", "4"):
        environment = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-m", "detlint", "audit", "--no-cache", "."],
            cwd=tmp_path,
            env=environment,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode in (0, 1), done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1
    paths = [config["path"] for config in json.loads(outputs.pop())["pytest_configs"]]
    assert paths == sorted(paths)
    assert len(paths) == 8
