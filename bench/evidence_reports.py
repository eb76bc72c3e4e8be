"""How fast ``detlint evidence`` reads CI history: many JUnit files of many test cases.

Writes ``--builds`` JUnit XML files of ``--tests`` test cases each (pytest's own
shape: a ``<testsuites>`` with one ``<testsuite>``; about 1 test in 200 fails its
first attempt and passes on a rerun, as pytest-rerunfailures writes it), then
times ``detlint evidence`` on them, and ``grep -c '<testcase'`` over the same
files as the floor of reading the bytes at all.

    python bench/evidence_reports.py [--builds 1000] [--tests 2000] [--keep DIR]

Target: seconds, not minutes (under 60 s for the default 2,000,000 test cases).
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 60.0


def write_build(path: Path, tests: int, rng: random.Random) -> None:
    cases = []
    for index in range(tests):
        module, name = f"tests.area_{index % 40:02d}.test_module_{index % 400:03d}", f"test_{index}"
        if rng.random() < 0.005:  # failed once, passed on the rerun
            cases.append(
                f'<testcase classname="{module}" name="{name}" time="0.010">'
                f'<rerunFailure message="AssertionError: mismatch">Traceback...</rerunFailure>'
                "</testcase>"
            )
        else:
            cases.append(f'<testcase classname="{module}" name="{name}" time="0.002" />')
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'
        f'<testsuite name="pytest" errors="0" failures="0" skipped="0" tests="{tests}" '
        'time="12.3" timestamp="2026-12-01T10:00:00.000000+00:00" hostname="ci">'
        + "".join(cases)
        + "</testsuite></testsuites>\n",
        encoding="utf-8",
    )


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--builds", type=int, default=1000)
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--keep", type=Path, help="write the reports here and keep them")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = options.keep or Path(scratch)
        root.mkdir(parents=True, exist_ok=True)
        rng = random.Random(20261202)
        for build in range(options.builds):
            write_build(root / f"build-{build:05d}.xml", options.tests, rng)
        size = sum(path.stat().st_size for path in root.glob("*.xml"))
        files = sorted(str(path) for path in root.glob("*.xml"))
        grep = timed(["grep", "-c", "<testcase", *files])
        command = [
            sys.executable,
            "-m",
            "detlint",
            "evidence",
            str(root),
            "--output-format",
            "json",
        ]
        seconds = timed(command)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB -> MiB
        cases = options.builds * options.tests
        print(
            f"{options.builds} JUnit files, {cases} test cases, {size / 1e6:.0f} MB: "
            f"detlint evidence {seconds:.1f} s ({cases / seconds / 1e6:.2f} M cases/s, "
            f"peak {peak:.0f} MiB), grep -c {grep:.2f} s"
        )
        verdict = "PASS" if seconds < TARGET_SECONDS else "FAIL"
        print(f"target < {TARGET_SECONDS:.0f} s: {verdict}")
        return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
