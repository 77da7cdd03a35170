"""Inbox and audit-log filters (django-filter): invalid values become form errors, not 500s."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import django_filters
from django import forms
from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.utils import timezone

from core.models import AuditEvent
from reviews.models import ReviewTask

_DATE = forms.DateInput(attrs={"type": "date"})
AGE_CHOICES = [("1h", "Under an hour"), ("24h", "Under a day"), ("older", "Older than a day"), ("overdue", "Overdue")]


def _requesters(request: Any) -> QuerySet[Any]:
    ids = ReviewTask.objects.exclude(requested_by=None).values("requested_by")
    return get_user_model().objects.filter(pk__in=ids).order_by("email")


class ReviewTaskFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=ReviewTask.State.choices, empty_label="Any state")
    kind = django_filters.ChoiceFilter(choices=ReviewTask.Kind.choices, empty_label="Any kind")
    requester = django_filters.ModelChoiceFilter(
        field_name="requested_by", queryset=_requesters, empty_label="Anyone", label="Requested by"
    )
    age = django_filters.ChoiceFilter(choices=AGE_CHOICES, method="filter_age", empty_label="Any age", label="Age")
    watchlist = django_filters.CharFilter(
        field_name="payload__brief__watchlist", lookup_expr="icontains", label="Watchlist"
    )
    # Named labels: without one, django-filter derives it from the (non-model) field name and
    # shows "[invalid name]".
    sort = django_filters.OrderingFilter(
        label="Sort by",
        fields=(("due_at", "due"), ("created_at", "created"), ("priority", "priority"), ("title", "title")),
        field_labels={
            "due": "Due first",
            "-due": "Due last",
            "created": "Oldest first",
            "-created": "Newest first",
            "priority": "Lowest priority",
            "-priority": "Highest priority",
            "title": "Title A–Z",
            "-title": "Title Z–A",
        },
        empty_label="Priority, then due",
    )

    class Meta:
        model = ReviewTask
        fields = ["state", "kind", "requester", "age", "watchlist"]

    def filter_age(self, queryset: QuerySet[ReviewTask], name: str, value: str) -> QuerySet[ReviewTask]:
        now = timezone.now()
        if value == "1h":
            return queryset.filter(created_at__gte=now - timedelta(hours=1))
        if value == "24h":
            return queryset.filter(created_at__gte=now - timedelta(hours=24))
        if value == "older":
            return queryset.filter(created_at__lt=now - timedelta(hours=24))
        return queryset.filter(state=ReviewTask.State.PENDING, due_at__lt=now)


class AuditEventFilter(django_filters.FilterSet):
    sort = django_filters.OrderingFilter(
        label="Sort by",
        fields=(("id", "time"), ("action", "action")),
        field_labels={"-time": "Newest first", "time": "Oldest first", "action": "Action A–Z", "-action": "Action Z–A"},
        empty_label="Newest first",
    )
    actor = django_filters.CharFilter(field_name="actor_label", lookup_expr="icontains", label="Actor")
    action = django_filters.CharFilter(field_name="action", lookup_expr="startswith", label="Action starts with")
    subject_type = django_filters.CharFilter(field_name="subject_type", lookup_expr="iexact", label="Subject type")
    subject_id = django_filters.CharFilter(field_name="subject_id", lookup_expr="exact", label="Subject id")
    date_from = django_filters.DateFilter(field_name="created_at", lookup_expr="date__gte", label="From", widget=_DATE)
    date_to = django_filters.DateFilter(field_name="created_at", lookup_expr="date__lte", label="To", widget=_DATE)

    class Meta:
        model = AuditEvent
        fields = ["actor", "action", "subject_type", "subject_id", "date_from", "date_to"]
