"""The library list (filter, sort, 25 a page), search "more", the paged document reader, and the
team's reference set: who may delete what, shown on the page and enforced with an audited confirm."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.urls import reverse

from core.models import AuditEvent
from research.library_admin import document_reference_set
from research.models import Document
from research.services import UploadFile, document_delete, document_upload

pytestmark = pytest.mark.django_db


def _docs(owner: Any, n: int) -> list[Document]:
    """``n`` documents titled Doc 000.. with dates a day apart (not ingested: the list shows them)."""
    out = []
    for i in range(n):
        result = document_upload(
            user=owner,
            files=[UploadFile(name=f"d{i}.txt", data=f"Document number {i}.".encode())],
            title=f"Doc {i:03d}",
            doc_date=dt.date(2024, 1, 1) + dt.timedelta(days=i),
        )
        out.append(result.created[0])
    return out


def _titles(html: str) -> list[str]:
    return re.findall(r'class="doc-title"[^>]*>(Doc \d{3})', html.split('id="documents"')[1].split("</table>")[0])


def test_library_pages_25_at_a_time_and_sorts_by_title_or_date(client: Any, analyst: Any) -> None:
    _docs(analyst, 30)
    client.force_login(analyst)
    first = client.get("/research/", {"lib-sort": "title"}).content.decode()
    assert _titles(first) == [f"Doc {i:03d}" for i in range(25)]
    assert "1–25 of 30 documents" in first and "Page 1 of 2" in first
    second = client.get("/research/", {"lib-sort": "title", "page": 2}).content.decode()
    assert _titles(second) == [f"Doc {i:03d}" for i in range(25, 30)]
    newest = client.get("/research/", {"lib-sort": "-date"}).content.decode()
    assert _titles(newest)[:2] == ["Doc 029", "Doc 028"]
    found = client.get("/research/", {"lib-q": "Doc 007"}).content.decode()
    assert _titles(found) == ["Doc 007"]
    bad = client.get("/research/", {"lib-sort": "nonsense"})
    assert bad.status_code == 200 and "Those filters are not valid" in bad.content.decode()


def test_htmx_asks_only_for_the_list(client: Any, analyst: Any) -> None:
    _docs(analyst, 3)
    client.force_login(analyst)
    response = client.get("/research/", {"lib-sort": "title"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="library-list")
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="library-list">') and "<html" not in body


def test_reference_set_only_admins_delete_and_the_page_says_so(
    client: Any, analyst: Any, admin_user: Any, make_user: Any
) -> None:
    mine, shared = _docs(analyst, 2)
    assert document_reference_set(user=admin_user, document_ids=[shared.pk], reference=True) == 1
    with pytest.raises(Exception, match="Only an admin"):
        document_reference_set(user=analyst, document_ids=[mine.pk], reference=True)
    client.force_login(analyst)
    html = client.get("/research/").content.decode()
    row = {d.pk: html.split(f'data-document="{d.pk}"')[1].split("</tr>")[0] for d in (mine, shared)}
    assert "yours" in row[mine.pk] and reverse("research:document-delete", args=[mine.pk]) in row[mine.pk]
    assert "team reference" in row[shared.pk]
    assert reverse("research:document-delete", args=[shared.pk]) not in row[shared.pk]
    # Enforced, not only hidden: the owner cannot delete a reference document.
    response = client.post(reverse("research:document-delete", args=[shared.pk]), follow=True)
    assert "only an admin can delete the team&#x27;s reference set" in response.content.decode()
    assert Document.objects.filter(pk=shared.pk).exists()
    other = make_user("analyst")
    client.force_login(other)
    assert 'data-testid="yours"' not in client.get("/research/").content.decode()
    with pytest.raises(Exception, match="Only the document"):
        document_delete(user=other, document=mine)


def test_delete_asks_first_then_deletes_and_audits(client: Any, admin_user: Any, analyst: Any) -> None:
    (doc,) = _docs(analyst, 1)
    document_reference_set(user=admin_user, document_ids=[doc.pk], reference=True)
    client.force_login(admin_user)
    url = reverse("research:document-delete", args=[doc.pk])
    confirm = client.get(url).content.decode()
    assert "Delete “Doc 000”?" in confirm and "team reference set" in confirm
    assert Document.objects.filter(pk=doc.pk).exists()  # asking deletes nothing
    client.post(url)
    assert not Document.objects.filter(pk=doc.pk).exists()
    event = AuditEvent.objects.get(action="document.delete", subject_id=str(doc.pk))
    assert event.actor_id == admin_user.pk and (event.before or {}).get("is_reference") is True
    assert AuditEvent.objects.filter(action="document.reference_set", subject_id=str(doc.pk)).count() == 1


def test_facets_list_each_type_once(client: Any, analyst: Any) -> None:
    from research.selectors import document_facets

    for doc in _docs(analyst, 3):
        Document.objects.filter(pk=doc.pk).update(status="done", doc_type="mpc_minutes", issuer="RBI", tags=["rbi"])
    assert document_facets(user=analyst) == {"doc_types": ["mpc_minutes"], "issuers": ["RBI"], "tags": ["rbi"]}
