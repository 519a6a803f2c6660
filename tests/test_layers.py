"""The package's modules import one another without going round in a
circle: a circle, even one hidden in an import inside a function, means
neither module can be read or moved without the other."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def _modules() -> dict[str, Path]:
    modules = {}
    for path in sorted((SRC / "terrace").rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


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


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of two or more modules each reachable from the others."""
    reach = {name: set() for name in graph}
    for name in graph:
        seen: set[str] = set()
        todo = list(graph[name])
        while todo:
            target = todo.pop()
            if target not in seen:
                seen.add(target)
                todo.extend(graph[target])
        reach[name] = seen
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
