from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms

from research.models import Document


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Django's documented pattern for ``<input type=file multiple>``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": ".pdf,.html,.htm,.md,.markdown,.txt"}))
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> Any:
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(d, initial) for d in data]
        return [single(data, initial)]


class UploadForm(forms.Form):
    files = MultipleFileField(  # type: ignore[assignment]  # a form field named like BaseForm.files
        label="Files",
        help_text="PDF, HTML, Markdown or plain text; several at once.",
        error_messages={"required": "Choose at least one file to upload.", "empty": "The file is empty."},
    )
    title = forms.CharField(max_length=300, required=False, help_text="Used when one file is uploaded")
    issuer = forms.CharField(max_length=200, required=False)
    doc_type = forms.CharField(max_length=60, required=False, label="Type", help_text="e.g. mpc_minutes")
    doc_date = forms.DateField(required=False, label="Date", widget=forms.DateInput(attrs={"type": "date"}))
    tags = forms.CharField(max_length=300, required=False, help_text="Comma-separated")
    visibility = forms.ChoiceField(choices=Document.Visibility.choices, initial=Document.Visibility.TEAM)


class SearchForm(forms.Form):
    q = forms.CharField(max_length=1000, required=False, label="Query")
    doc_type = forms.CharField(max_length=60, required=False, label="Type")
    issuer = forms.CharField(max_length=200, required=False)
    tag = forms.CharField(max_length=40, required=False)
    date_from = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))
    mode = forms.ChoiceField(
        choices=[("hybrid", "Hybrid"), ("bm25", "Keyword (BM25)"), ("vector", "Semantic")],
        required=False,
        initial="hybrid",
    )
    MAX_RESULTS = 50
    top_k = forms.IntegerField(min_value=1, max_value=MAX_RESULTS, required=False, initial=10, label="Results")


def _hint(where: str | None) -> str:
    """Under a proposed field: where it was read ("Read from the cover page"), or that it was not."""
    if not where:
        return "Not found in the file; type it if you know it"
    return f"Read from the {where}" if where.endswith(("page", "name", "statements")) else where.capitalize()


_DATE_ERROR = {"invalid": "Enter a date as YYYY-MM-DD (for example 2023-07-01)."}


class DocumentDetailsForm(forms.Form):
    """One document's details on the confirmation page after an upload (prefilled with what was
    read from its cover) — or later, from the document's page."""

    title = forms.CharField(max_length=300)
    issuer = forms.CharField(max_length=200, required=False, label="Company or issuer")
    doc_type = forms.ChoiceField(required=False, label="Form or type")
    fiscal_period = forms.CharField(max_length=20, required=False, label="Fiscal period")
    period_start = forms.DateField(
        required=False, label="Period from", error_messages=_DATE_ERROR, widget=forms.DateInput(attrs={"type": "date"})
    )
    period_end = forms.DateField(
        required=False, label="Period to", error_messages=_DATE_ERROR, widget=forms.DateInput(attrs={"type": "date"})
    )
    doc_date = forms.DateField(
        required=False,
        label="Filed or issued",
        error_messages=_DATE_ERROR,
        widget=forms.DateInput(attrs={"type": "date"}),
    )

    def __init__(
        self, *args: Any, types: Sequence[str] = (), sources: dict[str, str] | None = None, **kwargs: Any
    ) -> None:
        """``types``: the library's document types, offered beside the filing forms; ``sources``:
        where the upload read each field (shown under it; ``None`` when the form is not an upload's)."""
        super().__init__(*args, **kwargs)
        if sources is not None:
            self.fields["title"].help_text = "From the file name unless you gave one"
        for name, field in self.fields.items():
            if sources is not None and name != "title":
                where = sources.get(name)
                field.help_text = _hint(where)
        from core.formatting import field_label
        from research.packs.filings.cover import FORM_TYPES

        current = [self.initial.get("doc_type") or "", self.data.get(self.add_prefix("doc_type")) or ""]
        known = list(dict.fromkeys([*FORM_TYPES, *types, *current]))
        self.fields["doc_type"].choices = [("", "—")] + [(t, field_label(t)) for t in known if t]  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("period_start"), data.get("period_end")
        if start and end and end < start:
            self.add_error("period_end", "The period cannot end before it starts.")
        return data
