"""The research chat agent: a LangGraph graph (graph.py wires, nodes.py acts, planner.py and
memory.py hold the deterministic rules, verify.py keeps numbers honest, runner.py runs a turn)."""
