"""Brief list filters (django-filter): by watchlist and status, sorted by date or title."""

from __future__ import annotations

from typing import Any

import django_filters

from briefs.models import Brief


class BriefFilter(django_filters.FilterSet):
    watchlist = django_filters.ModelChoiceFilter(queryset=None, empty_label="Every watchlist", label="Watchlist")
    status = django_filters.ChoiceFilter(choices=Brief.Status.choices, empty_label="Any status", label="Status")
    sort = django_filters.OrderingFilter(
        label="Sort by",
        fields=(("created_at", "date"), ("title", "title")),
        field_labels={"-date": "Newest first", "date": "Oldest first", "title": "Title A–Z", "-title": "Title Z–A"},
        empty_label="Newest first",
    )

    class Meta:
        model = Brief
        fields = ["watchlist", "status"]

    def __init__(self, *args: Any, watchlists: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.filters["watchlist"].queryset = watchlists
