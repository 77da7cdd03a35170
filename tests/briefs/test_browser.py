"""In real Chromium with the real worker, on the demo watchlist ("Morning names" from
``load_market_snapshot``: four NIFTY names and the NIFTY 50 index) and the shipped news capture:
an analyst presses RUN and watches the run; the brief has a lead, quoted headlines and a stale-data
warning; a reviewer edits the rendered text around figure chips and approves; the analyst finds
what was delivered. On every page, at 390 px and 1440 px: no raw float, no metric key, no ``{{c``,
no horizontal overflow. Screenshots of each page at both widths land in test-artifacts/briefs/."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.conftest import ARTIFACTS, browser_login

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

WIDTHS = {"phone": (390, 844), "desktop": (1440, 900)}
RAW_FLOAT = re.compile(r"\d\.\d{5,}")
SNAKE_CASE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
METRIC_KEYS = (
    "last_close", "previous_close", "change_1d_pct", "return_30d_pct", "volatility_annualised_pct",
    "max_drawdown_pct", "high_52w", "low_52w",
)  # fmt: skip


def _overflow(page: Any) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def _too_wide(page: Any) -> list[str]:
    """The elements sticking out on the right (the message when a page overflows)."""
    return list(
        page.evaluate(
            "[...document.querySelectorAll('body *')]"
            ".filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)"
            ".map(e => e.tagName + '.' + e.className).slice(0, 8)"
        )
    )


def _look(page: Any, url: str, name: str, *, own_page: bool = True) -> str:
    """Load ``url`` at both widths, screenshot it, and check what a person sees there."""
    text = ""
    for label, (width, height) in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.goto(url)
        page.wait_for_load_state("load")
        (ARTIFACTS / "briefs").mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "briefs" / f"{name}-{label}.png"), full_page=True)
        text = page.inner_text("body")
        assert not RAW_FLOAT.search(text), (name, label, RAW_FLOAT.search(text))
        assert "{{c" not in text, (name, label)
        assert not [k for k in METRIC_KEYS if k in text], (name, label)
        if own_page:  # pages of the briefs app show no snake_case at all
            assert not SNAKE_CASE.search(text), (name, label, SNAKE_CASE.search(text))
        assert _overflow(page) <= 0, f"{name} overflows at {width}px: {_too_wide(page)}"
    return text


@pytest.fixture
def demo_watchlist(make_user: Any, transactional_db: Any) -> Any:
    """The demo's own setup: the snapshot loaded, the demo analyst's watchlist."""
    from django.core.management import call_command

    from portfolios.models import Watchlist

    make_user("analyst", email="analyst@alphadesk.local")
    call_command("load_market_snapshot")
    return Watchlist.objects.get(owner__email="analyst@alphadesk.local", name="Morning names")


def _edit_lead_and_approve(page: Any) -> None:
    """Type after the lead (the chips stay whole), then approve with the edit."""
    page.click("#edit-block summary")
    editor = page.locator('[data-testid="chip-editor"]')
    editor.wait_for()
    chips = editor.locator(".chip")
    assert chips.count() > 10 and chips.first.get_attribute("contenteditable") == "false"
    page.evaluate(
        """() => {
        const row = document.querySelector('[data-testid="chip-editor"] > div:nth-child(2)');
        const range = document.createRange(); range.selectNodeContents(row); range.collapse(false);
        const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range); row.focus();
        }"""
    )
    page.keyboard.type(" Otherwise a quiet session.")
    for label, (width, height) in WIDTHS.items():  # the editor at both widths, scrolled into view
        page.set_viewport_size({"width": width, "height": height})
        editor.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "briefs" / f"review-editing-{label}.png"))
        assert _overflow(page) <= 0, _too_wide(page)
    body = page.input_value("#edited-body")
    assert body.splitlines()[1].endswith(" Otherwise a quiet session.") and "⟦c" in body
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("text=Approve with edits")


def test_demo_watchlist_from_run_to_delivery(
    page: Any, live_server: Any, celery_worker: Any, smtp_inbox: Any, demo_watchlist: Any, reviewer: Any
) -> None:
    from briefs.models import Brief, BriefDelivery

    base = live_server.url
    browser_login(page, live_server, "analyst@alphadesk.local")
    page.goto(f"{base}/briefs/watchlists/{demo_watchlist.pk}/")
    page.click('[data-testid="run-button"]')
    page.locator('[data-testid="run-status"]').filter(has_text="Awaiting review").wait_for(timeout=90_000)
    run_url = page.url
    run_text = _look(page, run_url, "run")
    assert run_text.count("Metrics") >= 5 and "Verifier" in run_text and "All 40 figures recomputed" in run_text

    brief = Brief.objects.get(run__watchlist=demo_watchlist)
    brief_text = _look(page, f"{base}/briefs/{brief.pk}/", "brief")
    lead = page.inner_text('[data-testid="lead"]')
    assert lead.startswith("On 30 Sep 2025, the last session in the data,")
    assert 2 <= len(re.split(r"(?<=\.)\s+(?=[A-Z])", lead)) <= 4, lead
    dateline = page.inner_text('[data-testid="dateline"]')  # the brief's first line
    assert dateline.startswith("Data as of 30 Sep 2025 — stale:") and "trading days older than this brief" in dateline
    assert "Older data: NIFTY 50 (^NSEI) as of 8 Aug 2025." in brief_text  # the index's series ends earlier
    quoted = page.locator('[data-testid="brief-body"] li')
    assert quoted.count() >= 1 and quoted.first.inner_text().startswith("“")
    assert "24,363.30 pts" in brief_text and " INR" not in brief_text and "News: RSS capture" in brief_text
    assert brief.title.endswith("data as of 30 Sep 2025")

    page.context.clear_cookies()
    browser_login(page, live_server, reviewer.email)
    task_url = f"{base}/reviews/{_task_id(brief)}/"
    _look(page, task_url, "review", own_page=False)
    assert page.inner_text('[data-testid="verification"]') == "verified"
    assert "Stale data" in page.inner_text('[data-testid="stale-warning"]')
    figure = page.locator('[data-testid="brief-rendered"] a.claim.verified').first
    claim_id = figure.get_attribute("data-claim")
    figure.click()
    assert page.url.endswith(f"#claim-{claim_id}") and "verified" in page.locator(f"#claim-{claim_id}").inner_text()
    _edit_lead_and_approve(page)

    page.context.clear_cookies()
    browser_login(page, live_server, "analyst@alphadesk.local")
    page.goto(run_url)
    page.locator('[data-testid="run-status"]').filter(has_text="Delivered").wait_for(timeout=90_000)
    brief.refresh_from_db()
    assert "Otherwise a quiet session." in brief.body_text
    delivered = _look(page, f"{base}/briefs/{brief.pk}/delivered/", "delivered")
    _look(page, f"{base}/briefs/", "index")
    _look(page, f"{base}/briefs/watchlists/{demo_watchlist.pk}/", "watchlist")
    assert "Emailed" in delivered and "analyst@alphadesk.local" in delivered
    _look_at_the_email(page, BriefDelivery.objects.get(brief=brief).html)
    assert len(smtp_inbox.messages) == 1
    # The decided review, as its reviewer sees it: the decision and the diff of the edited text.
    page.context.clear_cookies()
    browser_login(page, live_server, reviewer.email)
    decided = _look(page, f"{base}/reviews/{_task_id(brief)}/", "review-decided", own_page=False)
    assert "Otherwise a quiet session." in decided and "⟦c" in decided  # the diff shows chips, never {{c


def _look_at_the_email(page: Any, html: str) -> None:
    """The archived email itself, as a mail client would show it, at both widths."""
    page.set_content(html)
    for label, (width, height) in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(ARTIFACTS / "briefs" / f"email-{label}.png"), full_page=True)
        assert _overflow(page) <= 0, _too_wide(page)
        assert not RAW_FLOAT.search(page.inner_text("body"))


def _task_id(brief: Any) -> int:
    from reviews.models import ReviewTask

    return int(ReviewTask.objects.filter(thread_id=brief.run.thread_id).order_by("-pk").values_list("pk", flat=True)[0])
