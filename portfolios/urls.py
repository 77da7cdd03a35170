from django.urls import path

from portfolios import views

app_name = "portfolios"

urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.portfolio_create, name="portfolio_create"),
    path("<int:portfolio_id>/", views.portfolio_detail, name="portfolio"),
    path("<int:portfolio_id>/edit/", views.portfolio_edit, name="portfolio_edit"),
    path("<int:portfolio_id>/delete/", views.portfolio_delete, name="portfolio_delete"),
    path("watchlists/new/", views.watchlist_create, name="watchlist_create"),
    path("watchlists/<int:watchlist_id>/edit/", views.watchlist_edit, name="watchlist_edit"),
    path("watchlists/<int:watchlist_id>/delete/", views.watchlist_delete, name="watchlist_delete"),
    path("tickers/", views.ticker_lookup, name="ticker_lookup"),
    path("tickers/<str:symbol>/", views.ticker_detail, name="ticker"),
]
