"""The security tests reuse the hardening fixtures (a uvicorn process, committed tokens)."""

from tests.hardening.conftest import api_tokens, uvicorn_factory  # noqa: F401
