"""DRF endpoints for market data, watchlists and portfolios (thin: tools, services and selectors
do the work). Market errors keep the tool's structured body with a fitting status."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from pydantic import BaseModel
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.permissions import area_api_permissions
from core.tools import call_tool
from portfolios import list_reads, selectors, services
from portfolios.schemas import Fundamentals, PortfolioAnalysis, PriceHistory, Quote, TickerMetrics
from portfolios.serializers import (
    AnalyzeSerializer,
    PortfolioSavedSerializer,
    PortfolioSerializer,
    PortfolioWriteSerializer,
    WatchlistSerializer,
    WatchlistWriteSerializer,
)

ERROR_STATUS = {
    "invalid_input": 400,
    "forbidden": 403,
    "unknown_ticker": 404,
    "no_data": 404,
    "provider_unavailable": 503,
}
_ERRORS = {
    400: OpenApiResponse(description="invalid_input"),
    404: OpenApiResponse(description="unknown_ticker / no_data"),
    503: OpenApiResponse(description="provider_unavailable"),
}


# The ticker syntax of portfolios.tickers, case-insensitive, as the schema's pattern.
SYMBOL = OpenApiParameter(
    "symbol",
    str,
    OpenApiParameter.PATH,
    pattern=r"^\s*(\^[A-Za-z0-9][A-Za-z0-9.\-]{0,14}|[A-Za-z0-9][A-Za-z0-9&\-]{0,19}(\.([Nn][Ss]|[Bb][Oo]))?)\s*$",
    description="NSE RELIANCE.NS, BSE 500325.BO, US AAPL, index ^NSEI; a bare symbol tries the default exchange",
)


def tool_response(name: str, args: dict[str, Any], request: Request) -> Response:
    outcome = call_tool(name, args, user=request.user)
    if outcome.error is not None:
        return Response(outcome.as_dict(), status=ERROR_STATUS.get(outcome.error.error, 500))
    return Response(outcome.as_dict())


def _query(request: Request, *names: str) -> dict[str, Any]:
    return {n: request.query_params[n] for n in names if request.query_params.get(n)}


def oas(model: type[BaseModel]) -> dict[str, Any]:
    """A pydantic model's JSON schema in OpenAPI 3.0 form (refs inlined; ``anyOf [X, null]`` →
    ``nullable``), so the tool output models document the API without a second definition."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})

    def convert(node: Any) -> Any:
        if isinstance(node, list):
            return [convert(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return convert(defs[node["$ref"].rsplit("/", 1)[-1]])
        if "anyOf" in node:
            options = [o for o in node["anyOf"] if o.get("type") != "null"]
            if len(options) < len(node["anyOf"]):
                rest = {k: v for k, v in node.items() if k != "anyOf"}
                inner = convert(options[0]) if len(options) == 1 else {"anyOf": convert(options)}
                return {**inner, **convert(rest), "nullable": True}
        return {k: convert(v) for k, v in node.items()}

    result: dict[str, Any] = convert(schema)
    return result


class QuoteGetApi(APIView):
    @extend_schema(parameters=[SYMBOL], responses={200: oas(Quote), **_ERRORS}, tags=["market"])
    def get(self, request: Request, symbol: str) -> Response:
        return tool_response("get_stock_quote", {"ticker": symbol}, request)


class PriceHistoryGetApi(APIView):
    @extend_schema(
        parameters=[SYMBOL, OpenApiParameter("start", OpenApiTypes.DATE), OpenApiParameter("end", OpenApiTypes.DATE)],
        responses={200: oas(PriceHistory), **_ERRORS},
        tags=["market"],
    )
    def get(self, request: Request, symbol: str) -> Response:
        return tool_response("get_price_history", {"ticker": symbol, **_query(request, "start", "end")}, request)


class FundamentalsGetApi(APIView):
    @extend_schema(parameters=[SYMBOL], responses={200: oas(Fundamentals), **_ERRORS}, tags=["market"])
    def get(self, request: Request, symbol: str) -> Response:
        return tool_response("get_fundamentals", {"ticker": symbol}, request)


class TickerMetricsGetApi(APIView):
    @extend_schema(parameters=[SYMBOL], responses={200: oas(TickerMetrics), **_ERRORS}, tags=["market"])
    def get(self, request: Request, symbol: str) -> Response:
        return tool_response("compute_metrics", {"ticker": symbol}, request)


_permissions = area_api_permissions("portfolios")


class PortfolioAnalyzeApi(APIView):
    """Analyse tickers with weights without saving a portfolio (the Portfolios area's roles only)."""

    permission_classes = _permissions

    @extend_schema(request=AnalyzeSerializer, responses={200: oas(PortfolioAnalysis), **_ERRORS}, tags=["portfolios"])
    def post(self, request: Request) -> Response:
        args = dict(request.data) if isinstance(request.data, dict) else {}
        args.pop("portfolio_id", None)
        return tool_response("analyze_portfolio", args, request)


class PortfolioListCreateApi(APIView):
    permission_classes = _permissions

    @extend_schema(responses=PortfolioSerializer(many=True), tags=["portfolios"])
    def get(self, request: Request) -> Response:
        return Response(PortfolioSerializer(list_reads.portfolio_rows(user=request.user), many=True).data)

    @extend_schema(request=PortfolioWriteSerializer, responses={201: PortfolioSavedSerializer}, tags=["portfolios"])
    def post(self, request: Request) -> Response:
        payload = PortfolioWriteSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        data = dict(payload.validated_data)
        data["holdings"] = [(h["ticker"], h.get("weight")) for h in data["holdings"]]
        portfolio, notices = services.portfolio_create(user=request.user, request=request._request, **data)
        body = PortfolioSerializer(portfolio).data | {"notices": notices}
        return Response(body, status=status.HTTP_201_CREATED)


class PortfolioDetailApi(APIView):
    permission_classes = _permissions

    @extend_schema(responses=PortfolioSerializer, tags=["portfolios"])
    def get(self, request: Request, portfolio_id: int) -> Response:
        return Response(PortfolioSerializer(selectors.portfolio_get(user=request.user, portfolio_id=portfolio_id)).data)

    @extend_schema(
        request=PortfolioWriteSerializer(partial=True), responses=PortfolioSavedSerializer, tags=["portfolios"]
    )
    def patch(self, request: Request, portfolio_id: int) -> Response:
        payload = PortfolioWriteSerializer(data=request.data, partial=True)
        payload.is_valid(raise_exception=True)
        data = dict(payload.validated_data)
        if "holdings" in data:  # partial: a holding may lack its ticker; the service names it (400)
            data["holdings"] = [(h.get("ticker"), h.get("weight")) for h in data["holdings"]]
        portfolio, notices = services.portfolio_update(
            user=request.user, portfolio_id=portfolio_id, request=request._request, **data
        )
        portfolio = selectors.portfolio_get(user=request.user, portfolio_id=portfolio.pk)
        return Response(PortfolioSerializer(portfolio).data | {"notices": notices})

    @extend_schema(responses={204: None}, tags=["portfolios"])
    def delete(self, request: Request, portfolio_id: int) -> Response:
        services.portfolio_delete(user=request.user, portfolio_id=portfolio_id, request=request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PortfolioAnalysisGetApi(APIView):
    permission_classes = _permissions

    @extend_schema(
        parameters=[OpenApiParameter("include_series", bool), OpenApiParameter("start", str)],
        responses={200: oas(PortfolioAnalysis), **_ERRORS},
        tags=["portfolios"],
    )
    def get(self, request: Request, portfolio_id: int) -> Response:
        selectors.portfolio_get(user=request.user, portfolio_id=portfolio_id)  # 404 before any work
        args: dict[str, Any] = {"portfolio_id": portfolio_id, **_query(request, "start")}
        args["include_series"] = request.query_params.get("include_series", "").lower() in {"1", "true", "yes"}
        return tool_response("analyze_portfolio", args, request)


class WatchlistListCreateApi(APIView):
    permission_classes = _permissions

    @extend_schema(responses=WatchlistSerializer(many=True), tags=["watchlists"])
    def get(self, request: Request) -> Response:
        return Response(WatchlistSerializer(list_reads.watchlist_rows(user=request.user), many=True).data)

    @extend_schema(request=WatchlistWriteSerializer, responses={201: WatchlistSerializer}, tags=["watchlists"])
    def post(self, request: Request) -> Response:
        payload = WatchlistWriteSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        watchlist = services.watchlist_create(user=request.user, request=request._request, **payload.validated_data)
        return Response(WatchlistSerializer(watchlist).data, status=status.HTTP_201_CREATED)


class WatchlistDetailApi(APIView):
    permission_classes = _permissions

    @extend_schema(responses=WatchlistSerializer, tags=["watchlists"])
    def get(self, request: Request, watchlist_id: int) -> Response:
        return Response(WatchlistSerializer(selectors.watchlist_get(user=request.user, watchlist_id=watchlist_id)).data)

    @extend_schema(request=WatchlistWriteSerializer(partial=True), responses=WatchlistSerializer, tags=["watchlists"])
    def patch(self, request: Request, watchlist_id: int) -> Response:
        payload = WatchlistWriteSerializer(data=request.data, partial=True)
        payload.is_valid(raise_exception=True)
        watchlist = services.watchlist_update(
            user=request.user, watchlist_id=watchlist_id, request=request._request, **payload.validated_data
        )
        return Response(WatchlistSerializer(watchlist).data)

    @extend_schema(responses={204: None}, tags=["watchlists"])
    def delete(self, request: Request, watchlist_id: int) -> Response:
        services.watchlist_delete(user=request.user, watchlist_id=watchlist_id, request=request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)
