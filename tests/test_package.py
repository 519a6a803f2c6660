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
