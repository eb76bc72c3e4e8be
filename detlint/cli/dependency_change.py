"""A run on a changed dependency or config file reports what the change alters.

A commit that touches ``requirements-test.txt``, ``pyproject.toml``, ``setup.cfg``,
``tox.ini``, a lock file, ``pytest.ini`` or a ``conftest.py`` can change every test
of the project it configures (a rerun plugin pinned, pytest's ``reruns`` set), so
such a file stands for its project (``readers/project/scope.py``). Reporting every
finding of that project would block the commit on every legacy knob, though the
commit changed none of them. So the project is read twice: with the named files as
the last commit holds them and as they are now. What is reported is what differs:
findings that are new, or whose numbers or words changed (a DET101 whose rerun
plugin the commit pins, a DET104 from the ``reruns`` it sets), and every finding in
the files and directories named themselves, as for any file a hook passes.

A finding's references to a line of a file (``from pyproject.toml:4``) are left out
of the comparison: a line added above a pin moves the pin without changing what it
does. When the last commit's text of a named file is unknown (a new file, no git),
the run reports the whole project, as a run on its directory would.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
from collections import Counter
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from detlint.engine import Analysis
    from detlint.readers.project.settings import Settings
    from detlint.rules.finding import Finding

_LINE_REFERENCE = re.compile(r"(?<=\S)(:\d+)(?=[;,)\s]|$)")


def changed_files(paths: Sequence[Path], cwd: Path) -> tuple[tuple[Path, bytes], ...] | None:
    """The named files that stand for their project, each with the bytes the last
    commit holds for it; None when none is named, or one's committed text is unknown."""
    from detlint.readers.project.scope import widened

    stand_ins = [
        path
        for path, wide in zip(paths, widened(paths, cwd), strict=True)
        if wide != path and os.path.isfile(cwd / path)
    ]
    if not stand_ins:
        return None
    from detlint.readers.project.committed import committed_bytes
    from detlint.readers.project.discovery import find_root

    root = find_root([cwd / path for path in stand_ins])
    changed = []
    for path in stand_ins:
        absolute = Path(os.path.abspath(cwd / path))
        committed = committed_bytes(absolute, root)
        if committed is None:
            return None
        changed.append((absolute, committed))
    return tuple(changed)


def _key(finding: Finding) -> Hashable:
    span = finding.span
    words = _LINE_REFERENCE.sub("", finding.message)
    return (finding.code, span.path, span.line, span.column, finding.loss, finding.tests, words)


def altered(
    analysis: Analysis,
    paths: Sequence[Path],
    cwd: Path,
    settings: Settings,
    selected: frozenset[str],
) -> Analysis:
    """``analysis`` (of ``paths`` as they are) keeping what the named dependency and
    config files' changes since the last commit alter, and the named files' own
    findings; unchanged when no such file is named or its committed text is unknown."""
    changes = changed_files(paths, cwd)
    if changes is None:
        return analysis
    from detlint.base.source import unsaved_text
    from detlint.engine import analyse
    from detlint.rules.baseline import covered_by

    with contextlib.ExitStack() as stack:
        for path, committed in changes:
            stack.enter_context(unsaved_text(path, committed))
        before = analyse(paths, cwd, settings, selected)  # no cache: the disk is not read
    earlier = Counter(_key(finding) for finding in before.findings)
    named = covered_by(paths, cwd)  # the files and directories given, in full
    kept = []
    for finding in analysis.findings:
        key = _key(finding)
        if named(finding.span.path) or earlier[key] == 0:
            kept.append(finding)
        else:
            earlier[key] -= 1
    return dataclasses.replace(analysis, findings=tuple(kept))
