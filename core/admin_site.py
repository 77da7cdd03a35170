"""The admin site, open to the ``admin`` role only (kept apart from admin.py: app loading
imports this module before models are ready)."""

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest


class AlphaDeskAdminSite(admin.AdminSite):
    site_header = "AlphaDesk administration"
    site_title = "AlphaDesk admin"

    def has_permission(self, request: HttpRequest) -> bool:
        from core.roles import can_access

        # Staff status alone is not enough: the admin is for the `admin` role only.
        return bool(request.user.is_active and request.user.is_staff and can_access(request.user, "admin"))


class ReadOnlyModelAdmin(admin.ModelAdmin):
    """For records that change only through their services (audited): viewable, never edited here."""

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class AlphaDeskAdminConfig(AdminConfig):
    default_site = "core.admin_site.AlphaDeskAdminSite"
