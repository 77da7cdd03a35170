"""The API's portfolio and watchlist lists, read with one fixed SQL statement each
(portfolios/list_reads.py), against the selectors' querysets — the ORM's own reading of who may
see what: the same rows, in the same order, the same fields, the owner's e-mail and holdings."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from core.roles import user_roles
from core.services import api_token_create
from portfolios.list_reads import portfolio_rows, watchlist_rows
from portfolios.models import Holding, Portfolio, Watchlist
from portfolios.selectors import portfolio_list, watchlist_list
from portfolios.serializers import PortfolioSerializer, WatchlistSerializer


def _fields(instance: Any) -> dict[str, Any]:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


@pytest.fixture
def team(make_user: Any) -> dict[str, Any]:
    """Two analysts (each with private and shared rows, names that sort by case and by id), a
    reviewer (no Portfolios area) and an admin."""
    ana, ben = make_user("analyst", email="ana@example.test"), make_user("analyst", email="ben@example.test")
    for owner, name, shared in [
        (ana, "zeta", False), (ana, "Alpha", True), (ana, "alpha", False),
        (ben, "Alpha", False), (ben, "mid", True), (ben, "beta", True),
    ]:  # fmt: skip
        portfolio = Portfolio.objects.create(owner=owner, name=name, shared_with_team=shared, risk_free_rate=0.055)
        Holding.objects.create(portfolio=portfolio, ticker="SBIN.NS", weight=0.6)
        Holding.objects.create(portfolio=portfolio, ticker="INFY.NS", weight=0.4)
        Watchlist.objects.create(owner=owner, name=name, tickers=["TCS.NS", name.upper()], shared_with_team=shared)
    Watchlist.objects.create(owner=ben, name="Mid", tickers=["RELIANCE.NS"], recipients=["x@example.test"])
    return {"ana": ana, "ben": ben, "reviewer": make_user("reviewer"), "admin": make_user(admin=True)}


@pytest.mark.django_db
def test_the_same_rows_fields_and_order_as_the_selectors(team: dict[str, Any]) -> None:
    for who, user in team.items():
        for fast, orm in ((portfolio_rows, portfolio_list), (watchlist_rows, watchlist_list)):
            got: list[Any] = fast(user=user)
            expected: list[Any] = list(orm(user=user))
            assert [_fields(r) for r in got] == [_fields(r) for r in expected], (who, fast.__name__)
            assert [r.owner.email for r in got] == [r.owner.email for r in expected], who
    names = [(p.owner.email, p.name) for p in portfolio_rows(user=team["ana"])]
    # Ana's own three and Ben's two shared ones; Ben's private "Alpha" is not hers to see.
    assert sorted(names) == sorted([
        ("ana@example.test", "zeta"), ("ana@example.test", "Alpha"), ("ana@example.test", "alpha"),
        ("ben@example.test", "mid"), ("ben@example.test", "beta"),
    ])  # fmt: skip
    assert portfolio_rows(user=team["reviewer"]) == [] and watchlist_rows(user=team["reviewer"]) == []


@pytest.mark.django_db
def test_what_the_api_sends_is_what_the_serializers_make_of_the_selectors(
    team: dict[str, Any], django_assert_num_queries: Any
) -> None:
    ana = team["ana"]
    user_roles(ana)  # as the API's token lookup does, the roles come with the user
    with django_assert_num_queries(2):  # the rows (owners joined), then every holding at once
        rows = PortfolioSerializer(portfolio_rows(user=ana), many=True).data
    assert rows == PortfolioSerializer(portfolio_list(user=ana), many=True).data
    assert [h["ticker"] for h in rows[0]["holdings"]] == ["SBIN.NS", "INFY.NS"]  # heaviest first
    with django_assert_num_queries(1):
        lists = WatchlistSerializer(watchlist_rows(user=ana), many=True).data
    assert lists == WatchlistSerializer(watchlist_list(user=ana), many=True).data
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token_create(user=ana, name='lists')[1]}")
    assert api.get("/api/v1/portfolios").json() == PortfolioSerializer(portfolio_list(user=ana), many=True).data
    assert api.get("/api/v1/watchlists").json() == WatchlistSerializer(watchlist_list(user=ana), many=True).data
