"""HTML pages for market data, watchlists and portfolios (thin: services and selectors do the work)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from core.exceptions import ApplicationError
from core.htmx import HtmxHttpRequest
from core.roles import area_required
from portfolios import market, selectors, services
from portfolios.forms import PortfolioForm, WatchlistForm, apply_errors

RANGES = {"1M": 31, "3M": 92, "6M": 183, "1Y": 366, "3Y": 3 * 366, "5Y": 5 * 366, "MAX": None}


@area_required("portfolios")
@require_http_methods(["GET"])
def index(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "portfolios/index.html",
        {
            "portfolios": selectors.portfolio_list(user=request.user),
            "watchlists": selectors.watchlist_list(user=request.user),
        },
    )


@area_required("portfolios")
@require_http_methods(["GET"])
def ticker_lookup(request: HttpRequest) -> HttpResponse:
    raw = request.GET.get("q", "")
    try:
        instrument = market.instrument_resolve(raw)
    except ApplicationError as exc:
        messages.error(request, exc.tool_error.message)
        return redirect("portfolios:index")
    return redirect("portfolios:ticker", symbol=instrument.symbol)


@area_required("portfolios")
@require_http_methods(["GET"])
def ticker_detail(request: HtmxHttpRequest, symbol: str) -> HttpResponse:
    range_key = request.GET.get("range", "1Y").upper()
    if range_key not in RANGES:
        range_key = "1Y"
    context: dict[str, Any] = {"symbol": symbol, "ranges": list(RANGES), "range": range_key}
    try:
        m = selectors.metrics_get(user=request.user, ticker=symbol)
    except ApplicationError as exc:
        status = {"invalid_input": 400, "unknown_ticker": 404, "no_data": 404}.get(exc.tool_error.error, 503)
        context["error"] = exc.tool_error
        return render(request, "portfolios/ticker.html", context, status=status)
    if m.symbol != symbol:
        return redirect(reverse("portfolios:ticker", args=[m.symbol]))
    series = market.series_get(m.symbol)
    days = RANGES[range_key]
    start = (series.as_of - dt.timedelta(days=days)).toordinal() if days else 0
    lo = int(series.ordinals.searchsorted(start))
    context.update(
        metrics=m,
        period_rows=[(k, v, m.period_baseline_dates.get(k)) for k, v in m.period_returns_pct.items()],
        chart={
            "t": [int(dt.datetime(d.year, d.month, d.day, tzinfo=dt.UTC).timestamp()) for d in series.dates[lo:]],
            "close": series.closes[lo:].round(4).tolist(),
            "label": m.symbol,
        },
    )
    try:
        context["fundamentals"] = market.fundamentals_get(m.symbol)
    except ApplicationError as exc:
        context["fundamentals_error"] = exc.tool_error.message
    template = "portfolios/ticker.html#price_chart" if request.htmx else "portfolios/ticker.html"
    return render(request, template, context)


def _holdings_table(analysis: Any) -> list[dict[str, Any]]:
    return [a.model_dump() for a in analysis.assets]


@area_required("portfolios")
@require_http_methods(["GET"])
def portfolio_detail(request: HttpRequest, portfolio_id: int) -> HttpResponse:
    portfolio = selectors.portfolio_get(user=request.user, portfolio_id=portfolio_id)
    context: dict[str, Any] = {"portfolio": portfolio, "can_edit": portfolio.owner_id == request.user.pk}
    try:
        analysis = selectors.portfolio_analysis(user=request.user, portfolio_id=portfolio.pk, include_series=True)
    except ApplicationError as exc:
        context["error"] = exc.tool_error
        return render(request, "portfolios/portfolio_detail.html", context)
    assert analysis.series is not None

    def stamps(dates: list[dt.date]) -> list[int]:
        return [int(dt.datetime(d.year, d.month, d.day, tzinfo=dt.UTC).timestamp()) for d in dates]

    bench_map = dict(zip(analysis.series.benchmark_dates, analysis.series.benchmark_growth, strict=True))
    context.update(
        analysis=analysis,
        corr_rows=list(zip(analysis.correlation_symbols, analysis.correlation, strict=True)),
        chart={
            "t": stamps(analysis.series.dates),
            "growth": [round(v, 6) for v in analysis.series.growth],
            "drawdown": [round(v * 100, 4) for v in analysis.series.drawdown],
            # The benchmark on the portfolio's dates (null where it did not trade), rebased to 1.
            "benchmark": [round(bench_map[d], 6) if d in bench_map else None for d in analysis.series.dates],
            "benchmark_label": analysis.benchmark.symbol if analysis.benchmark else "",
        },
        allocation=[(a.symbol, a.weight) for a in analysis.assets],
    )
    return render(request, "portfolios/portfolio_detail.html", context)


@area_required("portfolios")
@require_http_methods(["GET", "POST"])
def portfolio_create(request: HttpRequest) -> HttpResponse:
    form = PortfolioForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            portfolio, notices = services.portfolio_create(user=request.user, request=request, **data)
        except ValidationError as exc:
            apply_errors(form, exc)
        else:
            for notice in notices:
                messages.info(request, notice)
            messages.success(request, f"Portfolio “{portfolio.name}” created.")
            return redirect("portfolios:portfolio", portfolio_id=portfolio.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "portfolios/portfolio_form.html", {"form": form, "title": "New portfolio"}, status=status)


@area_required("portfolios")
@require_http_methods(["GET", "POST"])
def portfolio_edit(request: HttpRequest, portfolio_id: int) -> HttpResponse:
    portfolio = selectors.portfolio_get(user=request.user, portfolio_id=portfolio_id)
    form = PortfolioForm(request.POST or None, initial=PortfolioForm.initial_for(portfolio))
    if request.method == "POST" and form.is_valid():
        try:
            _, notices = services.portfolio_update(
                user=request.user, portfolio_id=portfolio.pk, request=request, **form.cleaned_data
            )
        except ValidationError as exc:
            apply_errors(form, exc)
        else:
            for notice in notices:
                messages.info(request, notice)
            messages.success(request, "Portfolio saved.")
            return redirect("portfolios:portfolio", portfolio_id=portfolio.pk)
    status = 400 if request.method == "POST" else 200
    context = {"form": form, "title": f"Edit {portfolio.name}", "portfolio": portfolio}
    return render(request, "portfolios/portfolio_form.html", context, status=status)


@area_required("portfolios")
@require_http_methods(["POST"])
def portfolio_delete(request: HttpRequest, portfolio_id: int) -> HttpResponse:
    services.portfolio_delete(user=request.user, portfolio_id=portfolio_id, request=request)
    messages.success(request, "Portfolio deleted.")
    return redirect("portfolios:index")


@area_required("portfolios")
@require_http_methods(["GET", "POST"])
def watchlist_create(request: HttpRequest) -> HttpResponse:
    form = WatchlistForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.watchlist_create(user=request.user, request=request, **form.cleaned_data)
        except ValidationError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, "Watchlist created.")
            return redirect("portfolios:index")
    status = 400 if request.method == "POST" else 200
    return render(request, "portfolios/watchlist_form.html", {"form": form, "title": "New watchlist"}, status=status)


@area_required("portfolios")
@require_http_methods(["GET", "POST"])
def watchlist_edit(request: HttpRequest, watchlist_id: int) -> HttpResponse:
    watchlist = selectors.watchlist_get(user=request.user, watchlist_id=watchlist_id)
    form = WatchlistForm(request.POST or None, initial=WatchlistForm.initial_for(watchlist))
    if request.method == "POST" and form.is_valid():
        try:
            services.watchlist_update(
                user=request.user, watchlist_id=watchlist.pk, request=request, **form.cleaned_data
            )
        except ValidationError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, "Watchlist saved.")
            return redirect("portfolios:index")
    status = 400 if request.method == "POST" else 200
    context = {"form": form, "title": f"Edit {watchlist.name}", "watchlist": watchlist}
    return render(request, "portfolios/watchlist_form.html", context, status=status)


@area_required("portfolios")
@require_http_methods(["POST"])
def watchlist_delete(request: HttpRequest, watchlist_id: int) -> HttpResponse:
    services.watchlist_delete(user=request.user, watchlist_id=watchlist_id, request=request)
    messages.success(request, "Watchlist deleted.")
    return redirect("portfolios:index")
