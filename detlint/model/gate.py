"""The outermost layer: does a failure that got this far block anything?

Soft fails, ``continue-on-error``, ``allow_failure``, non-strict xfail and skip
all make the probability of a *blocking* report zero, yet they differ in what a
person can still see: a soft-failed Buildkite step or an XFAIL leaves a trace,
a skipped test leaves none. The model keeps the two facts apart.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Gate:
    """What happens to a failure once every retry layer has run."""

    kind: str
    blocks: bool
    visible: bool

    def describe(self) -> str:
        if self.blocks:
            return "blocks the build"
        seen = "still visible" if self.visible else "invisible"
        return f"{self.kind}: never blocks ({seen})"


BLOCKING = Gate("blocking", blocks=True, visible=True)
SOFT_FAIL = Gate("soft fail", blocks=False, visible=True)
CONTINUE_ON_ERROR = Gate("continue-on-error", blocks=False, visible=True)
ALLOW_FAILURE = Gate("allow_failure", blocks=False, visible=True)
# `pytest ... || true` and its kin: the step is green and nothing marks it; the
# failure survives only in a log nobody is prompted to read.
MASKED_EXIT = Gate("masked exit status", blocks=False, visible=False)
XFAIL = Gate("xfail(strict=False)", blocks=False, visible=True)
# A strict xfail turns a *pass* red (XPASS(strict)); a violation is the expected
# failure, shown as XFAIL, so it never turns the build red by itself.
STRICT_XFAIL = Gate("xfail(strict=True)", blocks=False, visible=True)
SKIP = Gate("skip", blocks=False, visible=False)
# `pytest.xfail()` called before any check of the test: it is reported XFAIL whatever
# the code under test does, so a violation is neither blocking nor seen.
XFAIL_UNCHECKED = Gate("xfail before its checks", blocks=False, visible=False)
# A decorator that catches the failure of its last attempt too and returns: the test
# passes whatever it asserts, and nothing records that it failed.
SWALLOWED = Gate("failure swallowed by a decorator", blocks=False, visible=False)
