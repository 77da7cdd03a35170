"""Research pages: document library, upload with live progress, hybrid search, document viewer."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_http_methods

from core.htmx import HtmxHttpRequest
from core.roles import area_required
from research.forms import SearchForm, UploadForm
from research.retrieval.search import SearchFilters
from research.selectors import document_facets, document_get, document_list, document_pages, highlight, passage_search
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
        passages = passage_search(
            user=request.user,
            query=data["q"],
            top_k=data["top_k"] or 10,
            filters=filters,
            mode=data["mode"] or "hybrid",
        )
        for passage in passages:
            passage.highlighted = highlight(passage.chunk.text, data["q"])  # type: ignore[attr-defined]
        context.update(passages=passages, query=data["q"])
    return context


@area_required("research")
@require_http_methods(["GET"])
def index(request: HtmxHttpRequest) -> HttpResponse:
    context = _search_context(request)
    if request.htmx and request.htmx.target == "search-results":
        return render(request, "research/index.html#search_results", context)
    context.update(
        documents=document_list(user=request.user)[:200],
        upload_form=UploadForm(),
        facets=document_facets(user=request.user),
        max_upload_mb=round(settings.RESEARCH_MAX_UPLOAD_BYTES / 1024 / 1024),
    )
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
    for document in result.created:
        messages.success(request, f"{document.filename}: uploaded; ingestion has started.")
    for document in result.duplicates:
        messages.info(request, f"{document.filename}: already in the library as “{document.title}” — nothing to do.")
    for _, reason in result.rejected:
        messages.error(request, reason)
    accepted = bool(result.created or result.duplicates)
    return _library_response(request, status=200 if accepted else 400)


def _library_response(request: HttpRequest, *, status: int) -> HttpResponse:
    if status == 200:
        return redirect("research:index")
    context = _search_context(request)
    context.update(
        documents=document_list(user=request.user)[:200],
        upload_form=UploadForm(),
        facets=document_facets(user=request.user),
        max_upload_mb=round(settings.RESEARCH_MAX_UPLOAD_BYTES / 1024 / 1024),
    )
    return render(request, "research/index.html", context, status=status)


@area_required("research")
@require_http_methods(["GET"])
def document_status(request: HttpRequest, document_id: int) -> HttpResponse:
    document = document_get(user=request.user, document_id=document_id)
    return render(request, "components/_document_status.html", {"document": document})


@area_required("research")
@require_http_methods(["GET"])
def document(request: HttpRequest, document_id: int) -> HttpResponse:
    doc = document_get(user=request.user, document_id=document_id)
    pages = document_pages(user=request.user, document_id=document_id)
    try:
        current_page = int(request.GET.get("page", "") or (pages[0][0] if pages else 1))
    except ValueError:
        current_page = pages[0][0] if pages else 1
    try:
        target_chunk = int(request.GET.get("chunk", "") or 0)
    except ValueError:
        target_chunk = 0
    return render(
        request,
        "research/document.html",
        {"document": doc, "pages": pages, "current_page": current_page, "target_chunk": target_chunk},
    )


@area_required("research")
@require_http_methods(["GET"])
def document_file(request: HttpRequest, document_id: int) -> HttpResponse:
    doc = document_get(user=request.user, document_id=document_id)
    with doc.file.open("rb") as handle:  # files are capped (RESEARCH_MAX_UPLOAD_BYTES)
        content = handle.read()
    # Always a download: an uploaded HTML file must never render (and run scripts) on our origin.
    content_type = "application/pdf" if doc.kind == "pdf" else "application/octet-stream"
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=doc.filename)
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "sandbox"
    return response


@area_required("research")
@require_http_methods(["POST"])
def document_remove(request: HttpRequest, document_id: int) -> HttpResponse:
    doc = document_get(user=request.user, document_id=document_id)
    title = doc.title
    document_delete(user=request.user, document=doc, request=request)
    messages.success(request, f"Deleted “{title}” and its passages.")
    return redirect("research:index")
