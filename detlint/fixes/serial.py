"""Fixes as the JSON and SARIF outputs carry them: each edit with line/column
positions (1-based, characters, as the findings have them) and byte offsets
into the file as stored (after a byte order mark, in the file's encoding)."""

from __future__ import annotations

from typing import Any

from detlint.fixes.build import Sources
from detlint.fixes.edits import Edit, Fix


def edit_positions(edit: Edit, sources: Sources) -> dict[str, int]:
    source = sources(edit.path)
    line, column = source.position(edit.start)
    end_line, end_column = source.position(edit.end)
    return {
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "start_byte": source.byte_offset(edit.start),
        "end_byte": source.byte_offset(edit.end),
    }


def fix_document(fix: Fix, sources: Sources) -> dict[str, Any]:
    """``{"message", "applicability", "placeholder", "edits": [...]}``."""
    return {
        "message": fix.message,
        "applicability": fix.applicability,
        "placeholder": fix.placeholder,
        "edits": [
            {"path": edit.path, "content": edit.content, **edit_positions(edit, sources)}
            for edit in fix.edits
        ],
    }
