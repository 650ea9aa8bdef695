"""E-mail notifications. Each mail is a plain-text template whose first line is the subject.

Mails are sent after the transaction that caused them commits, so nobody is
told about a decision that was rolled back; a mail that cannot be sent (bad
header, mail server down) is logged and never undoes or hides the change the
person just made. Templates are plain text rendered with autoescaping off
(``{% autoescape off %}``), so "OCR'd" stays "OCR'd"; every link is built from
the one configured site URL (``settings.SITE_URL``, env ``REGISTRY_SITE_URL``),
passed to templates as ``site_url``. The backend is the console by default
(settings: DJANGO_EMAIL_BACKEND, EMAIL_HOST, ...).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Q
from django.template.loader import render_to_string

from .rules import EDITOR_GROUP

logger = logging.getLogger(__name__)


def editors_emails(*, besides=()) -> list[str]:
    """The GFD editors' addresses; ``besides``: accounts told of the same step in another role (the one who
    asked, a steward of the SNID), who get that mail alone: one mail per person per event."""
    users = (
        get_user_model()
        .objects.filter(Q(groups__name=EDITOR_GROUP) | Q(is_superuser=True), is_active=True)
        .exclude(email="")
        .exclude(pk__in=[user.pk for user in besides if user is not None])
        .distinct()
    )
    return sorted(users.values_list("email", flat=True))


def render(template: str, context: dict) -> tuple[str, str]:
    """(subject, body) of one mail; the body ends with one newline."""
    text = render_to_string(f"registry/email/{template}.txt", {"site_url": settings.SITE_URL, **context})
    subject, _, body = text.strip().partition("\n")
    return " ".join(subject.split()), body.strip() + "\n"


def _send(template: str, recipients: list[str], context: dict) -> None:
    """One mail per address (each once, whatever its letter case): people told of the same step (an
    SNID's stewards, the GFD editors) never learn each other's addresses."""
    unique: dict[str, str] = {}
    for address in (r.strip() for r in recipients if r):
        if address:
            unique.setdefault(address.lower(), address)
    if not unique:
        return
    try:
        subject, body = render(template, context)
    except Exception:  # noqa: BLE001 - the change is committed; a lost mail must not turn it into an error page
        logger.exception("Could not render the %r mail", template)
        return
    for recipient in unique.values():
        try:
            send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [recipient])
        except Exception:  # noqa: BLE001 - as above: one address refused never stops the others
            logger.exception("Could not send the %r mail to %s", template, recipient)


def now(template: str, recipients, context: dict) -> None:
    """Send at once, whatever transaction is open: for what no change carries (the log signer's alarm)."""
    _send(template, list(recipients), context)


def later(template: str, recipients, context: dict) -> None:
    """Send once the current transaction commits (``recipients`` may be a callable, read then), one mail
    per address."""
    transaction.on_commit(
        lambda: _send(template, list(recipients() if callable(recipients) else recipients), context), robust=True
    )
