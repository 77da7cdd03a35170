"""Failed password sign-ins: a progressive delay per account instead of a lock, and one e-mail to
the account holder per window when failures pile up.

Why not a lock: anyone who knows an address could keep a locked account locked (issue 49). Here
the first ``LOGIN_DELAY_FREE_FAILURES`` failures cost nothing; each one after that makes the next
attempt wait ``LOGIN_DELAY_BASE_SECONDS`` doubled per failure, never more than
``LOGIN_DELAY_MAX_SECONDS`` — enough to make guessing slow, never a long wait for the holder.

The account's failures are counted in two buckets: attempts from an address the account has
signed in from (within ``LOGIN_KNOWN_ADDRESS_DAYS``) and attempts from anywhere else. A stranger's
guesses therefore delay only other strangers; the holder at their usual desk is not slowed by
them. Every failure also counts against the per-address limit (allauth's ``login_failed``
``/ip`` rate, on the address core.middleware.ClientIpMiddleware trusts), which brakes one
source guessing across many accounts.

State lives in the shared cache (Redis), keyed by a hash of the address so keys name nobody.
Two attempts arriving in the same instant may both be checked before either failure is
recorded; each still counts against the per-address limit, so the gap is a handful of guesses."""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

from django.conf import settings
from django.core.cache import cache
from django.core.mail import send_mail
from django.template.loader import render_to_string
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)
T = TypeVar("T")


def _fails_open(default: Any) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """With the cache (Redis) down or stalled, signing in must still work — the same choice as the
    REST rate limiter's: the delay is a brake on guessing, not the lock on the door (passwords are)."""

    def wrap(function: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(function)
        def guarded(*args: Any, **kwargs: Any) -> T:
            try:
                return function(*args, **kwargs)
            except RedisError:
                logger.warning("sign-in delay skipped: the cache is unavailable", exc_info=True)
                return cast(T, default)

        return guarded

    return wrap


KNOWN = "known"
OTHER = "other"
_KNOWN_ADDRESSES_KEPT = 10


def _account(login: str) -> str:
    return hashlib.sha256(login.strip().lower().encode()).hexdigest()[:32]


def _key(kind: str, login: str, bucket: str = "") -> str:
    return f"login:{kind}:{_account(login)}:{bucket}"


def bucket_for(login: str, ip: str) -> str:
    """``known`` when the account has signed in from ``ip`` lately, else ``other``."""
    return KNOWN if ip in (cache.get(_key("addresses", login)) or []) else OTHER


def delay_for(failures: int) -> int:
    """Seconds the next attempt must wait after ``failures`` failures in a row."""
    extra = failures - settings.LOGIN_DELAY_FREE_FAILURES
    if extra <= 0:
        return 0
    # Capped before the power so a long run of failures cannot overflow.
    steps = min(extra - 1, 32)
    return int(min(settings.LOGIN_DELAY_MAX_SECONDS, settings.LOGIN_DELAY_BASE_SECONDS * 2**steps))


@_fails_open(0)
def wait_seconds(login: str, ip: str) -> int:
    """Seconds before this account may be tried again from ``ip`` (0: now)."""
    until = cache.get(_key("until", login, bucket_for(login, ip)))
    if not until:
        return 0
    return max(0, math.ceil(float(until) - time.time()))


@_fails_open(0)
def record_failure(request: Any, login: str, ip: str) -> int:
    """Count a wrong password for ``login`` from ``ip``; returns the delay it sets (seconds)."""
    if not login:
        return 0
    bucket = bucket_for(login, ip)
    window = settings.LOGIN_FAILURE_WINDOW_SECONDS
    failures_key = _key("failures", login, bucket)
    cache.add(failures_key, 0, timeout=window)
    try:
        failures = cache.incr(failures_key)
    except ValueError:  # expired between add and incr
        cache.set(failures_key, 1, timeout=window)
        failures = 1
    cache.touch(failures_key, window)  # failures count for a window after the last one
    delay = delay_for(failures)
    if delay:
        cache.set(_key("until", login, bucket), time.time() + delay, timeout=delay)
    _notify_once_per_window(request, login, ip)
    return delay


@_fails_open(None)
def record_success(login: str, ip: str) -> None:
    """A completed sign-in (password and second factor): this address becomes known to the account
    and the known addresses' failures start over. Strangers' failures are kept: otherwise each of
    the holder's sign-ins would hand a guesser a fresh set of free attempts."""
    if not login:
        return
    addresses_key = _key("addresses", login)
    addresses = [a for a in (cache.get(addresses_key) or []) if a != ip]
    addresses = [ip, *addresses][:_KNOWN_ADDRESSES_KEPT]
    cache.set(addresses_key, addresses, timeout=settings.LOGIN_KNOWN_ADDRESS_DAYS * 86400)
    forget_failures(login, buckets=(KNOWN,))


@_fails_open(None)
def forget_failures(login: str, buckets: tuple[str, ...] = (KNOWN, OTHER)) -> None:
    """Start over (a completed password reset proves the holder; allauth wipes its own count then)."""
    cache.delete_many([_key(kind, login, bucket) for kind in ("failures", "until") for bucket in buckets])


def _notify_once_per_window(request: Any, login: str, ip: str) -> None:
    """E-mail the holder once per ``LOGIN_FAILURE_NOTIFY_WINDOW_SECONDS`` when the account's
    failures (both buckets) reach ``LOGIN_FAILURE_NOTIFY_AFTER``; unknown addresses get nothing."""
    from django.contrib.auth import get_user_model

    failures = sum(int(cache.get(_key("failures", login, b)) or 0) for b in (KNOWN, OTHER))
    if failures < settings.LOGIN_FAILURE_NOTIFY_AFTER:
        return
    user = get_user_model().objects.filter(email__iexact=login, is_active=True).first()
    if user is None:
        return
    # cache.add is atomic across processes: one mail per window however many attempts race here.
    if not cache.add(_key("notified", login), 1, timeout=settings.LOGIN_FAILURE_NOTIFY_WINDOW_SECONDS):
        return
    context = {
        "user": user,
        "failures": failures,
        "ip": ip,
        "window_minutes": settings.LOGIN_FAILURE_WINDOW_SECONDS // 60,
        "notify_minutes": settings.LOGIN_FAILURE_NOTIFY_WINDOW_SECONDS // 60,
    }
    try:
        send_mail(
            "AlphaDesk: failed sign-in attempts on your account",
            render_to_string("account/email/login_failures.txt", context, request=request),
            None,
            [user.email],
        )
    except Exception:  # the mail server is down: the sign-in page must still answer
        logger.warning("could not send the failed sign-in notice", exc_info=True)
        return
    from core.audit import audit_record

    audit_record(
        actor=None, action="auth.login_failures_notified", subject=user, after={"failures": failures}, request=request
    )
