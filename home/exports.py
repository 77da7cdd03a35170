"""A brief as Markdown and PDF: the verified body, every claim with its value, recomputed value,
tool call and as-of, and the delivery record. (Kept on the top floor beside the home page so the
briefs app stays as it is; the print page reuses the brief's own HTML.)"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from briefs.models import Brief
from briefs.selectors import brief_get
from core.exports import download, html_to_pdf
from core.formatting import MISSING, format_metric, metric_label
from core.roles import area_required


def _claim_rows(brief: Brief) -> list[dict[str, Any]]:
    checks = {c["id"]: c for c in brief.verification.get("checks", [])}
    rows = []
    for claim in brief.claims:
        check = checks.get(claim["id"], {})
        again = check.get("recomputed")
        metric, unit = str(claim.get("metric", "")), str(claim.get("unit", ""))
        rows.append(
            {
                "id": claim["id"],
                "ticker": claim.get("ticker", ""),
                "metric": claim.get("label") or metric_label(metric),
                "value": format_metric(metric, claim.get("value"), unit=unit),
                "recomputed": format_metric(metric, again, unit=unit) if again is not None else MISSING,
                "verified": bool(check.get("verified")),
                "source": f"{claim.get('tool', '')} #{claim.get('tool_call_id', '')} · {claim.get('source', '')}",
                "as_of": claim.get("as_of", ""),
            }
        )
    return rows


def brief_markdown(brief: Brief, *, url: str) -> str:
    rows = _claim_rows(brief)
    lines = [
        f"# {brief.title}",
        "",
        f"Watchlist {brief.watchlist.name} · data as of {brief.as_of or '—'} · {brief.get_status_display()}"
        + (f" by {brief.decided_by} on {brief.decided_at:%Y-%m-%d %H:%M}" if brief.decided_at else "")
        + f" · [open in AlphaDesk]({url})",
        "",
        brief.body_text.strip(),
        "",
        "## Claims",
        "",
        "| Id | Ticker | Metric | Value | Recomputed | Check | Tool call | As of |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        check = "verified" if r["verified"] else "mismatch"
        cells = [r["id"], r["ticker"], r["metric"], r["value"], r["recomputed"], check, r["source"], r["as_of"]]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    lines += ["", f"Exported from AlphaDesk on {timezone.localtime():%Y-%m-%d %H:%M %Z}."]
    return "\n".join(lines) + "\n"


@area_required("briefs")
@require_http_methods(["GET"])
def brief_export(request: HttpRequest, brief_id: int, fmt: str) -> HttpResponse:
    if fmt not in {"md", "pdf"}:
        raise Http404("Export as md or pdf.")
    brief = brief_get(user=request.user, brief_id=brief_id)
    url = request.build_absolute_uri(f"/briefs/{brief.pk}/")
    stem = f"alphadesk-brief-{brief.pk}"
    if fmt == "md":
        text = brief_markdown(brief, url=url)
        return download(text, filename=f"{stem}.md", content_type="text/markdown; charset=utf-8")
    html = render_to_string(
        "home/brief_export.html",
        {"brief": brief, "claims": _claim_rows(brief), "url": url, "exported_at": timezone.localtime()},
    )
    pdf = html_to_pdf(html, base_url=request.build_absolute_uri("/"))
    return download(pdf, filename=f"{stem}.pdf", content_type="application/pdf")
