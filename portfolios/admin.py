from django.contrib import admin

from portfolios.models import FundamentalsSnapshot, Holding, Instrument, Portfolio, Watchlist


@admin.register(Instrument)
class InstrumentAdmin(admin.ModelAdmin):
    list_display = ("symbol", "name", "exchange", "currency", "sector", "source", "last_bar_date", "bars_checked_at")
    search_fields = ("symbol", "name")


@admin.register(FundamentalsSnapshot)
class FundamentalsSnapshotAdmin(admin.ModelAdmin):
    list_display = ("instrument", "source", "as_of", "fetched_at")


class HoldingInline(admin.TabularInline):
    model = Holding
    extra = 0


@admin.register(Portfolio)
class PortfolioAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "benchmark", "shared_with_team", "updated_at")
    inlines = [HoldingInline]


@admin.register(Watchlist)
class WatchlistAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "shared_with_team", "brief_enabled", "brief_time", "timezone")
