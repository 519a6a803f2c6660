"""The package's own names: ``import terrace`` loads each on first use
(PEP 562), from a table that must agree with ``__all__`` and with the
modules that define them."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import terrace


def test_every_public_name_is_in_the_table_and_comes_from_its_module() -> None:
    assert set(terrace.__all__) == set(terrace._HOMES)
    for name, home in terrace._HOMES.items():
        assert getattr(terrace, name) is getattr(importlib.import_module(home), name), name
    assert set(terrace.__all__) <= set(dir(terrace))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        terrace.Nope  # noqa: B018


def test_import_terrace_loads_no_engine_module() -> None:
    code = "import sys, terrace; print(sorted(m for m in sys.modules if m.startswith('terrace.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": ":".join(sys.path)})
    assert out.stdout.strip() == "[]"


def test_the_solver_loads_no_storage_web_or_cli_module() -> None:
    """The solver (and the engine below it) stands without the front ends:
    the core's profile-guided build trains it before the dependencies are
    installed, and observation.py importing storage's JOINED (which loads
    platformdirs) made every fresh build fall back to the core without its
    profile."""
    code = ("import sys, terrace.solver.api, terrace.solver.fair, terrace.solver.coach, "
            "terrace.solver.observation; "
            "print(sorted(m for m in sys.modules if m.split('.')[:2] in "
            "(['terrace', 'storage'], ['terrace', 'web'], ['terrace', 'cli']) or m == 'platformdirs'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": ":".join(sys.path)})
    assert out.stdout.strip() == "[]"


def test_the_log_actions_the_observation_reads_are_the_store_s() -> None:
    from terrace.storage.migrations import JOINED

    assert JOINED == "join"
