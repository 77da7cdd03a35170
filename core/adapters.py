from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.http import HttpRequest


class AccountAdapter(DefaultAccountAdapter):
    """Public signup is closed unless ``ACCOUNT_ALLOW_SIGNUP`` is set; admins create users."""

    def is_open_for_signup(self, request: HttpRequest, *args: Any, **kwargs: Any) -> bool:
        return bool(settings.ACCOUNT_ALLOW_SIGNUP)
