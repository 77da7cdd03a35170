"""Take-away files: a page's HTML rendered to PDF (WeasyPrint) and file downloads.

The PDF is rendered from the HTML the export template produces — the same answer or brief HTML
the page shows — with a print stylesheet inside it. WeasyPrint never fetches anything: a URL in
the HTML (a link) stays a link, and any resource it would load is refused.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.utils.http import content_disposition_header


def _no_fetch(url: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    raise ValueError(f"exports load nothing from the network or disk: {url}")


def html_to_pdf(html: str, *, base_url: str = "") -> bytes:
    """A PDF of ``html`` (A4 unless the HTML's @page says otherwise)."""
    from weasyprint import HTML  # heavy import: only when someone exports

    return HTML(string=html, base_url=base_url or None, url_fetcher=_no_fetch).write_pdf()


def download(content: str | bytes, *, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=filename)
    response["X-Content-Type-Options"] = "nosniff"
    return response
