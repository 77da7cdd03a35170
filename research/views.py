from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from core.roles import area_required


@area_required("research")
@require_http_methods(["GET"])
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "research/index.html")
