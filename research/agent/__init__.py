"""The research chat agent, a LangGraph graph laid out like the briefs agent:

- graph.py wires: the routes, the node wrapping and ``GRAPH_NAME`` (no database at import);
- nodes.py (control) and tool_nodes.py (tools) hold the thin nodes;
- state.py the state, its reducers and the per-turn input;
- store.py every database read and write the nodes make;
- prompts.py what is said to a model;
- answer.py composes the extractive answer, one composer per tool;
- rewrite.py the model's rewrite of that answer and the verification every answer passes;
- guardrails.py the limits checked after each superstep;
- dialogue/planner.py and dialogue/memory.py the deterministic rules; text/sentences.py picks sentences and figures;
- verify/claims.py keeps numbers honest;
- tools/extra.py and tools/compare_llm.py are the registry tools only the agent uses.
"""
