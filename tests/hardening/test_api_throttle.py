"""Finding 5: no throttling on REST (400 × GET /api/v1/me in 4 s → all 200).

Now DRF throttles per token and per user (settings ``API_THROTTLE_RATES``), counted in Redis."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from core.services import api_token_create


@pytest.fixture(autouse=True)
def _fresh_counters() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


def _bearer(raw: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return api


@pytest.mark.django_db
def test_400_calls_in_a_burst_meet_the_default_token_limit(analyst: Any, settings: Any) -> None:
    assert settings.API_THROTTLE_RATES["token"] == "300/min"  # the shipped default
    api = _bearer(api_token_create(user=analyst, name="burst")[1])
    responses = [api.get("/api/v1/me") for _ in range(400)]
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {200: 300, 429: 100}
    refused = next(r for r in responses if r.status_code == 429)
    assert int(refused["Retry-After"]) > 0 and "throttled" in refused.json()["detail"].lower()


@pytest.mark.django_db
def test_limits_are_per_token_and_per_user(analyst: Any, make_user: Any, settings: Any) -> None:
    settings.API_THROTTLE_RATES = {"token": "5/min", "user": "8/min", "anon": "60/min"}
    first = _bearer(api_token_create(user=analyst, name="a")[1])
    second = _bearer(api_token_create(user=analyst, name="b")[1])
    other = _bearer(api_token_create(user=make_user("analyst"), name="c")[1])
    assert [first.get("/api/v1/me").status_code for _ in range(6)] == [200] * 5 + [429]
    # The owner's second token has its own 5, but the user's 8 are shared, and the user's
    # counter saw all 6 calls above (the token refused the sixth): 2 more, then 429.
    assert [second.get("/api/v1/me").status_code for _ in range(4)] == [200] * 2 + [429] * 2
    assert other.get("/api/v1/me").status_code == 200  # another user is not affected
    session = APIClient()
    session.force_login(analyst)
    assert session.get("/api/v1/me").status_code == 429  # the user limit covers the session too


@pytest.mark.django_db
def test_health_checks_are_not_throttled(settings: Any) -> None:
    settings.API_THROTTLE_RATES = {"token": "1/min", "user": "1/min", "anon": "1/min"}
    api = APIClient()
    assert [api.get("/api/v1/health/live").status_code for _ in range(5)] == [200] * 5


def _call(user: Any, token: Any = None) -> Any:
    from types import SimpleNamespace

    return SimpleNamespace(user=user, auth=token, META={"REMOTE_ADDR": "10.0.0.9"})


@pytest.mark.django_db
def test_concurrent_calls_are_counted_atomically(analyst: Any, settings: Any) -> None:
    """Eight threads × 25 calls against a limit of 60: exactly 60 pass. (DRF's stock throttle
    reads the count and writes it back in two round trips, so concurrent calls overcount.)"""
    from concurrent.futures import ThreadPoolExecutor

    from core.throttles import ApiRateThrottle

    settings.API_THROTTLE_RATES = {"user": "60/min", "token": "1000/min", "anon": "60/min"}
    request = _call(analyst)
    with ThreadPoolExecutor(8) as pool:
        allowed = list(pool.map(lambda _: ApiRateThrottle().allow_request(request, None), range(200)))
    assert allowed.count(True) == 60


@pytest.mark.django_db
def test_retry_after_is_the_time_until_the_oldest_call_leaves_the_window(analyst: Any, settings: Any) -> None:
    import time

    from core.throttles import ApiRateThrottle

    settings.API_THROTTLE_RATES = {"user": "3/min", "token": "1000/min", "anon": "60/min"}
    request = _call(analyst)
    assert all(ApiRateThrottle().allow_request(request, None) for _ in range(3))
    time.sleep(2)
    refused = ApiRateThrottle()
    assert refused.allow_request(request, None) is False
    assert refused.wait() in (58.0, 59.0)  # 60 s window, the oldest call 2 s old (rounded up)


@pytest.mark.django_db
def test_a_call_the_token_refuses_still_counts_for_its_user(analyst: Any, settings: Any) -> None:
    from core.throttles import ApiRateThrottle

    settings.API_THROTTLE_RATES = {"user": "4/min", "token": "2/min", "anon": "60/min"}
    token = api_token_create(user=analyst, name="t")[0]
    assert [ApiRateThrottle().allow_request(_call(analyst, token), None) for _ in range(3)] == [True, True, False]
    # The user's limit saw all three: one more passes without the token, then none.
    assert [ApiRateThrottle().allow_request(_call(analyst), None) for _ in range(2)] == [True, False]


def test_an_unreachable_counter_store_serves_the_call(settings: Any, caplog: Any) -> None:
    from unittest import mock

    import redis

    from core import throttles

    anonymous = _call(mock.Mock(is_authenticated=False))
    with mock.patch.object(throttles, "_script", return_value=mock.Mock(side_effect=redis.ConnectionError("down"))):
        assert throttles.ApiRateThrottle().allow_request(anonymous, None) is True
    assert "rate limiter unavailable" in caplog.text
