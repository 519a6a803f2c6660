"""Where the tests' processes keep their bytecode, and a warm-up of it
that `make test` runs once before the pytest-xdist processes start.

Without the warm-up, each test process of a fresh clone compiled the same
code at its collection: every test module with its asserts rewritten by
pytest (about 9 s of CPU for 145 modules), terrace, and the installed
packages the tests import (another 4-5 s when the bytecode goes to a folder
of its own, where the packages' own bytecode is not looked for).
``python tests/bytecode_cache.py`` does it once, in two processes, and the test
processes read it.
"""

from __future__ import annotations

import ast
import compileall
import importlib
import marshal
import os
import stat
import sys
import tempfile
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SOURCE = TESTS.parent / "src"


def _own_folder() -> str:
    """A folder of this user's own for the bytecode of the tests' processes,
    the same for every run (Python checks each file against its source)."""
    folder = os.path.join(tempfile.gettempdir(), f"terrace-tests-pycache-{os.getuid()}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return tempfile.mkdtemp(prefix="terrace-tests-pycache-")
    if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022:
        return folder
    return tempfile.mkdtemp(prefix="terrace-tests-pycache-")  # (another's, or open to others)


def set_children_bytecode() -> None:
    """With PYTHONDONTWRITEBYTECODE set, every Python process the tests
    start (a server, the command line, the test processes of pytest-xdist)
    compiled all of terrace from its source again: 0.8 s of CPU a start
    where 0.3 s do with bytecode, over hundreds of starts. Their bytecode
    goes to a folder of its own instead (PYTHONPYCACHEPREFIX), which writes
    nothing into the checkout; a prefix already set is kept."""
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
        del os.environ["PYTHONDONTWRITEBYTECODE"]
        os.environ["PYTHONPYCACHEPREFIX"] = _own_folder()


def _start_writing(prefix: str | None) -> None:
    """Write bytecode from here on, where the test processes will read it
    (and say nothing of what an import warns)."""
    warnings.simplefilter("ignore")
    sys.dont_write_bytecode = False
    sys.pycache_prefix = prefix


def _test_modules() -> list[Path]:
    return sorted(TESTS.glob("test_*.py"))


def rewrite_test_modules(prefix: str | None, modules: list[Path]) -> int:
    """Write each test module's bytecode with its asserts rewritten, as
    pytest's import hook writes it (and reads it back when the source's hash
    matches) with ``prefix`` as sys.pycache_prefix; how many were written."""
    from _pytest.assertion.rewrite import PYC_TAIL, rewrite_asserts

    written = 0
    for module in modules:
        source = module.read_bytes()
        tree = ast.parse(source, filename=str(module))
        rewrite_asserts(tree, source, str(module), None)
        code = compile(tree, str(module), "exec", dont_inherit=True)
        folder = Path(prefix, *module.parts[1:-1]) if prefix else module.parent / "__pycache__"
        folder.mkdir(parents=True, exist_ok=True)
        part = folder / f"{module.name[:-3]}{PYC_TAIL}.{os.getpid()}"
        with open(part, "wb") as out:
            out.write(importlib.util.MAGIC_NUMBER)
            out.write(b"\x03\x00\x00\x00")  # hash-based, always checked (PEP 552)
            out.write(importlib.util.source_hash(source)[:8])
            out.write(marshal.dumps(code))
        os.replace(part, folder / f"{module.name[:-3]}{PYC_TAIL}")
        written += 1
    return written


def imported_modules(modules: list[Path]) -> set[str]:
    """The modules outside tests/ that the test modules import anywhere."""
    local = {path.stem for path in TESTS.glob("*.py")}
    names: set[str] = set()
    for module in modules:
        for node in ast.walk(ast.parse(module.read_bytes())):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
    return {name for name in names if name.split(".")[0] not in local}


def compile_what_the_tests_import(modules: list[Path]) -> int:
    """Compile terrace whole and import what the test modules import (with
    what those import in turn), so that its bytecode is written; how many
    modules were imported."""
    compileall.compile_dir(SOURCE / "terrace", quiet=1)
    sys.path[:0] = [str(SOURCE), str(TESTS)]
    imported = 0
    for name in sorted(imported_modules(modules)):
        try:
            importlib.import_module(name)
        except Exception:  # (a module this machine lacks: its tests skip)
            continue
        imported += 1
    return imported


SHARES = 6
"""The test modules are rewritten in this many shares, taken in turn by the
two processes once they are free (the imports, about half the work of the
rewriting, go first): one process rewriting them all while the other
imported took 14 s of wall time for 13 s of CPU."""


def warm() -> None:
    """Write the bytecode the test processes will read, in two processes."""
    set_children_bytecode()
    prefix = os.environ.get("PYTHONPYCACHEPREFIX") or None
    modules = _test_modules()
    with ProcessPoolExecutor(2, initializer=_start_writing, initargs=(prefix,)) as pool:
        imported = pool.submit(compile_what_the_tests_import, modules)
        shares = [pool.submit(rewrite_test_modules, prefix, modules[i::SHARES]) for i in range(SHARES)]
        print(
            f"bytecode: {sum(share.result() for share in shares)} test modules rewritten, "
            f"{imported.result()} modules imported, in {prefix or '__pycache__'}"
        )


if __name__ == "__main__":
    warm()
