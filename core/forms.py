from django import forms

from core.models import API_SCOPES


class ApiTokenForm(forms.Form):
    name = forms.CharField(max_length=80, help_text="e.g. 'Excel add-in' or 'Claude Desktop'")
    scopes = forms.MultipleChoiceField(
        choices=API_SCOPES,
        initial=["api"],
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Pick at least one scope."},
    )
