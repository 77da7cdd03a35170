"""Admin entries for the library (documents: re-ingest, team reference set) and the chat
(conversations with their turns: read-only — answers change only through the agent and reviews)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from core.admin_site import ReadOnlyModelAdmin
from research.chat.models import Conversation, Turn
from research.library_admin import document_reference_set, document_reingest
from research.models import Document


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ("title", "owner", "doc_type", "doc_date", "visibility", "is_reference", "status", "chunk_count")
    list_filter = ("status", "visibility", "is_reference", "doc_type")
    search_fields = ("title", "issuer", "filename", "owner__email")
    readonly_fields = [f.name for f in Document._meta.fields if f.name not in {"title", "issuer", "doc_date", "tags"}]
    actions = ["reingest", "add_to_reference_set", "remove_from_reference_set"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # uploads go through the library page (validation, dedupe, ingestion)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # deletion goes through the library's audited confirm page

    @admin.action(description="Re-ingest the selected documents")
    def reingest(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        for document in queryset:
            document_reingest(user=request.user, document_id=document.pk, request=request)
        messages.success(request, f"{queryset.count()} document(s) queued for re-ingestion.")

    @admin.action(description="Add to the team reference set")
    def add_to_reference_set(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        changed = document_reference_set(user=request.user, document_ids=ids, reference=True, request=request)
        messages.success(request, f"{changed} document(s) added to the team reference set.")
        waiting = queryset.filter(is_reference=False, reference_requested_by__isnull=False).count()
        if waiting:
            messages.info(
                request, f"{waiting} document(s) wait for another admin to approve them (REFERENCE_SET_APPROVAL)."
            )

    @admin.action(description="Remove from the team reference set")
    def remove_from_reference_set(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        changed = document_reference_set(user=request.user, document_ids=ids, reference=False, request=request)
        messages.success(request, f"{changed} document(s) removed from the team reference set.")


class TurnInline(admin.TabularInline):
    model = Turn
    fields = ("index", "question", "status", "answered_by", "plan_path", "latency_ms", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyModelAdmin):
    list_display = ("title", "owner", "created_at", "updated_at")
    search_fields = ("title", "owner__email", "turns__question")
    inlines = [TurnInline]
