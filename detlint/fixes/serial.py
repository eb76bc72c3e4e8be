"""Fixes as the JSON output carries them: each edit with its line/column range
(1-based, characters, as the findings have them) and its byte offsets into the
file as stored (after a byte order mark, in the file's encoding)."""

from __future__ import annotations

from typing import Any

from detlint.fixes.edits import Fix


def fix_document(fix: Fix) -> dict[str, Any]:
    """``{"message", "applicability", "placeholder", "edits": [...]}``."""
    return {
        "message": fix.message,
        "applicability": fix.applicability,
        "placeholder": fix.placeholder,
        "edits": [
            {"path": edit.path, "content": edit.content, **where._asdict()}
            for edit, where in zip(fix.edits, fix.where, strict=True)
        ],
    }
