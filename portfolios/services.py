"""Writes: create/edit/delete watchlists and portfolios — atomic, permission-checked, audited.

Validation happens before anything is written, so a bad request never leaves a half-saved
portfolio; problems are raised as Django ``ValidationError`` with field keys (a 400 in DRF, form
errors in HTML).
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest

from core.audit import audit_record
from core.exceptions import ApplicationError
from core.roles import can_access
from portfolios import analytics, market, tickers
from portfolios.models import Holding, Portfolio, Watchlist


def _require_owner_area(user: Any) -> None:
    if not can_access(user, "portfolios"):
        raise PermissionDenied("Your role does not give access to portfolios.")


def _resolve_all(symbols: Sequence[str], field: str) -> list[str]:
    """Canonical cached symbols (``RELIANCE`` → ``RELIANCE.NS``); unknown tickers are a field error."""
    resolved, unknown = [], []
    for symbol in symbols:
        try:
            resolved.append(market.instrument_resolve(symbol).symbol)
        except ApplicationError as exc:
            if exc.code in {"unknown_ticker", "invalid_input"}:
                unknown.append(exc.message)
            else:
                raise ValidationError({field: exc.message}) from exc
    if unknown:
        raise ValidationError({field: unknown[:5]})
    dupes = sorted({s for s in resolved if resolved.count(s) > 1})
    if dupes:
        raise ValidationError({field: f"Each instrument may appear once; listed twice: {', '.join(dupes)}."})
    return resolved


def _clean_holdings(holdings: Sequence[tuple[Any, Any]], normalise: bool) -> tuple[list[str], list[float], list[str]]:
    try:
        clean = analytics.clean_holdings(holdings, normalise=normalise, max_holdings=settings.PORTFOLIO_MAX_HOLDINGS)
    except ApplicationError as exc:
        raise ValidationError({"holdings": exc.message}) from exc
    return _resolve_all(clean.symbols, "holdings"), clean.weights, clean.notices


def _clean_benchmark(benchmark: str) -> str:
    if not benchmark or not benchmark.strip():
        return ""
    return _resolve_all([benchmark], "benchmark")[0]


class Unchanged:
    """The "leave it as it is" marker for fields where None means something (reset to default)."""


UNCHANGED = Unchanged()


def _clean_risk_free(rate: float | None) -> float | None:
    """A fraction between −5 % and 50 % a year, or None for the currency's default."""
    if rate is None:
        return None
    try:
        value = float(rate)
    except (TypeError, ValueError):
        raise ValidationError({"risk_free_rate": "Give the risk-free rate as a number."}) from None
    if not -0.05 <= value <= 0.5:
        raise ValidationError({"risk_free_rate": "A risk-free rate between −5 % and 50 % a year, please."})
    return value


def _unique_name(exc: IntegrityError) -> ValidationError:
    """The one integrity error users can cause (validation runs first): a duplicate name."""
    if "unique_owner_name" not in str(exc):
        raise exc
    return ValidationError({"name": "You already have one with this name."})


def portfolio_create(
    *,
    user: Any,
    name: str,
    holdings: Sequence[tuple[Any, Any]],
    normalise: bool = False,
    description: str = "",
    benchmark: str = "",
    shared_with_team: bool = False,
    risk_free_rate: float | None = None,
    request: HttpRequest | None = None,
) -> tuple[Portfolio, list[str]]:
    """Create a portfolio; returns it with notices (e.g. weights normalised, equal weights used)."""
    _require_owner_area(user)
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "Give the portfolio a name."})
    symbols, weights, notices = _clean_holdings(holdings, normalise)
    bench = _clean_benchmark(benchmark)
    try:
        with transaction.atomic():
            portfolio = Portfolio.objects.create(
                owner=user,
                name=name,
                description=description.strip(),
                benchmark=bench,
                shared_with_team=shared_with_team,
                risk_free_rate=_clean_risk_free(risk_free_rate),
            )
            Holding.objects.bulk_create(
                Holding(portfolio=portfolio, ticker=s, weight=w) for s, w in zip(symbols, weights, strict=True)
            )
            audit_record(
                actor=user, action="portfolio.create", subject=portfolio, after=portfolio.snapshot(), request=request
            )
    except IntegrityError as exc:
        raise _unique_name(exc) from exc
    return portfolio, notices


def _owned_portfolio(user: Any, portfolio_id: int) -> Portfolio:
    _require_owner_area(user)
    portfolio = Portfolio.objects.select_for_update().filter(pk=portfolio_id).first()
    if portfolio is None or (portfolio.owner_id != user.pk and not portfolio.shared_with_team):
        raise Http404("No such portfolio.")
    if portfolio.owner_id != user.pk:
        raise PermissionDenied("Only the owner may change this portfolio.")
    return portfolio


def portfolio_update(
    *,
    user: Any,
    portfolio_id: int,
    name: str | None = None,
    holdings: Sequence[tuple[Any, Any]] | None = None,
    normalise: bool = False,
    description: str | None = None,
    benchmark: str | None = None,
    shared_with_team: bool | None = None,
    risk_free_rate: float | Unchanged | None = UNCHANGED,
    request: HttpRequest | None = None,
) -> tuple[Portfolio, list[str]]:
    """Edit the fields given (None = unchanged; for ``risk_free_rate`` None means "use the currency's
    default" and UNCHANGED leaves it). Holdings, when given, replace the old ones."""
    notices: list[str] = []
    cleaned = _clean_holdings(holdings, normalise) if holdings is not None else None
    bench = _clean_benchmark(benchmark) if benchmark is not None else None
    try:
        with transaction.atomic():
            portfolio = _owned_portfolio(user, portfolio_id)
            before = portfolio.snapshot()
            if name is not None:
                if not name.strip():
                    raise ValidationError({"name": "Give the portfolio a name."})
                portfolio.name = name.strip()
            if description is not None:
                portfolio.description = description.strip()
            if bench is not None:
                portfolio.benchmark = bench
            if shared_with_team is not None:
                portfolio.shared_with_team = shared_with_team
            if not isinstance(risk_free_rate, Unchanged):
                portfolio.risk_free_rate = _clean_risk_free(risk_free_rate)
            portfolio.save()
            if cleaned is not None:
                symbols, weights, notices = cleaned
                portfolio.holdings.all().delete()
                Holding.objects.bulk_create(
                    Holding(portfolio=portfolio, ticker=s, weight=w) for s, w in zip(symbols, weights, strict=True)
                )
            after = Portfolio.objects.get(pk=portfolio.pk).snapshot()
            audit_record(
                actor=user, action="portfolio.update", subject=portfolio, before=before, after=after, request=request
            )
    except IntegrityError as exc:
        raise _unique_name(exc) from exc
    return portfolio, notices


def portfolio_delete(*, user: Any, portfolio_id: int, request: HttpRequest | None = None) -> None:
    with transaction.atomic():
        portfolio = _owned_portfolio(user, portfolio_id)
        before = portfolio.snapshot()
        audit_record(actor=user, action="portfolio.delete", subject=portfolio, before=before, request=request)
        portfolio.delete()


# --- watchlists -------------------------------------------------------------------------------
def recipient_allowed(email: str) -> bool:
    """Whether a brief may be e-mailed to ``email`` (``BRIEF_RECIPIENT_DOMAINS``; empty = anywhere)."""
    domains = settings.BRIEF_RECIPIENT_DOMAINS
    if not domains:
        return True
    host = email.rsplit("@", 1)[-1].strip().lower()
    return any(host == d or host.endswith("." + d) for d in domains)


def allowed_domains_text() -> str:
    return ", ".join(settings.BRIEF_RECIPIENT_DOMAINS)


def _clean_watchlist_fields(
    tickers_raw: Sequence[Any] | None,
    recipients: Sequence[str] | None,
    timezone_name: str | None,
    brief_weekdays: Sequence[int] | None,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if tickers_raw is not None:
        if not tickers_raw:
            raise ValidationError({"tickers": "Add at least one ticker."})
        if len(tickers_raw) > settings.WATCHLIST_MAX_TICKERS:
            limit = settings.WATCHLIST_MAX_TICKERS
            raise ValidationError(
                {"tickers": f"{len(tickers_raw)} tickers is more than the {limit} a watchlist may hold."}
            )
        symbols = []
        for raw in tickers_raw:
            try:
                symbols.append(tickers.normalise(raw))
            except ApplicationError as exc:
                raise ValidationError({"tickers": exc.message}) from exc
        out["tickers"] = _resolve_all(symbols, "tickers")
    if recipients is not None:
        cleaned = []
        for email in recipients:
            email = email.strip()
            try:
                validate_email(email)
            except ValidationError:
                raise ValidationError({"recipients": f"{email!r} is not an email address."}) from None
            if not recipient_allowed(email):
                raise ValidationError(
                    {"recipients": f"{email!r} is outside the domains briefs may go to: {allowed_domains_text()}."}
                )
            cleaned.append(email.lower())
        out["recipients"] = sorted(set(cleaned))
    if timezone_name is not None:
        try:
            zoneinfo.ZoneInfo(timezone_name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ValidationError({"timezone": f"{timezone_name!r} is not a time zone (e.g. Asia/Kolkata)."}) from None
        out["timezone"] = timezone_name
    if brief_weekdays is not None:
        days = sorted(set(brief_weekdays))
        if any(not isinstance(d, int) or d < 0 or d > 6 for d in days):
            raise ValidationError({"brief_weekdays": "Weekdays are 0 (Monday) to 6 (Sunday)."})
        out["brief_weekdays"] = days
    return out


def watchlist_create(
    *,
    user: Any,
    name: str,
    tickers: Sequence[Any],
    recipients: Sequence[str] = (),
    timezone: str = "Asia/Kolkata",
    shared_with_team: bool = False,
    brief_enabled: bool = False,
    brief_time: Any = None,
    brief_weekdays: Sequence[int] = (0, 1, 2, 3, 4),
    request: HttpRequest | None = None,
) -> Watchlist:
    _require_owner_area(user)
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "Give the watchlist a name."})
    fields = _clean_watchlist_fields(tickers, recipients, timezone, brief_weekdays)
    if brief_time is not None:
        fields["brief_time"] = brief_time
    try:
        with transaction.atomic():
            watchlist = Watchlist.objects.create(
                owner=user, name=name, shared_with_team=shared_with_team, brief_enabled=brief_enabled, **fields
            )
            audit_record(
                actor=user, action="watchlist.create", subject=watchlist, after=watchlist.snapshot(), request=request
            )
    except IntegrityError as exc:
        raise _unique_name(exc) from exc
    return watchlist


def _owned_watchlist(user: Any, watchlist_id: int) -> Watchlist:
    _require_owner_area(user)
    watchlist = Watchlist.objects.select_for_update().filter(pk=watchlist_id).first()
    if watchlist is None or (watchlist.owner_id != user.pk and not watchlist.shared_with_team):
        raise Http404("No such watchlist.")
    if watchlist.owner_id != user.pk:
        raise PermissionDenied("Only the owner may change this watchlist.")
    return watchlist


def watchlist_update(*, user: Any, watchlist_id: int, request: HttpRequest | None = None, **changes: Any) -> Watchlist:
    """Edit the given fields: name, tickers, recipients, timezone, shared_with_team, brief_enabled,
    brief_time, brief_weekdays."""
    allowed = {
        "name",
        "tickers",
        "recipients",
        "timezone",
        "shared_with_team",
        "brief_enabled",
        "brief_time",
        "brief_weekdays",
    }
    unknown = set(changes) - allowed
    if unknown:
        raise ValidationError({"detail": f"Unknown fields: {', '.join(sorted(unknown))}."})
    fields = _clean_watchlist_fields(
        changes.get("tickers"), changes.get("recipients"), changes.get("timezone"), changes.get("brief_weekdays")
    )
    for key in ("shared_with_team", "brief_enabled", "brief_time"):
        if changes.get(key) is not None:
            fields[key] = changes[key]
    if "name" in changes:
        if not (changes["name"] or "").strip():
            raise ValidationError({"name": "Give the watchlist a name."})
        fields["name"] = changes["name"].strip()
    try:
        with transaction.atomic():
            watchlist = _owned_watchlist(user, watchlist_id)
            before = watchlist.snapshot()
            for key, value in fields.items():
                setattr(watchlist, key, value)
            watchlist.save()
            audit_record(
                actor=user,
                action="watchlist.update",
                subject=watchlist,
                before=before,
                after=watchlist.snapshot(),
                request=request,
            )
    except IntegrityError as exc:
        raise _unique_name(exc) from exc
    return watchlist


def watchlist_delete(*, user: Any, watchlist_id: int, request: HttpRequest | None = None) -> None:
    with transaction.atomic():
        watchlist = _owned_watchlist(user, watchlist_id)
        audit_record(
            actor=user, action="watchlist.delete", subject=watchlist, before=watchlist.snapshot(), request=request
        )
        watchlist.delete()
