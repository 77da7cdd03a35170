"""Library list filters (django-filter): invalid values become form errors, never 500s."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import Q, QuerySet

from research.models import Document

SCOPES = [("mine", "Uploaded by me"), ("reference", "Team reference set"), ("private", "Private")]


class DocumentFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q", label="Title or issuer")
    doc_type = django_filters.ChoiceFilter(label="Type", empty_label="Any type", choices=[])
    status = django_filters.ChoiceFilter(label="Status", choices=Document.Status.choices, empty_label="Any status")
    scope = django_filters.ChoiceFilter(label="Show", choices=SCOPES, method="filter_scope", empty_label="Everything")
    sort = django_filters.OrderingFilter(
        label="Sort by",
        fields=(("doc_date", "date"), ("title", "title"), ("created_at", "added")),
        field_labels={
            "-date": "Newest document first",
            "date": "Oldest document first",
            "title": "Title A–Z",
            "-title": "Title Z–A",
            "-added": "Recently added",
            "added": "First added",
        },
        empty_label="Recently added",
    )

    class Meta:
        model = Document
        fields = ["q", "doc_type", "status", "scope"]

    def __init__(self, *args: Any, doc_types: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.filters["doc_type"].extra["choices"] = [(t, t.replace("_", " ").capitalize()) for t in doc_types or []]

    def filter_q(self, queryset: QuerySet[Document], name: str, value: str) -> QuerySet[Document]:
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(Q(title__icontains=value) | Q(issuer__icontains=value) | Q(filename__icontains=value))

    def filter_scope(self, queryset: QuerySet[Document], name: str, value: str) -> QuerySet[Document]:
        user = getattr(self.request, "user", None)
        if value == "mine":
            return queryset.filter(owner=user)
        if value == "reference":
            return queryset.filter(is_reference=True)
        return queryset.filter(visibility=Document.Visibility.PRIVATE)

    @property
    def qs(self) -> QuerySet[Document]:
        # A stable order under any sort: ties (same date) break on id, so pages never repeat a row.
        qs = super().qs
        order = list(qs.query.order_by) or ["-created_at"]
        return qs.order_by(*order, "-id")
