"""HTML forms: parse what a person types; the services validate and save."""

from __future__ import annotations

import re
from typing import Any

from django import forms

WEEKDAYS = [(0, "Mon"), (1, "Tue"), (2, "Wed"), (3, "Thu"), (4, "Fri"), (5, "Sat"), (6, "Sun")]


def parse_holdings(text: str) -> list[tuple[str, float | str | None]]:
    """One holding per line: ``TICKER [weight]``; the weight may be a fraction (0.4) or a percent (40%).
    Separators: spaces, tabs, commas or ``=``. A weight we cannot read is passed on as text, so the
    service names it in its error."""
    items: list[tuple[str, float | str | None]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p for p in re.split(r"[\s,=;:]+", line) if p]
        ticker = parts[0]
        if len(parts) == 1:
            items.append((ticker, None))
            continue
        raw = parts[1]
        try:
            weight: float | str = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
        except ValueError:
            weight = raw
        items.append((ticker, weight))
    return items


class PortfolioForm(forms.Form):
    name = forms.CharField(max_length=100)
    description = forms.CharField(max_length=500, required=False)
    holdings = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
        help_text="One per line: ticker and weight, e.g. “RELIANCE.NS 0.4” or “INFY 30%”. "
        "Leave every weight out for equal weights.",
        max_length=20_000,
    )
    normalise = forms.BooleanField(
        required=False, label="Normalise weights", help_text="Scale the weights to add up to 1 if they do not."
    )
    benchmark = forms.CharField(
        max_length=24, required=False, help_text="Empty: NIFTY 50 for Indian holdings, else SPY."
    )
    shared_with_team = forms.BooleanField(required=False, label="Share with the team (read-only for others)")
    risk_free_rate = forms.DecimalField(
        required=False,
        label="Risk-free rate (% a year)",
        max_digits=6,
        decimal_places=3,
        help_text="For Sharpe and Sortino. Empty: the default for the holdings' currency (INR 5.50 %, USD 4.00 %).",
    )

    def clean_risk_free_rate(self) -> float | None:
        value = self.cleaned_data["risk_free_rate"]
        return None if value is None else float(value) / 100  # the person types percent; we store a fraction

    def clean_holdings(self) -> list[tuple[str, Any]]:
        items = parse_holdings(self.cleaned_data["holdings"])
        if not items:
            raise forms.ValidationError("Add at least one ticker.")
        return items

    @staticmethod
    def initial_for(portfolio: Any) -> dict[str, Any]:
        return {
            "name": portfolio.name,
            "description": portfolio.description,
            "holdings": "\n".join(f"{h.ticker} {h.weight:.6g}" for h in portfolio.holdings.all()),
            "benchmark": portfolio.benchmark,
            "shared_with_team": portfolio.shared_with_team,
            "risk_free_rate": None if portfolio.risk_free_rate is None else round(portfolio.risk_free_rate * 100, 3),
        }


class WatchlistForm(forms.Form):
    name = forms.CharField(max_length=100)
    tickers = forms.CharField(help_text="Separated by spaces or commas, e.g. RELIANCE INFY TCS ^NSEI", max_length=4000)
    recipients = forms.CharField(
        required=False, help_text="Emails for the morning brief, separated by commas", max_length=4000
    )
    timezone = forms.CharField(max_length=64, initial="Asia/Kolkata")
    shared_with_team = forms.BooleanField(required=False, label="Share with the team (read-only for others)")
    brief_enabled = forms.BooleanField(required=False, label="Send a morning brief")
    brief_time = forms.TimeField(initial="07:30", widget=forms.TimeInput(attrs={"type": "time"}))
    brief_weekdays = forms.TypedMultipleChoiceField(
        choices=WEEKDAYS, coerce=int, widget=forms.CheckboxSelectMultiple, initial=[0, 1, 2, 3, 4], required=False
    )

    def clean_tickers(self) -> list[str]:
        return [t for t in re.split(r"[\s,;]+", self.cleaned_data["tickers"]) if t]

    def clean_recipients(self) -> list[str]:
        return [e for e in re.split(r"[\s,;]+", self.cleaned_data["recipients"]) if e]

    @staticmethod
    def initial_for(watchlist: Any) -> dict[str, Any]:
        return {
            "name": watchlist.name,
            "tickers": " ".join(watchlist.tickers),
            "recipients": ", ".join(watchlist.recipients),
            "timezone": watchlist.timezone,
            "shared_with_team": watchlist.shared_with_team,
            "brief_enabled": watchlist.brief_enabled,
            "brief_time": watchlist.brief_time,
            "brief_weekdays": watchlist.brief_weekdays,
        }


def apply_errors(form: forms.Form, exc: Any) -> None:
    """Copy a service ValidationError onto the form (unknown keys become non-field errors)."""
    for field, messages in getattr(exc, "message_dict", {"__all__": exc.messages}).items():
        form.add_error(field if field in form.fields else None, messages)
