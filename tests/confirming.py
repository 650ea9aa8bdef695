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


def step(client, url: str, data: dict, *, follow: bool = False):
    """A stewardship step as a person takes it: the page that confirms it, then its button.

    A step with a form of its own (deprecate, ask for a change, add or invite a steward) shows its
    confirmation when the form is sent; the others (withdraw a deprecation, remove a steward, decide
    a request or an invitation) are opened as their confirmation page."""
    fields = {key: value for key, value in data.items() if key not in ("confirm", "seen")}
    if "decision" in fields or "/remove/" in url or url.endswith("/undeprecate/"):
        shown = client.get(url, {"decision": fields["decision"]} if "decision" in fields else {})
    else:
        shown = client.post(url, fields)
    return client.post(url, {**fields, "confirm": "yes", "seen": seen_of(shown)}, follow=follow)
