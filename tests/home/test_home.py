"""The home page per role: what each one sees first, with figures a person reads."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from portfolios.services import watchlist_create

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_analyst_home_shows_the_watchlist_grid_with_readable_figures(client: Any, analyst: Any) -> None:
    watchlist_create(user=analyst, name="India core", tickers=["TCS", "^NSEI"])
    client.force_login(analyst)
    html = client.get(reverse("dashboard")).content.decode()
    row = _text(html.split('data-symbol="TCS.NS"')[1].split("</tr>")[0])
    # By hand from data/market/bars/TCS.NS.csv: last 2888.40 (2025-09-30), previous 2896.10,
    # 1M baseline = close of 2025-08-29 (last bar on or before 2025-08-30) 3084.70.
    assert "₹2,888.40" in row
    assert "−0.27%" in row  # 2888.4 / 2896.1 − 1 = −0.266 %
    assert "−6.36%" in row  # 2888.4 / 3084.7 − 1 = −6.364 %
    assert "<svg" in html.split('data-symbol="TCS.NS"')[1].split("</tr>")[0]  # sparkline drawn
    index_row = _text(html.split('data-symbol="^NSEI"')[1].split("</tr>")[0])
    assert "24,363.30 pts" in index_row  # an index is quoted in points, not rupees
    assert "as of 30 Sep 2025" in _text(html)
    # Each section links to its page.
    for url in [reverse("briefs:index"), reverse("research-chat:index"), reverse("research:index")]:
        assert url in html
    # An analyst sees no reviewer or admin section.
    assert 'id="home-reviews"' not in html and 'id="home-admin"' not in html


def test_reviewer_home_lists_pending_tasks_by_due_time(client: Any, reviewer: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from reviews.models import ReviewTask

    now = timezone.now()
    for title, due in [("later", now + timedelta(hours=30)), ("overdue", now - timedelta(hours=2))]:
        ReviewTask.objects.create(
            kind=ReviewTask.Kind.BRIEF_APPROVAL, title=title, graph_name="g", thread_id=title, due_at=due
        )
    client.force_login(reviewer)
    html = client.get(reverse("dashboard")).content.decode()
    section = html.split('id="home-reviews"')[1].split("</section>")[0]
    assert section.index("overdue</a>") < section.index("later</a>")  # earliest due first
    text = _text(section)
    assert "2 pending" in text and "1 overdue" in text
    assert 'id="home-watchlists"' not in html  # reviewers own no watchlists


def test_admin_home_has_counts_and_a_health_panel(client: Any, admin_user: Any) -> None:
    client.force_login(admin_user)
    html = client.get(reverse("dashboard")).content.decode()
    assert 'id="home-admin"' in html and reverse("home:health") in html
    panel = client.get(reverse("home:health")).content.decode()
    assert "Database" in panel and "Redis" in panel and "PostgreSQL" in panel


def test_health_panel_is_for_admins_only(client: Any, analyst: Any) -> None:
    client.force_login(analyst)
    assert client.get(reverse("home:health")).status_code == 403


def test_settings_sit_in_the_user_menu(client: Any, analyst: Any) -> None:
    client.force_login(analyst)
    html = client.get(reverse("dashboard")).content.decode()
    menu = html.split('data-testid="usermenu"')[1].split("</details>")[0]
    assert reverse("settings") in menu and "Log out" in menu


def test_favicon_is_served(client: Any) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
