"""Write examples/evidence/reports: 40 builds of this suite under pytest-rerunfailures,
one JUnit XML file each, test_kernel failing its first attempt in 3 of them.

    python examples/evidence/generate.py
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
BUILDS = 40
FLAKY_BUILDS = "7,19,31"

reports = HERE / "reports"
shutil.rmtree(reports, ignore_errors=True)
reports.mkdir()
with tempfile.TemporaryDirectory() as scratch:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["FLAKY_BUILDS"] = FLAKY_BUILDS
    for build in range(BUILDS):
        env["BUILD"] = str(build)
        env["ATTEMPTS"] = str(Path(scratch) / f"attempts-{build}")
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             "-p", "no:flaky", "-p", "no:pytest-retry", "-p", "rerunfailures",
             f"--junitxml=reports/build-{build:02d}.xml", "tests"],
            cwd=HERE, env=env, check=True, capture_output=True,
        )
