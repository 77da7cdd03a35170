from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from core.exceptions import ApplicationError
from core.forms import ApiTokenForm
from core.mfa_policy import mfa_role_requires
from core.selectors import api_token_list, totp_active
from core.services import api_token_create, api_token_revoke


@login_required
@require_http_methods(["GET", "POST"])
def account_settings(request: HttpRequest) -> HttpResponse:
    form = ApiTokenForm(request.POST or None)
    new_token = None
    if request.method == "POST" and form.is_valid():
        try:
            _, new_token = api_token_create(
                user=request.user, name=form.cleaned_data["name"], scopes=form.cleaned_data["scopes"], request=request
            )
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
        except ApplicationError as exc:  # e.g. the active-token limit
            form.add_error(None, exc.message)
        else:
            messages.success(request, "Token created. Copy it now: it will not be shown again.")
            form = ApiTokenForm()
    context = {
        "form": form,
        "tokens": api_token_list(user=request.user),
        "new_token": new_token,
        "token_days": settings.API_TOKEN_DEFAULT_DAYS,
        "totp_active": totp_active(user=request.user),
        "mfa_required": mfa_role_requires(request.user),
    }
    status = 400 if request.method == "POST" and form.errors else 200
    return render(request, "core/settings.html", context, status=status)


@login_required
@require_http_methods(["POST"])
def api_token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token = api_token_revoke(user=request.user, token_id=token_id, request=request)
    except PermissionDenied:
        messages.error(request, "That token does not exist or is not yours.")
    else:
        messages.success(request, f"Token “{token.name}” revoked. Clients using it now get 401.")
    return redirect("settings")


def error_403(request: HttpRequest, exception: Any = None) -> HttpResponse:
    reason = str(exception) if exception and str(exception) else "You do not have access to this page."
    return render(request, "403.html", {"reason": reason}, status=403)


def error_404(request: HttpRequest, exception: Any = None) -> HttpResponse:
    return render(request, "404.html", status=404)


def error_500(request: HttpRequest) -> HttpResponse:
    # No context processors that touch the database: the error may be the database itself.
    from django.template import loader

    return HttpResponse(loader.get_template("500.html").render(), status=500)
