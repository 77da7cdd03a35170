"""A conversation taken away: Markdown with the figures in place, their provenance and the cited
passages; a PDF made from the same answer HTML, checked page by page as images and as text."""

from __future__ import annotations

from typing import Any

import pytest

from tests.pdf_pages import pdf_pages

pytestmark = pytest.mark.django_db


def test_conversation_exports_as_markdown_and_pdf(mpc_corpus: Any, ask: Any, client: Any, analyst: Any) -> None:
    turn = ask("What policy repo rate did the MPC decide at its August 2024 meeting?")
    assert turn.status == "done" and turn.claims and turn.citations
    quote = next(c for c in turn.claims if c["kind"] == "quote")
    client.force_login(analyst)
    base = f"/research/chat/{turn.conversation_id}/export"

    md = client.get(f"{base}.md")
    assert md.status_code == 200 and md["Content-Type"].startswith("text/markdown")
    assert "attachment" in md["Content-Disposition"]
    text = md.content.decode()
    assert text.startswith(f"# {turn.conversation.title}")
    assert f"**{quote['display']}** [{quote['id']}]" in text  # the figure in place, with its reference
    assert "[[c" not in text  # no raw claim reference left
    row = next(line for line in text.splitlines() if line.startswith(f"| {quote['id']} |"))
    assert quote["citation"] in row and "verified" in row
    assert f"http://testserver{turn.citations[0]['url']}" in text  # links work outside the portal

    pdf = client.get(f"{base}.pdf")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    pages, images = pdf_pages(pdf.content, "conversation")
    whole = " ".join(pages)
    assert turn.question[:40] in whole.replace("\n", " ")
    assert quote["display"] in whole and "verified" in whole
    assert images


def test_export_of_someone_elses_conversation_is_404(ask: Any, mpc_corpus: Any, client: Any, make_user: Any) -> None:
    turn = ask("What policy repo rate did the MPC decide at its June 2024 meeting?")
    client.force_login(make_user("analyst"))
    assert client.get(f"/research/chat/{turn.conversation_id}/export.md").status_code == 404
    client.force_login(turn.conversation.owner)
    assert client.get(f"/research/chat/{turn.conversation_id}/export.docx").status_code == 404
