"""Admin entries for briefs and their runs: read-only — a brief changes only through its run, the
reviewer's decision and delivery, each audited."""

from __future__ import annotations

from django.contrib import admin

from briefs.models import Brief, BriefRun
from core.admin_site import ReadOnlyModelAdmin


@admin.register(BriefRun)
class BriefRunAdmin(ReadOnlyModelAdmin):
    list_display = ("id", "watchlist", "trigger", "status", "partial", "iterations", "tokens", "created_at")
    list_filter = ("status", "trigger", "partial")
    search_fields = ("watchlist__name", "note")


@admin.register(Brief)
class BriefAdmin(ReadOnlyModelAdmin):
    list_display = ("title", "watchlist", "as_of", "status", "partial", "decided_by", "created_at")
    list_filter = ("status", "partial")
    search_fields = ("title", "watchlist__name", "body_text")
