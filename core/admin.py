from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db import transaction
from django.http import HttpRequest

from core.audit import audit_record
from core.models import ApiToken
from core.roles import ROLES

User = get_user_model()


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "scopes", "created_at", "expires_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "user__email", "prefix")
    readonly_fields = ("prefix", "secret_hash", "created_at", "last_used_at")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # tokens are created from Settings so the secret is shown once to its owner


def _access(user: Any) -> dict[str, Any]:
    """What decides a user's access: active, staff, superuser and roles (never the password)."""
    return {
        "is_active": user.is_active,
        "is_staff": user.is_staff,
        "is_superuser": user.is_superuser,
        "roles": sorted(user.groups.filter(name__in=ROLES).values_list("name", flat=True)),
        "groups": sorted(user.groups.values_list("name", flat=True)),
    }


class AuditedUserAdmin(UserAdmin):
    """Django's user admin, with every creation, access change and deletion in the audit log:
    ``admin.user_create``, ``admin.user_change`` (roles granted or taken, staff/superuser),
    ``admin.user_deactivate`` / ``admin.user_reactivate`` and ``admin.user_delete``."""

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        # Roles are saved after the row (save_related), so the "after" side is taken there.
        request._alphadesk_user_before = _access(User.objects.get(pk=obj.pk)) if change else None  # type: ignore[attr-defined]
        super().save_model(request, obj, form, change)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        user = form.instance
        before = getattr(request, "_alphadesk_user_before", None)
        after = _access(user)
        if before is None:
            audit_record(actor=request.user, action="admin.user_create", subject=user, after=after, request=request)
            return
        if before == after:
            return
        action = "admin.user_change"
        if before["is_active"] and not after["is_active"]:
            action = "admin.user_deactivate"
        elif not before["is_active"] and after["is_active"]:
            action = "admin.user_reactivate"
        audit_record(actor=request.user, action=action, subject=user, before=before, after=after, request=request)

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        with transaction.atomic():
            audit_record(
                actor=request.user, action="admin.user_delete", subject=obj, before=_access(obj), request=request
            )
            super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        with transaction.atomic():
            for user in queryset:
                audit_record(
                    actor=request.user, action="admin.user_delete", subject=user, before=_access(user), request=request
                )
            super().delete_queryset(request, queryset)


if admin.site.is_registered(User):
    admin.site.unregister(User)
admin.site.register(User, AuditedUserAdmin)
