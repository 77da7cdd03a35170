"""Each role's access to each navigation area, through the pages and the admin."""

from typing import Any

import pytest
from django.urls import reverse

from tests.conftest import TEST_PASSWORD

AREAS = ("research", "briefs", "portfolios", "reviews", "evaluation")
# The matrix the product promises (core/roles.py implements it; this pins it from outside).
EXPECTED = {
    "analyst": {"research", "briefs", "portfolios", "evaluation"},
    "reviewer": {"research", "briefs", "reviews", "evaluation"},
    "admin": set(AREAS),
    "": set(),
}


@pytest.mark.parametrize("role", ["analyst", "reviewer", "admin", ""])
def test_each_role_opens_exactly_its_areas(client: Any, make_user: Any, role: str) -> None:
    user = make_user(*([role] if role else []), admin=role == "admin")
    client.force_login(user)
    dashboard = client.get(reverse("dashboard")).content.decode()
    for area in AREAS:
        response = client.get(reverse(f"{area}:index"))
        allowed = area in EXPECTED[role]
        assert response.status_code == (200 if allowed else 403), (role, area)
        # the nav shows exactly the areas the role opens
        assert (f'data-nav="{area}"' in dashboard) is allowed, (role, area)
    if not allowed:
        assert "does not give access" in response.content.decode()


@pytest.mark.django_db
def test_anonymous_is_sent_to_login_everywhere(client: Any) -> None:
    for url in ["/", "/settings/", *(reverse(f"{a}:index") for a in AREAS)]:
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")


def test_admin_site_is_for_the_admin_role_only(client: Any, make_user: Any) -> None:
    staff_analyst = make_user("analyst")
    staff_analyst.is_staff = True  # staff flag alone must not open the admin
    staff_analyst.save()
    client.force_login(staff_analyst)
    assert client.get("/admin/").status_code == 302
    client.force_login(make_user("admin", admin=True))
    assert client.get("/admin/").status_code == 200


def test_admin_nav_link_only_for_admins(client: Any, make_user: Any) -> None:
    client.force_login(make_user("analyst"))
    assert 'data-nav="admin"' not in client.get("/").content.decode()
    client.force_login(make_user("admin", admin=True))
    assert 'data-nav="admin"' in client.get("/").content.decode()


def test_error_pages_use_the_layout(client: Any, analyst: Any) -> None:
    client.force_login(analyst)
    missing = client.get("/no-such-page/")
    assert missing.status_code == 404
    assert "404 · Not found" in missing.content.decode()
    forbidden = client.get(reverse("reviews:index"))
    assert forbidden.status_code == 403
    assert "403 · Not allowed" in forbidden.content.decode()


def test_login_password_is_checked(client: Any, analyst: Any) -> None:
    assert client.login(username=analyst.email, password=TEST_PASSWORD)
    assert not client.login(username=analyst.email, password="wrong")
