"""Helpers shared by the registry's management commands."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import CommandError

from ... import interchange
from ...accounts.names import user_by_name

#: ``requires_system_checks`` of the commands people script (validate, check, import, export one
#: proposal): none. Django's system checks import the whole URL configuration — every view, the
#: API, its schema generator — which was most of such a command's start (tests/test_startup.py);
#: they guard a server's configuration, and run where one starts (``start``, ``migrate``,
#: ``check --deploy``, the server's own start), not before each URN is validated.
SCRIPTED_COMMAND_CHECKS: list[str] = []


def read_proposal_file(path: str) -> interchange.ProposalData:
    """Read and validate an interchange JSON file, or raise CommandError saying why."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"Cannot read {path}: {exc.strerror}.") from None
    except UnicodeDecodeError as exc:
        raise CommandError(f"{path} is not UTF-8 text (byte {exc.start}).") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.") from None
    try:
        return interchange.load(raw)
    except interchange.InterchangeError as exc:
        raise CommandError(f"{path} is not a valid proposal:\n  " + "\n  ".join(exc.errors)) from None


def get_user(username: str):
    """The account called ``username``, its case ignored (registry.accounts.names), or CommandError."""
    user = user_by_name(username)
    if user is None:
        raise CommandError(f"There is no user named {username!r} (compared ignoring case).")
    return user
