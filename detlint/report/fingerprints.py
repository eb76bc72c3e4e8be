"""The identity of a finding across runs, shared by the formats that compare runs.

SARIF's ``partialFingerprints`` and GitLab Code Quality's ``fingerprint`` carry the
same value, so that a finding is one thing in GitHub code scanning and in a merge
request whichever report a project uploads.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from detlint.base.source_lines import SourceLines
    from detlint.rules.finding import Finding


class LineFingerprints:
    """A stable identity per result: code, path and the stripped text of its line.

    The text, not the line number, so that a finding keeps its identity when
    code above it moves; the occurrence number tells apart identical lines in
    one file. When the source cannot be read, the line number stands in.
    """

    def __init__(self, sources: SourceLines) -> None:
        self._sources = sources
        self._seen: dict[str, int] = {}

    def __call__(self, finding: Finding) -> str:
        span = finding.span
        text = self._sources.line(span.path, span.line)
        anchor = text.strip() if text is not None else f"line {span.line}"
        digest = hashlib.sha256(
            "\0".join((finding.code, span.path, anchor)).encode("utf-8", "surrogatepass")
        ).hexdigest()[:32]
        occurrence = self._seen.get(digest, 0) + 1
        self._seen[digest] = occurrence
        return f"{digest}:{occurrence}"
