from __future__ import annotations

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
