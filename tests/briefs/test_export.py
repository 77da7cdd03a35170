"""A brief taken away: Markdown with its verified body and claim table, and a PDF made from the
brief's own HTML, checked page by page as images and as text."""

from __future__ import annotations

from typing import Any

import pytest

from tests.briefs.test_pipeline import _run
from tests.pdf_pages import pdf_pages

pytestmark = pytest.mark.django_db(transaction=True)


def test_brief_exports_as_markdown_and_pdf(watchlist: Any, analyst: Any, feeds: Any, client: Any) -> None:
    run, _ = _run(watchlist, analyst)
    brief = run.brief
    claim = brief.claims[0]
    client.force_login(analyst)

    md = client.get(f"/briefs/{brief.pk}/export.md")
    assert md.status_code == 200 and "attachment" in md["Content-Disposition"]
    text = md.content.decode()
    assert text.startswith(f"# {brief.title}") and brief.body_text.strip()[:80] in text
    assert "{{c" not in text and "[[c" not in text
    row = next(line for line in text.splitlines() if line.startswith(f"| {claim['id']} |"))
    assert claim["ticker"] in row and "verified" in row and "_pct" not in row

    pdf = client.get(f"/briefs/{brief.pk}/export.pdf")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    pages, _ = pdf_pages(pdf.content, "brief")
    whole = " ".join(pages)
    assert brief.title in whole and "Claims" in whole and claim["ticker"] in whole


def test_brief_export_follows_brief_visibility(
    watchlist: Any, analyst: Any, feeds: Any, client: Any, make_user: Any
) -> None:
    run, _ = _run(watchlist, analyst)
    client.force_login(make_user("analyst"))  # another analyst cannot see a private watchlist's brief
    assert client.get(f"/briefs/{run.brief.pk}/export.pdf").status_code == 404
