"""The research app's inner plan: the agent as packages by stage (the layers contract in
pyproject.toml checks their direction), no flat module left with a stage's prefix, and no import
circle anywhere in research/, counting imports inside functions and under TYPE_CHECKING."""

from __future__ import annotations

from pathlib import Path

from tests.briefs.test_structure import ROOT, import_cycles, import_graph

AGENT = ROOT / "research" / "agent"
# The graph's own modules stay flat; every other module lives in its stage's package.
SKELETON = {"graph", "nodes", "tool_nodes", "prompts", "store", "guardrails", "answer", "rewrite", "state"}
STAGES = {"tools", "verify", "compose", "evidence", "dialogue", "question", "text"}


def test_research_has_no_import_circle() -> None:
    cycles = import_cycles(import_graph("research"))
    assert cycles == [], "\n".join(" → ".join([*c, c[0]]) for c in cycles)


def test_the_circle_check_sees_imports_inside_functions_and_type_checking(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def later():\n    from pkg import b\n\n    return b\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from pkg.a import later\n")
    (pkg / "c.py").write_text("from pkg import b\n")
    assert import_cycles(import_graph("pkg", tmp_path)) == [["pkg.a", "pkg.b"]]


def test_the_agent_is_packages_by_stage() -> None:
    flat = {p.stem for p in AGENT.glob("*.py")} - {"__init__"}
    packages = {p.name for p in AGENT.iterdir() if (p / "__init__.py").exists()}
    assert flat == SKELETON
    assert packages == STAGES
