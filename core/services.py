"""Writes for accounts: API tokens and demo users. Every change that matters is audited."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from core.audit import audit_record
from core.exceptions import ApplicationError
from core.models import API_SCOPES, ApiToken
from core.roles import ADMIN, ROLES, has_role
from core.selectors import active_token_by_prefix

TOKEN_PREFIX = "adk"  # noqa: S105  (a public marker, not a secret)
_VALID_SCOPES = {key for key, _ in API_SCOPES}
# Writing last_used_at on every request would turn each API read into a write.
_LAST_USED_RESOLUTION = timedelta(minutes=1)


def _hash_secret(secret: str) -> str:
    # Tokens carry 256 bits of randomness, so a fast hash is enough (no brute force to slow).
    return hashlib.sha256(secret.encode()).hexdigest()


def _token_expiry(days: int | None, parent: ApiToken | None) -> Any:
    """When a new token expires: ``days`` (default API_TOKEN_DEFAULT_DAYS, at most
    API_TOKEN_MAX_DAYS) from now, and never after the token that creates it."""
    maximum = settings.API_TOKEN_MAX_DAYS
    days = settings.API_TOKEN_DEFAULT_DAYS if days is None else days
    if not 1 <= days <= maximum:
        raise ValidationError({"expires_in_days": f"Choose between 1 and {maximum} days."})
    expires_at = timezone.now() + timedelta(days=days)
    if parent is not None and parent.expires_at is not None:
        expires_at = min(expires_at, parent.expires_at)
    return expires_at


def _check_token_rights(user: Any, scopes: list[str], parent: ApiToken | None) -> None:
    """A token may only create tokens for its own user, with scopes it holds itself; and a user
    holds at most API_TOKEN_MAX_ACTIVE_PER_USER active tokens (the MCP rate limit is per token)."""
    if parent is not None:
        if parent.user_id != user.pk:
            raise PermissionDenied("A token can only create tokens for its own user.")
        wider = sorted(set(scopes) - set(parent.scopes))
        if wider:
            raise PermissionDenied(
                f"This token cannot create a token with the scope(s) {', '.join(wider)}: a token may only "
                f"pass on scopes it has ({', '.join(parent.scopes)}). Sign in to create a wider one."
            )
    limit = settings.API_TOKEN_MAX_ACTIVE_PER_USER
    if ApiToken.objects.active().filter(user=user).count() >= limit:
        raise ApplicationError(
            "conflict", f"You already have {limit} active tokens, the most allowed; revoke one you no longer use."
        )


def api_token_create(
    *,
    user: Any,
    name: str,
    scopes: list[str] | None = None,
    request: HttpRequest | None = None,
    parent: ApiToken | None = None,
    expires_in_days: int | None = None,
) -> tuple[ApiToken, str]:
    """Create a token for ``user``; returns the model and the full token, shown only once.

    ``parent`` is the token the request was authenticated with (None in a signed-in session): the
    new token gets no scope it lacks, expires no later, and is revoked with it."""
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "Give the token a name so you can recognise it later."})
    if len(name) > 80:
        raise ValidationError({"name": "Keep the name under 80 characters."})
    scopes = sorted(set(scopes or ["api"]))
    unknown = set(scopes) - _VALID_SCOPES
    if unknown:
        raise ValidationError({"scopes": f"Unknown scope(s): {', '.join(sorted(unknown))}. Use api and/or mcp."})
    expires_at = _token_expiry(expires_in_days, parent)
    prefix = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    with transaction.atomic():
        # Serialise this user's creations so two concurrent requests cannot both pass the count.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        _check_token_rights(user, scopes, parent)
        token = ApiToken.objects.create(
            user=user,
            name=name,
            prefix=prefix,
            secret_hash=_hash_secret(secret),
            scopes=scopes,
            expires_at=expires_at,
            parent=parent,
        )
        audit_record(
            actor=user,
            action="api_token.create",
            subject=token,
            after={
                "name": name,
                "scopes": scopes,
                "expires_at": expires_at.isoformat(),
                "created_by_token": parent.pk if parent else None,
            },
            request=request,
        )
    return token, f"{TOKEN_PREFIX}_{prefix}_{secret}"


def _descendants(token: ApiToken) -> list[ApiToken]:
    """Every token created (directly or not) by ``token``, breadth first."""
    found: list[ApiToken] = []
    frontier = [token.pk]
    while frontier:
        children = list(ApiToken.objects.select_for_update().filter(parent_id__in=frontier))
        found.extend(children)
        frontier = [c.pk for c in children]
    return found


def api_token_revoke(*, user: Any, token_id: int, request: HttpRequest | None = None) -> ApiToken:
    """Revoke a token and every token it created. Owners revoke their own; admins anyone's.
    Idempotent; each token actually revoked gets its own audit event."""
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().filter(pk=token_id).first()
        if token is None or (token.user_id != user.pk and not has_role(user, ADMIN)):
            raise PermissionDenied("No such token.")
        now = timezone.now()
        for target in [token, *_descendants(token)]:
            if target.revoked_at is not None:
                continue
            target.revoked_at = now
            target.save(update_fields=["revoked_at"])
            after = None if target.pk == token.pk else {"cascade_from": token.pk}
            audit_record(actor=user, action="api_token.revoke", subject=target, after=after, request=request)
    return token


def api_token_authenticate(raw: str) -> ApiToken | None:
    """The active token matching ``raw`` (``adk_<prefix>_<secret>``), compared in constant time."""
    parts = (raw or "").strip().split("_", 2)
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX:
        return None
    _, prefix, secret = parts
    token = active_token_by_prefix(prefix)
    if token is None or not token.user.is_active:
        return None
    if not hmac.compare_digest(token.secret_hash, _hash_secret(secret)):
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > _LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def user_ensure(*, email: str, roles: list[str], password: str | None, staff: bool = False) -> tuple[Any, bool]:
    """Create (or find) a user with ``roles``; returns ``(user, created)``. Used by the demo."""
    User = get_user_model()
    user = User.objects.filter(email__iexact=email).first()
    created = user is None
    if user is None:
        user = User.objects.create_user(username=email, email=email, password=password)
    if staff and not (user.is_staff and user.is_superuser):
        # The admin role runs the Django admin, which needs model permissions: superuser.
        user.is_staff = user.is_superuser = True
        user.save(update_fields=["is_staff", "is_superuser"])
    unknown = set(roles) - set(ROLES)
    if unknown:
        raise ValidationError({"roles": f"Unknown role(s): {', '.join(sorted(unknown))}."})
    # get_or_create: the groups come from a migration, but a flushed test database may lack them.
    user.groups.add(*(Group.objects.get_or_create(name=role)[0] for role in roles))
    return user, created
