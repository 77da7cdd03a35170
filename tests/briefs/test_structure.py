"""The briefs app's shape, read from its source with ``ast`` (nothing is imported):

- no import cycle among its modules, counting imports inside functions (a lazy import hides a
  cycle from Python, not from a reader): ``tasks → runs → agent.graph → agent.nodes →
  agent.store → services``, and services imports none of them;
- no function over 60 lines and no module over 400 lines.

Run as a script for the report: ``python tests/briefs/test_structure.py [package]``.
"""

from __future__ import annotations

import ast
import sys
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 400


def package_modules(package: str, root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name → file, for every module of ``package`` (under ``root``) except migrations."""
    modules = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if "migrations" in parts:
            continue
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _imported_modules(node: ast.AST, module: str, is_package: bool, modules: dict[str, Path]) -> list[str]:
    """The dotted names an import statement loads (``from pkg import mod`` loads the submodule)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:  # relative: anchor on the importing module's package
        anchor = module.split(".") if is_package else module.split(".")[:-1]
        anchor = anchor[: len(anchor) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]


def import_graph(package: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Module → the package's modules it imports anywhere in its body (functions included)."""
    modules = package_modules(package, root)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            for target in _imported_modules(node, name, is_package, modules):
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]  # a name inside a module → that module
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


def _shortest_cycle_through(graph: dict[str, set[str]], start: str) -> list[str] | None:
    previous: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        for target in sorted(graph[current]):
            if target == start:
                path = [current]
                while (step := previous[path[-1]]) is not None:
                    path.append(step)
                return path[::-1]
            if target not in previous:
                previous[target] = current
                queue.append(target)
    return None


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The shortest cycle through each module that is on one, each cycle reported once."""
    seen: set[tuple[str, ...]] = set()
    cycles = []
    for module in sorted(graph):
        cycle = _shortest_cycle_through(graph, module)
        if cycle is None:
            continue
        first = cycle.index(min(cycle))
        canonical = tuple(cycle[first:] + cycle[:first])
        if canonical not in seen:
            seen.add(canonical)
            cycles.append(list(canonical))
    return cycles


def oversized(package: str) -> list[str]:
    """Modules over MAX_MODULE_LINES and functions over MAX_FUNCTION_LINES (def line to last line)."""
    found = []
    for path in package_modules(package).values():
        source = path.read_text()
        where = path.relative_to(ROOT)
        if (lines := len(source.splitlines())) > MAX_MODULE_LINES:
            found.append(f"{where}: {lines} lines")
        for node in ast.walk(ast.parse(source, str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found.append(f"{where}:{node.lineno} {node.name}: {length} lines")
    return found


def test_briefs_modules_import_one_another_without_a_cycle() -> None:
    cycles = import_cycles(import_graph("briefs"))
    assert cycles == [], "\n".join(" → ".join([*c, c[0]]) for c in cycles)


def test_the_service_layer_does_not_import_the_graph_or_its_runner() -> None:
    graph = import_graph("briefs")
    assert graph["briefs.services"].isdisjoint({"briefs.agent.graph", "briefs.runs", "briefs.tasks"})
    assert "briefs.runs" in graph["briefs.tasks"] and "briefs.agent.graph" in graph["briefs.runs"]


def test_briefs_functions_and_modules_stay_small() -> None:
    assert oversized("briefs") == []


if __name__ == "__main__":
    for package in sys.argv[1:] or ["briefs"]:
        graph = import_graph(package)
        cycles = import_cycles(graph)
        edges = sum(len(targets) for targets in graph.values())
        print(f"{package}: {len(graph)} modules, {edges} import edges, {len(cycles)} cycle(s)")
        for cycle in cycles:
            print("  " + " -> ".join([*cycle, cycle[0]]))
        for line in oversized(package):
            print("  oversized: " + line)
