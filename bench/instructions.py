"""One ``detlint audit --no-cache`` of a tree in this process, on one core, for an
instruction counter.

Wall times on a shared machine drift by a fifth from run to run, so a change of a
few percent in detlint's own work is measured in instructions instead, which do
not drift::

    valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \\
        .venv/bin/python bench/instructions.py /tmp/detlint-bench-corpus

Run it twice and read the second count (the first one also compiles detlint's
bytecode). To compare two versions of detlint, run it with each one's
environment on the same tree. The audit runs as the CLI's would (discovery,
pipelines, Python files, linking, rules, the JSON report) with one job and the
cyclic garbage collector off, so that neither forked workers nor collections
add counts of their own. Prints the number of findings, so a run that found
nothing is noticed.
"""

from __future__ import annotations

import argparse
import gc
import os
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path, help="the tree to audit, as `detlint audit` in it")
    tree = parser.parse_args().tree.resolve()
    gc.disable()
    from detlint.cli.shared import settings_and_codes
    from detlint.engine import analyse
    from detlint.report.audit.inventory import render_audit_json

    os.chdir(tree)
    settings, selected = settings_and_codes((), (), None, None, None)
    analysis = analyse((), tree, settings, selected, jobs=1)
    render_audit_json(analysis, settings.reference_rate, settings.target)
    print(f"{len(analysis.findings)} findings in {tree}")


if __name__ == "__main__":
    main()
