"""Expected TOTP codes, computed independently of allauth (RFC 6238 with HMAC-SHA1, from the RFC's
own definition): the tests compare what the portal accepts with these, so a bug shared by the
product and its test cannot hide. Checked against the RFC's published test vector."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time


def totp(secret_b32: str, at: float | None = None, *, digits: int = 6, period: int = 30) -> str:
    counter = int((time.time() if at is None else at) // period)
    key = base64.b32decode(secret_b32.upper() + "=" * (-len(secret_b32) % 8))
    digest = hmac.new(key, counter.to_bytes(8, "big"), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    number = int.from_bytes(digest[offset : offset + 4], "big") & 0x7FFFFFFF
    return str(number % 10**digits).zfill(digits)


def seconds_left_in_period(period: int = 30) -> float:
    return period - time.time() % period


def fresh_period(minimum: float = 8.0) -> None:
    """Wait, if need be, until the current period has ``minimum`` seconds left, so a code computed
    now is still the current one when the server checks it."""
    left = seconds_left_in_period()
    if left < minimum:
        time.sleep(left + 0.2)
