"""Fixtures for the hardening tests: committed users with bearer tokens, a uvicorn process."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.conftest import ARTIFACTS, test_database_url
from tests.hardening.live import UvicornProcess


@pytest.fixture
def api_tokens(make_user: Any) -> Callable[..., list[str]]:
    """``api_tokens(n)`` → n bearer tokens (api scope), one per new analyst."""
    from core.services import api_token_create

    def make(n: int, *scopes: str) -> list[str]:
        users = [make_user("analyst") for _ in range(n)]
        return [api_token_create(user=u, name="load", scopes=list(scopes or ["api"]))[1] for u in users]

    return make


@pytest.fixture
def uvicorn_factory(transactional_db: Any) -> Iterator[Callable[..., UvicornProcess]]:
    """Start ``uvicorn config.asgi:application`` processes against the test database."""
    from django.conf import settings

    started: list[UvicornProcess] = []

    def start(application_name: str, **env: str) -> UvicornProcess:
        ARTIFACTS.mkdir(exist_ok=True)
        url = f"{test_database_url()}&application_name={application_name}"
        server = UvicornProcess(url, settings.REDIS_URL, ARTIFACTS / f"uvicorn-{application_name}.log", **env)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
