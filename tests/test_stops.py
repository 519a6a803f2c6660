"""The stop signals' helpers (terrace.solver.stops)."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest

from terrace.solver import stops


def test_a_held_stop_heard_while_the_handler_is_put_back_is_not_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    """A survey's stop could be lost in the last moment of ``stops_kept``:
    held for the loop's next look while the previous handler was being put
    back, after that look had been taken (a fresh-clone CI run lost the stop
    sent at the 1,037th call of a survey this way). It is taken once the
    handler is back."""
    put_back = stops.restore_stops

    def stopped_while_putting_back(*args: Any) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        put_back(*args)

    monkeypatch.setattr(stops, "restore_stops", stopped_while_putting_back)
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), stops.stops_kept(held=True) as check:
        check()
    assert signal.getsignal(signal.SIGINT) is before
