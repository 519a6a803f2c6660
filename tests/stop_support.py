"""A stop sent at a chosen moment of a survey, for the tests of its stops."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest

from terrace.solver.verdicts import Verdict, VerdictStore


def ctrl_c_twice_as_verdicts_are_stored(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make each :meth:`VerdictStore.put_many` send this process Ctrl+C
    twice once its transaction is committed (a user who pressed it twice
    as a survey stored its verdicts)."""
    put_many = VerdictStore.put_many

    def stopped_twice(self: VerdictStore, *args: Any) -> dict[int, Verdict]:
        kept = put_many(self, *args)
        for _ in range(2):
            os.kill(os.getpid(), signal.SIGINT)
        return kept

    monkeypatch.setattr(VerdictStore, "put_many", stopped_twice)
