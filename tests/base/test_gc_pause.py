"""The collector pause restores the collector's state, also after an error."""

from __future__ import annotations

import gc

import pytest

from detlint.base.gc_pause import cyclic_gc_paused


def test_pause_restores_an_enabled_collector_even_after_an_error() -> None:
    assert gc.isenabled()
    seen: list[bool] = []

    def fail_inside() -> None:
        with cyclic_gc_paused():
            seen.append(gc.isenabled())
            raise LookupError("inside")

    with pytest.raises(LookupError, match="inside"):
        fail_inside()
    assert seen == [False]
    assert gc.isenabled()


def test_nested_pauses_leave_it_to_the_outermost() -> None:
    with cyclic_gc_paused():
        with cyclic_gc_paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    try:
        with cyclic_gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
