"""The bytecode `make test` writes before the test processes start."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, get_cache_dir

from bytecode_cache import TESTS, imported_modules, rewrite_test_modules


@pytest.mark.parametrize("in_prefix", [True, False])
def test_a_rewritten_module_is_found_where_pytest_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_prefix: bool
) -> None:
    module = tmp_path / "test_tiny.py"
    module.write_text("def test_one() -> None:\n    x = 1\n    assert x == 2, 'one'\n")
    prefix = str(tmp_path / "prefix") if in_prefix else None
    assert rewrite_test_modules(prefix, [module]) == 1
    monkeypatch.setattr(sys, "pycache_prefix", prefix)
    code = _read_pyc(module, get_cache_dir(module) / (module.name[:-3] + PYC_TAIL), print)
    assert code is not None
    namespace: dict[str, object] = {}
    exec(code, namespace)
    with pytest.raises(AssertionError, match="assert 1 == 2"):  # (rewritten: the values shown)
        namespace["test_one"]()  # type: ignore[operator]


def test_the_modules_imported_are_those_outside_the_tests_folder() -> None:
    names = imported_modules([TESTS / "test_bytecode_cache.py"])
    assert "_pytest.assertion.rewrite" in names and "pytest" in names
    assert "bytecode_cache" not in names
