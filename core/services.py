"""Writes for accounts: API tokens and demo users. Every change that matters is audited."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from core.audit import audit_record
from core.models import API_SCOPES, ApiToken
from core.roles import ADMIN, ROLES, has_role

TOKEN_PREFIX = "adk"  # noqa: S105  (a public marker, not a secret)
_VALID_SCOPES = {key for key, _ in API_SCOPES}
# Writing last_used_at on every request would turn each API read into a write.
_LAST_USED_RESOLUTION = timedelta(minutes=1)


def _hash_secret(secret: str) -> str:
    # Tokens carry 256 bits of randomness, so a fast hash is enough (no brute force to slow).
    return hashlib.sha256(secret.encode()).hexdigest()


def api_token_create(
    *, user: Any, name: str, scopes: list[str] | None = None, request: HttpRequest | None = None
) -> tuple[ApiToken, str]:
    """Create a token for ``user``; returns the model and the full token, shown only once."""
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "Give the token a name so you can recognise it later."})
    if len(name) > 80:
        raise ValidationError({"name": "Keep the name under 80 characters."})
    scopes = sorted(set(scopes or ["api"]))
    unknown = set(scopes) - _VALID_SCOPES
    if unknown:
        raise ValidationError({"scopes": f"Unknown scope(s): {', '.join(sorted(unknown))}. Use api and/or mcp."})
    prefix = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    with transaction.atomic():
        token = ApiToken.objects.create(
            user=user, name=name, prefix=prefix, secret_hash=_hash_secret(secret), scopes=scopes
        )
        audit_record(
            actor=user,
            action="api_token.create",
            subject=token,
            after={"name": name, "scopes": scopes},
            request=request,
        )
    return token, f"{TOKEN_PREFIX}_{prefix}_{secret}"


def api_token_revoke(*, user: Any, token_id: int, request: HttpRequest | None = None) -> ApiToken:
    """Revoke a token. Owners revoke their own; admins may revoke anyone's. Idempotent."""
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().filter(pk=token_id).first()
        if token is None or (token.user_id != user.pk and not has_role(user, ADMIN)):
            raise PermissionDenied("No such token.")
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
            audit_record(actor=user, action="api_token.revoke", subject=token, request=request)
    return token


def api_token_authenticate(raw: str) -> ApiToken | None:
    """The active token matching ``raw`` (``adk_<prefix>_<secret>``), compared in constant time."""
    parts = (raw or "").strip().split("_", 2)
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX:
        return None
    _, prefix, secret = parts
    token = ApiToken.objects.active().select_related("user").filter(prefix=prefix).first()
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
