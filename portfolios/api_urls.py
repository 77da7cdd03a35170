from django.urls import path

from portfolios import apis

urlpatterns = [
    path("market/quote/<str:symbol>", apis.QuoteGetApi.as_view(), name="api-market-quote"),
    path("market/history/<str:symbol>", apis.PriceHistoryGetApi.as_view(), name="api-market-history"),
    path("market/fundamentals/<str:symbol>", apis.FundamentalsGetApi.as_view(), name="api-market-fundamentals"),
    path("market/metrics/<str:symbol>", apis.TickerMetricsGetApi.as_view(), name="api-market-metrics"),
    path("market/analyze", apis.PortfolioAnalyzeApi.as_view(), name="api-market-analyze"),
    path("portfolios", apis.PortfolioListCreateApi.as_view(), name="api-portfolios"),
    path("portfolios/<int:portfolio_id>", apis.PortfolioDetailApi.as_view(), name="api-portfolio"),
    path(
        "portfolios/<int:portfolio_id>/analysis", apis.PortfolioAnalysisGetApi.as_view(), name="api-portfolio-analysis"
    ),
    path("watchlists", apis.WatchlistListCreateApi.as_view(), name="api-watchlists"),
    path("watchlists/<int:watchlist_id>", apis.WatchlistDetailApi.as_view(), name="api-watchlist"),
]
