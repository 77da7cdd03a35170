"""Read-only admin views: audit rows are append-only and decisions go through the inbox
(``review_task_decide``), so the admin never edits either directly. The audit log is listed through
the ``reviews.AuditEvent`` proxy of ``core.AuditEvent`` so it keeps its admin address."""

from django.contrib import admin

from core.admin_site import ReadOnlyModelAdmin
from reviews.models import AuditEvent, ReviewTask


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyModelAdmin):
    list_display = ("created_at", "actor_label", "action", "subject_type", "subject_id", "ip")
    list_filter = ("action",)
    search_fields = ("actor_label", "action", "subject_label", "subject_id")


@admin.register(ReviewTask)
class ReviewTaskAdmin(ReadOnlyModelAdmin):
    list_display = ("id", "kind", "state", "title", "requested_by", "due_at", "decided_by", "resume_state")
    list_filter = ("kind", "state", "resume_state")
    search_fields = ("title", "thread_id")
