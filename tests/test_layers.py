"""The package's modules import one another without going round in a
circle (a circle, even one hidden in an import inside a function, means
neither module can be read or moved without the other), and each layer
reaches only those below it: the engine never the database or a front
end, the solver and the storage never a front end."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def _modules() -> dict[str, Path]:
    modules = {}
    for path in sorted((SRC / "terrace").rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


@cache  # (read once per test process: parsing every module takes a second or two)
def import_graph() -> dict[str, set[str]]:
    """Each module of ``terrace`` -> the modules of ``terrace`` it imports,
    at its top or inside a function. A module's own packages are left out
    (Python runs a package's ``__init__`` before any module of it, so that
    arrow is no choice of the module's)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        ancestors = {name.rsplit(".", depth)[0] for depth in range(1, name.count(".") + 1)}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                named = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            else:
                continue
            graph[name] |= {target for target in named if target in modules} - ancestors - {name}
    return graph


def _reached(graph: dict[str, set[str]], module: str) -> set[str]:
    """The modules ``module`` imports through any chain of imports."""
    seen: set[str] = set()
    todo = list(graph[module])
    while todo:
        target = todo.pop()
        if target not in seen:
            seen.add(target)
            todo.extend(graph[target])
    return seen


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of two or more modules each reachable from the others."""
    reach = {name: _reached(graph, name) for name in graph}
    groups = {frozenset({name} | {other for other in reach[name] if name in reach[other]}) for name in graph}
    return sorted(sorted(group) for group in groups if len(group) > 1)


def test_the_circle_finder_finds_a_circle_through_a_third_module() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


def test_the_graph_sees_an_import_inside_a_function() -> None:
    """(cards.full_pack imported the rules inside the function once.)"""
    graph = import_graph()
    assert "terrace.rules" in graph["terrace.cards"]
    assert "terrace.solver.api" in graph["terrace.solver"]  # the package's re-export
    assert "terrace.solver" not in graph["terrace.solver.search"]  # its own package


def test_no_module_of_terrace_imports_itself_round_a_circle() -> None:
    assert circles(import_graph()) == []


FRONT_ENDS = ("terrace.cli", "terrace.web")
"""The layers that face a person: nothing below them may import them."""


def _layer(module: str) -> str:
    """The layer of a module of ``terrace``: its sub-package (``terrace.web``,
    ``terrace.solver``, ...), ``terrace.__main__``, or the engine (every
    other module at the package's top)."""
    parts = module.split(".")
    if len(parts) > 2 or module in (*FRONT_ENDS, "terrace.solver", "terrace.storage", "terrace.__main__"):
        return ".".join(parts[:2])
    return "engine"


ALLOWED = {
    "engine": {"engine", "terrace.solver"},  # (the research State observes with the solver's tables)
    "terrace.solver": {"engine", "terrace.solver", "terrace.storage"},  # (the verdict cache is a file)
    "terrace.storage": {"engine", "terrace.storage"},
    "terrace.cli": {"engine", "terrace.solver", "terrace.storage", "terrace.cli", "terrace.web"},
    "terrace.web": {"engine", "terrace.solver", "terrace.storage", "terrace.web"},
}
ALLOWED["terrace.__main__"] = {"terrace.__main__", *ALLOWED}  # (``python -m terrace``: the command line)
"""The layers each layer may reach, through any chain of imports."""


def trespasses(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Each (module, module it reaches) where the second's layer is not one
    the first's may reach (:data:`ALLOWED`)."""
    layers = {module: _layer(module) for module in graph}
    return sorted((module, target) for module in graph for target in _reached(graph, module)
                  if layers[target] not in ALLOWED[layers[module]])


def test_the_layer_check_sees_an_engine_module_that_reaches_the_web_through_another() -> None:
    graph = {"terrace.board": {"terrace.helpers"}, "terrace.helpers": {"terrace.web.app"},
             "terrace.web.app": set()}
    assert trespasses(graph) == [("terrace.board", "terrace.web.app"), ("terrace.helpers", "terrace.web.app")]


def test_the_engine_never_reaches_the_front_ends_or_the_database_nor_the_library_a_front_end() -> None:
    """The guide's rule: the engine never imports the web, command-line or
    database layers, and neither the solver nor the storage imports a front
    end (front ends hold no rules). Checked through every chain of imports,
    those inside functions too."""
    graph = import_graph()
    assert {_layer(module) for module in graph} == set(ALLOWED)
    assert trespasses(graph) == []
