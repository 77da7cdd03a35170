"""Research pages: document library, upload with live progress, hybrid search, document viewer."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_http_methods

from core.exceptions import ApplicationError
from core.htmx import HtmxHttpRequest
from core.roles import area_required
from core.storage import file_read
from core.tasks import QUEUE_DOWN_NOTICE, queue_unavailable
from research.document_details import EDITABLE, document_details_update
from research.filters import DocumentFilter
from research.forms import DocumentDetailsForm, SearchForm, UploadForm
from research.models import Document
from research.retrieval.search import SearchFilters
from research.selectors import (
    document_chunk_page,
    document_facets,
    document_get,
    document_list,
    document_page,
    document_page_index,
    highlight,
    passage_search,
)
from research.services import UploadFile, document_delete, document_upload


def _search_context(request: HttpRequest) -> dict[str, object]:
    form = SearchForm(request.GET or None)
    context: dict[str, object] = {"search_form": form, "passages": None, "query": ""}
    if form.is_bound and form.is_valid() and form.cleaned_data["q"].strip():
        data = form.cleaned_data
        filters = SearchFilters(
            doc_types=[data["doc_type"]] if data["doc_type"] else [],
            issuers=[data["issuer"]] if data["issuer"] else [],
            tags=[data["tag"].lower()] if data["tag"] else [],
            date_from=data["date_from"],
            date_to=data["date_to"],
        )
        top_k = data["top_k"] or SEARCH_STEP
        passages = passage_search(
            user=request.user,
            query=data["q"],
            top_k=top_k,
            filters=filters,
            mode=data["mode"] or "hybrid",
        )
        for passage in passages:
            passage.highlighted = highlight(passage.chunk.text, data["q"])  # type: ignore[attr-defined]
        params = request.GET.copy()
        params["top_k"] = str(min(top_k + SEARCH_STEP, SearchForm.MAX_RESULTS))
        # "More" asks for the next ten; a full page may have more behind it, a short one has not.
        full_page = len(passages) >= top_k and top_k < SearchForm.MAX_RESULTS
        more_url = f"?{params.urlencode()}#search" if full_page else ""
        context.update(passages=passages, query=data["q"], more_url=more_url)
    return context


PAGE_SIZE = 25
SEARCH_STEP = 10


def _library_context(request: HttpRequest) -> dict[str, object]:
    """The library list: filtered, sorted and paged (25 a page)."""
    facets = document_facets(user=request.user)
    filterset = DocumentFilter(
        request.GET,
        queryset=document_list(user=request.user),
        request=request,
        doc_types=facets["doc_types"],
        prefix="lib",  # the search form above uses q/doc_type too
    )
    valid = filterset.is_valid()
    documents = Paginator(filterset.qs if valid else Document.objects.none(), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    params = request.GET.copy()
    params.pop("page", None)
    return {
        "library_filter": filterset,
        "documents": documents,
        "library_query": params.urlencode(),
        "facets": facets,
        "upload_form": UploadForm(),
        "max_upload_mb": round(settings.RESEARCH_MAX_UPLOAD_BYTES / 1024 / 1024),
    }


@area_required("research")
@require_http_methods(["GET"])
def index(request: HtmxHttpRequest) -> HttpResponse:
    context = _search_context(request)
    if request.htmx and request.htmx.target == "search-results":
        return render(request, "research/index.html#search_results", context)
    context.update(_library_context(request))
    if request.htmx and request.htmx.target == "library-list":
        return render(request, "research/index.html#library", context)
    return render(request, "research/index.html", context)


@area_required("research")
@require_http_methods(["POST"])
def upload(request: HttpRequest) -> HttpResponse:
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, str(error))
        return _library_response(request, status=400)
    data = form.cleaned_data
    files = [UploadFile.from_upload(f) for f in data["files"]]
    try:
        result = document_upload(
            user=request.user,
            files=files,
            visibility=data["visibility"],
            title=data["title"],
            issuer=data["issuer"],
            doc_type=data["doc_type"],
            doc_date=data["doc_date"],
            tags=[t for t in data["tags"].split(",")],
            request=request,
        )
    except ApplicationError as exc:  # the file store is down (core/storage.py): nothing was saved
        messages.error(request, exc.message)
        return _library_response(request, status=503)
    for document in result.created:
        if queue_unavailable(document):
            messages.warning(request, f"{document.filename}: uploaded. {QUEUE_DOWN_NOTICE}")
        else:
            messages.success(request, f"{document.filename}: uploaded; ingestion has started.")
    for document in result.duplicates:
        messages.info(request, f"{document.filename}: already in the library as “{document.title}” — nothing to do.")
    for _, reason in result.rejected:
        messages.error(request, reason)
    if result.created:
        # Next: the details read from each file's cover, to confirm or correct (ingestion goes on).
        request.session[_PROPOSALS_KEY] = {str(pk): p.as_dict() for pk, p in result.proposals.items()}
        ids = ",".join(str(d.pk) for d in result.created)
        return redirect(f"{reverse('research:document-details')}?ids={ids}")
    accepted = bool(result.duplicates)
    return _library_response(request, status=200 if accepted else 400)


def _library_response(request: HttpRequest, *, status: int) -> HttpResponse:
    if status == 200:
        return redirect("research:index")
    context = {**_search_context(request), **_library_context(request)}
    return render(request, "research/index.html", context, status=status)


_PROPOSALS_KEY = "research.upload_proposals"
MAX_DETAILS_FORMS = 20


def _details_documents(request: HttpRequest, raw_ids: str) -> list[Document]:
    ids = [int(part) for part in raw_ids.split(",") if part.strip().isdigit()][:MAX_DETAILS_FORMS]
    documents = [document_get(user=request.user, document_id=pk) for pk in dict.fromkeys(ids)]
    return [d for d in documents if d.deletable_by(request.user)]


def _details_forms(request: HttpRequest, documents: list[Document]) -> list[DocumentDetailsForm]:
    """A form per document, prefilled with its details; under each field, where the upload read it."""
    data = request.POST if request.method == "POST" else None
    types = document_facets(user=request.user)["doc_types"]
    proposals = request.session.get(_PROPOSALS_KEY, {})
    forms = []
    for document in documents:
        initial = {name: getattr(document, name) for name in EDITABLE}
        sources = proposals[str(document.pk)]["sources"] if str(document.pk) in proposals else None
        forms.append(DocumentDetailsForm(data, prefix=f"d{document.pk}", initial=initial, types=types, sources=sources))
    return forms


def _details_saved(request: HttpRequest, documents: list[Document], forms: list[DocumentDetailsForm]) -> bool:
    """Write every document's changes in one transaction; a refusal by the service (an over-long
    type, a period another request made inconsistent) goes onto its form and writes nothing."""
    try:
        with transaction.atomic():
            for index, (document, form) in enumerate(zip(documents, forms, strict=True)):
                # Only what the user changed: ingestion may have filled a field since the page was shown.
                changes = {name: form.cleaned_data[name] for name in form.changed_data}
                documents[index] = document_details_update(
                    user=request.user, document=document, changes=changes, request=request
                )
    except ValidationError as exc:
        for name, errors in exc.message_dict.items():
            forms[index].add_error(name if name in forms[index].fields else None, errors)
        return False
    return True


@area_required("research")
@require_http_methods(["GET", "POST"])
def document_details(request: HttpRequest) -> HttpResponse:
    """Confirm or correct the details of one or more documents (``?ids=1,2``): after an upload,
    prefilled with what was read from each file's cover and where; later, from a document's page.
    All forms are checked first: one bad field re-shows every form as typed, and nothing is written."""
    documents = _details_documents(request, request.GET.get("ids", ""))
    if not documents:
        messages.error(request, "There is no document of yours to confirm here.")
        return redirect("research:index")
    forms = _details_forms(request, documents)
    if request.method == "POST" and all(f.is_valid() for f in forms) and _details_saved(request, documents, forms):
        request.session.pop(_PROPOSALS_KEY, None)
        names = ", ".join(f"“{d.title}”" for d in documents[:3]) + (" …" if len(documents) > 3 else "")
        messages.success(request, f"Details saved for {names}.")
        return redirect("research:index")
    rows = list(zip(documents, forms, strict=True))
    status = 400 if request.method == "POST" else 200
    proposals = request.session.get(_PROPOSALS_KEY, {})
    after_upload = any(str(d.pk) in proposals for d in documents)
    context = {"rows": rows, "ids": request.GET["ids"], "invalid": status == 400, "after_upload": after_upload}
    return render(request, "research/document_details.html", context, status=status)


@area_required("research")
@require_http_methods(["GET"])
def document_status(request: HttpRequest, document_id: int) -> HttpResponse:
    document = document_get(user=request.user, document_id=document_id)
    return render(request, "components/_document_status.html", {"document": document})


def _int_param(request: HttpRequest, name: str) -> int | None:
    try:
        return int(request.GET.get(name, ""))
    except ValueError:
        return None


@area_required("research")
@require_http_methods(["GET"])
def document(request: HttpRequest, document_id: int) -> HttpResponse:
    """One page of the document at a time; ``?chunk=`` opens at the cited passage's page."""
    doc = document_get(user=request.user, document_id=document_id)
    index = document_page_index(user=request.user, document_id=document_id)
    target_chunk = _int_param(request, "chunk") or 0
    wanted = _int_param(request, "page") or document_chunk_page(document=doc, chunk_id=target_chunk)
    numbers = [number for number, _ in index]
    current = wanted if wanted in numbers else (numbers[0] if numbers else 1)
    position = numbers.index(current) if numbers else 0
    label, chunks = document_page(document=doc, page_number=current)
    return render(
        request,
        "research/document.html",
        {
            "document": doc,
            "page_index": index,
            "current_page": current,
            "page_label": label,
            "chunks": chunks,
            "target_chunk": target_chunk,
            "previous_page": numbers[position - 1] if position > 0 else None,
            "next_page": numbers[position + 1] if position + 1 < len(numbers) else None,
        },
    )


@area_required("research")
@require_http_methods(["GET"])
def document_file(request: HttpRequest, document_id: int) -> HttpResponse:
    doc = document_get(user=request.user, document_id=document_id)
    try:
        content = file_read(doc.file)
    except ApplicationError as exc:  # the file store is down, or lost the file: say so, no 500
        return HttpResponse(exc.message, status=404 if exc.code == "not_found" else 503, content_type="text/plain")
    # Always a download: an uploaded HTML file must never render (and run scripts) on our origin.
    content_type = "application/pdf" if doc.kind == "pdf" else "application/octet-stream"
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=doc.filename)
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "sandbox"
    return response


@area_required("research")
@require_http_methods(["GET", "POST"])
def document_remove(request: HttpRequest, document_id: int) -> HttpResponse:
    """GET asks for confirmation; POST deletes (audited by the service)."""
    doc = document_get(user=request.user, document_id=document_id)
    if not doc.deletable_by(request.user):
        reason = "only an admin can delete the team's reference set" if doc.is_reference else "it is not yours"
        messages.error(request, f"You cannot delete “{doc.title}”: {reason}.")
        return redirect("research:index")
    if request.method == "GET":
        return render(request, "research/document_delete.html", {"document": doc})
    title = doc.title
    document_delete(user=request.user, document=doc, request=request)
    messages.success(request, f"Deleted “{title}” and its passages. The deletion is in the audit history.")
    return redirect("research:index")
