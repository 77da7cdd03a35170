"""Deliver an approved brief: archive the exact content and e-mail it to the watchlist's recipients
at most once, however often the deliver node runs (a resume retried after its worker died runs it
again).

Claim, then send. The delivery row (one per brief) is committed before the message goes out, so a
later attempt finds it and sends nothing. The SMTP connection is opened *before* the claim: a worker
that dies while connecting has claimed nothing, and the next attempt sends. Only a worker that dies
during the SMTP conversation itself leaves it unknown whether the message left; the next attempt
ends that delivery as failed and says so, rather than risk a second e-mail."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db import transaction
from django.utils import timezone

from briefs.claims import BriefDraft, Claim
from briefs.models import Brief, BriefDelivery, BriefRun
from briefs.renderings import email_bodies
from core.audit import audit_record
from portfolios.services import allowed_domains_text, recipient_allowed

logger = logging.getLogger(__name__)
INTERRUPTED = (
    "Interrupted while sending: its worker stopped during the SMTP exchange, so the e-mail may or may not "
    "have reached the recipients. It is not sent again, so that no one receives it twice."
)


def brief_deliver(*, run_id: int, brief_id: int) -> BriefDelivery:
    """Archive and e-mail the approved brief once, and end the run (delivered, archived or failed)."""
    brief = Brief.objects.select_related("watchlist").get(pk=brief_id, run_id=run_id)
    existing = BriefDelivery.objects.filter(brief=brief).first()
    if existing is not None:
        return _settle(existing, run_id)
    # Recipients come from the watchlist at delivery time, never from anything in the brief.
    listed = sorted({r for r in brief.watchlist.recipients if r})
    # Checked again here: the allow-list may have narrowed since the watchlist was saved.
    recipients = [r for r in listed if recipient_allowed(r)]
    refused = [r for r in listed if r not in recipients]
    if refused:
        logger.warning("brief %s: not e-mailed to %s (outside BRIEF_RECIPIENT_DOMAINS)", brief.pk, refused)
    emailing = bool(settings.BRIEF_EMAIL_ENABLED and recipients)
    error = "" if emailing else ("No recipients on the watchlist." if not recipients else "SMTP is not configured.")
    if refused and not recipients:
        error = f"No recipient within the allowed domains ({allowed_domains_text()}): {', '.join(refused)}."
    connection: Any = None
    if emailing:
        connection = get_connection(fail_silently=False)
        try:
            connection.open()
        except OSError as exc:  # smtplib errors are OSErrors: archive, say so, end the run
            emailing, error, connection = False, f"Email failed: {exc}"[:500], None
            logger.warning("brief %s email failed: %s", brief.pk, exc)
    try:
        delivery, claimed = _claim(brief, recipients, emailing=emailing, error=error)
        if not claimed:
            return _settle(delivery, run_id)
        if emailing:
            _send(delivery, connection)
    finally:
        if connection is not None:
            _close(connection)
    _end_run(delivery, run_id, only_if_active=False)
    return delivery


def _claim(brief: Brief, recipients: list[str], *, emailing: bool, error: str) -> tuple[BriefDelivery, bool]:
    """Commit the delivery row (``emailed`` and no ``sent_at`` while sending); False when another
    attempt claimed it first."""
    with transaction.atomic():
        Brief.objects.select_for_update(of=("self",)).get(pk=brief.pk)  # one claimer at a time
        existing = BriefDelivery.objects.filter(brief=brief).first()
        if existing is not None:
            return existing, False
        text, html = _email_bodies(brief)
        subject = f"[AlphaDesk] {brief.title}"
        delivery = BriefDelivery.objects.create(
            brief=brief, recipients=recipients, subject=subject[:250], text=text, html=html, emailed=emailing,
            error=error,
        )  # fmt: skip
    return delivery, True


def _send(delivery: BriefDelivery, connection: Any) -> None:
    message = EmailMultiAlternatives(delivery.subject, delivery.text, None, delivery.recipients, connection=connection)
    message.attach_alternative(delivery.html, "text/html")
    try:
        message.send(fail_silently=False)
        delivery.sent_at = timezone.now()
    except OSError as exc:
        delivery.emailed, delivery.error = False, f"Email failed: {exc}"[:500]
        logger.warning("brief %s email failed: %s", delivery.brief_id, exc)
    delivery.save(update_fields=["sent_at", "emailed", "error"])


def _close(connection: Any) -> None:
    try:
        connection.close()
    except OSError as exc:  # the message is sent or not by now; a failed QUIT changes nothing
        logger.info("closing the SMTP connection failed: %s", exc)


def _settle(delivery: BriefDelivery, run_id: int) -> BriefDelivery:
    """A delivery an earlier attempt claimed: never send; end the run if that attempt could not."""
    if delivery.emailed and delivery.sent_at is None:
        # Claimed for sending, no outcome recorded: the attempt stopped mid-send (or, rarely, is
        # still sending; it then records its outcome and the run's end after this).
        BriefDelivery.objects.filter(pk=delivery.pk, emailed=True, sent_at__isnull=True).update(
            emailed=False, error=INTERRUPTED
        )
        delivery.refresh_from_db()
    _end_run(delivery, run_id, only_if_active=True)
    return delivery


def _end_run(delivery: BriefDelivery, run_id: int, *, only_if_active: bool) -> None:
    emailed = delivery.sent_at is not None
    if emailed:
        status, note = BriefRun.Status.DELIVERED, f"Emailed to {len(delivery.recipients)} recipient(s)."
    else:
        # A failed send is not retried automatically: never risk sending a brief twice.
        failed = delivery.error.startswith(("Email failed", "Interrupted"))
        status = BriefRun.Status.FAILED if failed else BriefRun.Status.ARCHIVED
        note = f"Archived, not emailed: {delivery.error}"
    with transaction.atomic():
        Brief.objects.filter(pk=delivery.brief_id).update(status=Brief.Status.APPROVED)
        runs = BriefRun.objects.filter(pk=run_id)
        if only_if_active:
            runs = runs.filter(status__in=BriefRun.ACTIVE)
        if runs.update(status=status, finished_at=timezone.now(), note=note[:500]):
            action = "brief.delivered" if emailed else "brief.archived"
            after = {"recipients": delivery.recipients, "emailed": emailed}
            audit_record(actor=None, action=action, subject=delivery.brief, after=after)


def _email_bodies(brief: Brief) -> tuple[str, str]:
    draft = BriefDraft.model_validate(brief.draft)
    claims = [Claim.model_validate(c) for c in brief.claims]
    return email_bodies(draft, claims, brief.verification, title=brief.title, approved_by=brief.decided_by)
