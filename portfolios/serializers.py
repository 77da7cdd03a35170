from __future__ import annotations

from typing import Any

from rest_framework import serializers

from portfolios.models import Holding, Portfolio, Watchlist


class HoldingSerializer(serializers.Serializer):
    ticker = serializers.CharField(max_length=40)
    weight = serializers.FloatField(required=False, allow_null=True)

    def to_representation(self, instance: Any) -> dict[str, Any]:
        if isinstance(instance, Holding):
            return {"ticker": instance.ticker, "weight": instance.weight}
        return dict(instance)


class PortfolioSerializer(serializers.ModelSerializer):
    holdings = HoldingSerializer(many=True, read_only=True)
    owner = serializers.EmailField(source="owner.email", read_only=True)

    class Meta:
        model = Portfolio
        fields = [
            "id",
            "name",
            "description",
            "benchmark",
            "shared_with_team",
            "risk_free_rate",
            "owner",
            "holdings",
            "created_at",
            "updated_at",
        ]


class PortfolioWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    description = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
    benchmark = serializers.CharField(max_length=24, required=False, allow_blank=True, default="")
    shared_with_team = serializers.BooleanField(required=False, default=False)
    normalise = serializers.BooleanField(
        required=False, default=False, help_text="Scale weights that do not add up to 1 (the response says so)"
    )
    holdings = serializers.ListField(child=HoldingSerializer(), allow_empty=False, max_length=1000)
    risk_free_rate = serializers.FloatField(
        required=False,
        allow_null=True,
        help_text="A year, as a fraction like the weights (0.065 = 6.5 %); null = the currency's default",
    )


class PortfolioSavedSerializer(PortfolioSerializer):
    notices = serializers.ListField(child=serializers.CharField(), read_only=True)

    class Meta(PortfolioSerializer.Meta):
        fields = [*PortfolioSerializer.Meta.fields, "notices"]


class WatchlistSerializer(serializers.ModelSerializer):
    owner = serializers.EmailField(source="owner.email", read_only=True)

    class Meta:
        model = Watchlist
        fields = [
            "id", "name", "tickers", "recipients", "timezone", "shared_with_team",
            "brief_enabled", "brief_time", "brief_weekdays", "owner", "created_at", "updated_at",
        ]  # fmt: skip


class WatchlistWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    tickers = serializers.ListField(child=serializers.CharField(max_length=40), allow_empty=False, max_length=1000)
    recipients = serializers.ListField(
        child=serializers.CharField(max_length=254), required=False, default=list, max_length=200
    )
    timezone = serializers.CharField(max_length=64, required=False, default="Asia/Kolkata")
    shared_with_team = serializers.BooleanField(required=False, default=False)
    brief_enabled = serializers.BooleanField(required=False, default=False)
    brief_time = serializers.TimeField(required=False, allow_null=True, default=None)
    brief_weekdays = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=6), required=False, default=[0, 1, 2, 3, 4], max_length=7
    )


class AnalyzeSerializer(serializers.Serializer):
    """Request body of ``POST /api/v1/market/analyze`` (validated again by the tool's input model)."""

    tickers = serializers.ListField(child=serializers.CharField(max_length=40), max_length=1000)
    weights = serializers.ListField(child=serializers.FloatField(allow_null=True), required=False, max_length=1000)
    normalise = serializers.BooleanField(required=False, default=True)
    benchmark = serializers.CharField(required=False, allow_blank=True)
    start = serializers.DateField(required=False)
    include_series = serializers.BooleanField(required=False, default=False)
