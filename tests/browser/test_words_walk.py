"""The pages of issue 47's points, as a visitor, a steward and an editor see them, at 1280 and 375 px:
axe-core with best practices at 0 violations, no page wider than the window, no "None" and no literal
markup (``test_every_page.problems``). The lookup page telling a deprecation, the list filter finding a URN,
the tombstone naming the chain, stewards counted, the log in words, the deprecation request's preview,
an editor's deprecation of a successor, and ``/api/`` as a page."""

from __future__ import annotations

import pytest

from . import test_every_page as every
from .test_every_page import BEST_PRACTICE, LONG_REGISTERED, WIDTHS, act, walk

#: The site the page walk runs on (a fixture), used here as is.
site = every.site

FDC_URN = "urn:ogf:fdc:example.com:2002:A572007"


def ask_for_a_deprecation(page, site):
    page.goto("/urn/example/stewardship/change/deprecation/")
    page.fill("[name=deprecation-successor]", LONG_REGISTERED)
    page.fill("[name=deprecation-reason]", "The working group moved on.")
    page.get_by_role("button", name="Show what will change").click()
    page.get_by_text("Nothing until an editor approves it. Then:").wait_for()
    page.get_by_text("its tombstone will read").wait_for()  # urn:ogf:fdc: names urn:ogf:example:


def deprecate_a_successor(page, site):
    page.goto("/urn/example/stewardship/deprecate/")
    page.fill("[name=deprecate-successor]", LONG_REGISTERED)
    page.fill("[name=deprecate-reason]", "Superseded.")
    page.get_by_role("button", name="Show what will happen").click()
    page.get_by_text("Named as successor by").wait_for()


def refuse_a_cycle(page, site):
    page.goto("/urn/example/stewardship/deprecate/")  # urn:ogf:fdc: names urn:ogf:example: as its successor
    page.fill("[name=deprecate-successor]", "fdc")
    page.fill("[name=deprecate-reason]", "Back to fdc.")
    page.get_by_role("button", name="Show what will happen").click()
    page.get_by_text("would close a cycle").wait_for()


WORDS_WALKS = {
    "anonymous": [
        "/api/",
        "/urn/?q=urn:ogf:example:cluster:2009:example.net:42",
        f"/urn/search/?urn={FDC_URN}",
        f"/urn/?q={FDC_URN}",
        "/urn/fdc/",
        "/urn/example/",
        "/log/",
        "/accounts/password_reset/done/",
        "/accounts/confirm/MQ/not-a-token/",
    ],
    "steward": [
        "/urn/example/",
        "/urn/example/stewardship/",
        act("a deprecation request's preview", ask_for_a_deprecation),
        "/api/",
        "/accounts/confirm/MQ/not-a-token/",
    ],
    "editor": [
        "/urn/fdc/",
        "/urn/fdc/stewardship/",
        "/review/stewardship/",
        act("deprecating a successor: its confirmation", deprecate_a_successor),
        act("a deprecation that would point back into a chain", refuse_a_cycle),
        "/log/",
        "/api/",
    ],
}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("role", list(WORDS_WALKS))
def test_the_pages_of_every_point_are_clean_for_everyone(chromium, live_server, site, role, width):
    found = walk(chromium, live_server, site, role, width, WORDS_WALKS[role], BEST_PRACTICE)
    assert found == [], "\n".join(found)
