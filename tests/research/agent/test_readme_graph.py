"""docs/research.md draws the compiled graph's own Mermaid output, so the picture cannot drift."""

from pathlib import Path

from research.agent.graph import mermaid

README = Path(__file__).resolve().parents[3] / "docs" / "research.md"


def test_readme_mermaid_matches_the_compiled_graph() -> None:
    text = README.read_text()
    section = text[text.index("## Research agent (chat)") :]
    block = section[
        section.index("```mermaid\n") + len("```mermaid\n") : section.index("\n```", section.index("```mermaid"))
    ]
    assert block.strip() == mermaid().strip()
