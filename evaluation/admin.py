"""Admin entry for evaluation runs, read-only: a run and its case results are measurements, written
only by the runner (deleting one goes through the audited API, admins only)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from core.admin_site import ReadOnlyModelAdmin
from evaluation.models import EvalCaseResult, EvalRun


class CaseResultInline(admin.TabularInline):
    model = EvalCaseResult
    fields = ("seq", "case_id", "variant", "outcome", "reason", "latency_ms")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(EvalRun)
class EvalRunAdmin(ReadOnlyModelAdmin):
    list_display = ("__str__", "status", "trigger", "passed_of_total", "gate", "requested_by", "created_at")
    list_filter = ("suite", "engine", "status", "trigger", "gate_ok")
    search_fields = ("suite", "engine", "cases__case_id")
    exclude = ("metrics", "summary", "judge")  # shown in words on the dashboard (link below)
    readonly_fields = ("dashboard",)
    inlines = [CaseResultInline]

    @admin.display(description="passed")
    def passed_of_total(self, run: EvalRun) -> str:
        return f"{run.passed} of {run.total}"

    @admin.display(description="gate", boolean=True)
    def gate(self, run: EvalRun) -> bool | None:
        return run.gate_ok

    @admin.display(description="metrics")
    def dashboard(self, run: EvalRun) -> str:
        url = reverse("evaluation:run", args=[run.pk])
        return format_html('<a href="{}">Open on the evaluation dashboard</a>', url)
