"""E-mail notifications. Each mail is a template whose first line is the subject.

Mails are sent after the transaction that caused them commits, so nobody is
told about a decision that was rolled back. The backend is the console by
default (settings: DJANGO_EMAIL_BACKEND, EMAIL_HOST, ...).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Q
from django.template.loader import render_to_string

from .rules import EDITOR_GROUP


def editors_emails() -> list[str]:
    users = get_user_model().objects.filter(
        Q(groups__name=EDITOR_GROUP) | Q(is_superuser=True), is_active=True).exclude(email="").distinct()
    return sorted(users.values_list("email", flat=True))


def _send(template: str, recipients: list[str], context: dict) -> None:
    recipients = [r for r in recipients if r]
    if not recipients:
        return
    text = render_to_string(f"registry/email/{template}.txt", context)
    subject, _, body = text.partition("\n")
    send_mail(subject.strip(), body.strip() + "\n", settings.DEFAULT_FROM_EMAIL, recipients)


def later(template: str, recipients, context: dict) -> None:
    """Send once the current transaction commits."""
    transaction.on_commit(lambda: _send(template, list(recipients() if callable(recipients) else recipients),
                                        context))
