"""Decisions taken as an editor takes them: through their confirmation page.

A decision or a reservation action is carried out only with the token of the confirmation page
that showed it (registry/views/seen.py); these helpers open the page, read its token, and confirm.
"""

from __future__ import annotations

import re

SEEN = re.compile(r'name="seen" value="([0-9a-f]+)"')


def seen_of(response) -> str:
    """The token a confirmation page carries (the test fails, showing the page, if there is none)."""
    page = response.content.decode()
    found = SEEN.search(page)
    assert found, f"no confirmation form on the page ({response.status_code}): {page[:2000]}"
    return found.group(1)


def decide(client, pk: int, action: str, *, follow: bool = False, **fields):
    """The decision panel's POST (the confirmation page), then "Yes" on that page."""
    shown = client.post(f"/review/{pk}/decide/", {"action": action, **fields})
    return client.post(
        f"/review/{pk}/decide/",
        {"action": action, **fields, "confirm": "yes", "seen": seen_of(shown)},
        follow=follow,
    )


def reservation_act(client, *, follow: bool = False, **fields):
    """A reservation action's confirmation page (GET), then its button."""
    shown = client.get("/review/reservations/act/", {k: v for k, v in fields.items() if v is not None})
    return client.post("/review/reservations/act/", {**fields, "seen": seen_of(shown)}, follow=follow)
