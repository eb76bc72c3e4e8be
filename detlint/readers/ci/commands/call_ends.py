"""Where a chain of CI calls ends: the facts ``calls.py`` hands the linking.

Kept apart from the walk so that the readers of particular ends (``python_ends.py``)
and the linking can name them without importing the walk.
"""

from __future__ import annotations

from dataclasses import dataclass

from detlint.base.span import Span
from detlint.readers.ci.commands.follow import Followed
from detlint.readers.ci.shell.commands import TestCall
from detlint.readers.ci.shell.quiet_knobs import QuietKnob


@dataclass(frozen=True)
class CallEnd:
    """Where a chain of calls ends without a pytest run detlint can link.

    ``certain`` is True for a test runner (``python -m unittest``: it runs tests) and
    False for a call detlint could not see into that is named like a test runner (a
    script not in the repository, a task, an image's own command). ``via`` are the
    calls that led to it, outermost first, ``call`` included; ``span`` locates the
    call in the file that writes it (the pipeline for a call at the step).
    """

    call: TestCall
    via: tuple[str, ...]
    span: Span | None
    certain: bool
    masked: str | None
    # A retry the end writes itself (a Python wrapper that runs pytest again with
    # --lf, a runner's own reruns): the attempts in all, and where the retry is written
    # (None: at the call itself, in the pipeline); how it is written, when an option.
    retry: tuple[int, Span | None] | None = None
    retry_text: str = ""


@dataclass(frozen=True)
class CallReach:
    """What the calls of one command reach: pytest runs written in the files they
    follow, and the ends that are not such runs."""

    runs: tuple[Followed, ...] = ()
    ends: tuple[CallEnd, ...] = ()
    # The knobs the followed files write around commands that run no tests, where each
    # is written (``shell/quiet_knobs.py``), for the census.
    quiet: tuple[tuple[Span, QuietKnob], ...] = ()
