"""The one way views ask "is this an HTMX request": ``request.htmx`` from django-htmx's middleware.

Annotate a view's request as :class:`HtmxHttpRequest` so the type checker knows the attribute;
``request.htmx.target`` is there when the swapped region matters.
"""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
