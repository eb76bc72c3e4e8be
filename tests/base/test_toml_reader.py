"""pyproject.toml is parsed once for every reader of the same text."""

from __future__ import annotations

import pytest

from detlint.base.toml_reader import TOMLDecodeError, load_toml, shared_toml


def test_the_same_text_is_parsed_once_and_shared():
    text = '[tool.pytest.ini_options]\naddopts = "--reruns 2"\n[tool.detlint]\ntarget = 0.9\n'
    first = shared_toml(text)
    assert shared_toml(text) is first
    assert first == load_toml(text)
    assert load_toml(text) is not load_toml(text)  # each caller of load_toml owns its document


def test_invalid_text_raises_every_time():
    for _ in range(2):
        with pytest.raises(TOMLDecodeError):
            shared_toml("[tool\n")
