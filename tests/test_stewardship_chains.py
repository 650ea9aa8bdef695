"""Chains of deprecation, through the pages: A deprecated in favour of B, then B in favour of C.

Deprecating B lists A on its confirmation page and says what A's tombstone will read; A's tombstone, the
lookup page, the list and the API then name the live end of the chain; a deprecation that would close a
cycle is refused with a sentence."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.core.cache import cache

from registry.lookup import registry_invalidate
from registry.models import Namespace
from registry.stewardship.models import Deprecation

from .confirming import step
from .factories import proposal_factory, user_factory


@pytest.fixture
def three(db):
    """urn:ogf:alpha:, urn:ogf:bravo: and urn:ogf:charlie:, registered; an editor who stewards none."""
    steward, approver = user_factory("steward"), user_factory("approver", editor=True)
    for snid in ("alpha", "bravo", "charlie"):
        proposal_factory(steward, state="approved", editor=approver, snid=snid)
    return {"steward": steward, "editor": user_factory("deciding", editor=True)}


def _text(response) -> str:
    """The page's words, tags dropped and spaces collapsed."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def _deprecate(client, snid: str, successor: str, *, confirm: bool = True):
    data = {"deprecate-reason": f"{snid} is superseded.", "deprecate-successor": successor}
    if confirm:
        return step(client, f"/urn/{snid}/stewardship/deprecate/", data)
    return client.post(f"/urn/{snid}/stewardship/deprecate/", data)


@pytest.mark.django_db
def test_deprecating_a_successor_lists_those_that_name_it_on_the_confirmation_page(client, three):
    client.force_login(three["editor"])
    assert _deprecate(client, "alpha", "bravo").status_code == 302
    page = _text(_deprecate(client, "bravo", "charlie", confirm=False))
    assert "Named as successor by urn:ogf:alpha:" in page
    assert (
        "urn:ogf:alpha: is deprecated, superseded by urn:ogf:bravo:: its tombstone will read "
        "“superseded by urn:ogf:bravo:, itself superseded by urn:ogf:charlie:”, sending readers on to "
        "urn:ogf:charlie:." in page
    )
    # A successor with no successor of its own named: the chain's end is said to be dead.
    page = _text(_deprecate(client, "bravo", "", confirm=False))
    assert "“superseded by urn:ogf:bravo:, itself deprecated with no successor named”, naming no current SNID" in page


@pytest.mark.django_db
def test_a_confirmation_page_without_predecessors_names_none(client, three):
    client.force_login(three["editor"])
    page = _text(_deprecate(client, "bravo", "charlie", confirm=False))
    assert "Named as successor by" not in page and "its tombstone will read" not in page


@pytest.mark.django_db
def test_the_tombstone_lookup_list_and_api_name_the_live_end_of_the_chain(client, three):
    client.force_login(three["editor"])
    assert _deprecate(client, "alpha", "bravo").status_code == 302
    assert _deprecate(client, "bravo", "charlie").status_code == 302
    client.logout()
    cache.clear()
    registry_invalidate()
    chain = "superseded by urn:ogf:bravo: , itself superseded by urn:ogf:charlie:"
    tombstone = _text(client.get("/urn/alpha/"))
    assert f"It is {chain} ." in tombstone and "New identifiers should use urn:ogf:charlie: ." in tombstone
    lookup = _text(client.get("/urn/search/", {"urn": "urn:ogf:alpha:x"}))
    assert f"its SNID alpha is registered but deprecated , {chain} ." in lookup
    assert "new identifiers should use urn:ogf:charlie: ." in lookup
    listed = _text(client.get("/urn/"))
    assert chain in listed
    answer = client.get("/api/lookup/", {"urn": "urn:ogf:alpha:x"}).json()["registration"]
    assert (answer["status"], answer["successor"], answer["successors"], answer["successor_current"]) == (
        "deprecated",
        "bravo",
        ["bravo", "charlie"],
        "charlie",
    )
    current = client.get("/api/lookup/", {"urn": "urn:ogf:charlie:x"}).json()["registration"]
    assert (current["status"], current["successors"], current["successor_current"]) == ("registered", [], None)


@pytest.mark.django_db
def test_a_chain_ending_in_a_deprecated_snid_names_no_current_one(client, three):
    client.force_login(three["editor"])
    assert _deprecate(client, "alpha", "bravo").status_code == 302
    assert _deprecate(client, "bravo", "").status_code == 302
    client.logout()
    cache.clear()
    registry_invalidate()
    tombstone = _text(client.get("/urn/alpha/"))
    assert "superseded by urn:ogf:bravo: , itself deprecated with no successor named ." in tombstone
    assert "No current SNID is named for new identifiers." in tombstone
    answer = client.get("/api/lookup/", {"urn": "urn:ogf:alpha:x"}).json()["registration"]
    assert (answer["successors"], answer["successor_current"]) == (["bravo"], None)
    assert "new identifiers should not use it." in _text(client.get("/urn/search/", {"urn": "urn:ogf:alpha:x"}))


@pytest.mark.django_db
def test_a_deprecation_pointing_back_into_a_cycle_is_refused_with_a_sentence(client, three):
    client.force_login(three["editor"])
    assert _deprecate(client, "alpha", "bravo").status_code == 302
    assert _deprecate(client, "bravo", "charlie").status_code == 302
    response = _deprecate(client, "charlie", "alpha", confirm=False)
    page = _text(response)
    assert response.status_code == 400  # the form again, with the sentence
    assert (
        "urn:ogf:alpha: is deprecated, superseded by urn:ogf:bravo:, itself superseded by urn:ogf:charlie:: "
        "naming it as the successor of urn:ogf:charlie: would close a cycle" in page
    )
    # Confirming regardless (a page left open while the chain changed) is refused the same way.
    data = {"deprecate-reason": "charlie is superseded.", "deprecate-successor": "alpha", "confirm": "yes"}
    assert "would close a cycle" in _text(client.post("/urn/charlie/stewardship/deprecate/", data))
    assert not Deprecation.objects.in_force().filter(namespace__snid="charlie").exists()


@pytest.mark.django_db
def test_a_deprecated_successor_is_refused_and_the_live_end_offered(client, three):
    client.force_login(three["editor"])
    assert _deprecate(client, "alpha", "bravo").status_code == 302
    assert _deprecate(client, "bravo", "charlie").status_code == 302
    proposal_factory(three["steward"], state="approved", editor=user_factory("other", editor=True), snid="delta")
    page = _text(_deprecate(client, "delta", "alpha", confirm=False))
    assert (
        "The successor urn:ogf:alpha: is itself deprecated, superseded by urn:ogf:bravo:, itself superseded by "
        "urn:ogf:charlie:; name a current SNID such as urn:ogf:charlie:, the live end of its chain." in page
    )
    assert not Deprecation.objects.in_force().filter(namespace=Namespace.objects.get(snid="delta")).exists()


@pytest.mark.django_db
def test_a_steward_asking_to_deprecate_a_successor_sees_the_chains_it_changes(client, three):
    client.force_login(three["editor"])
    assert _deprecate(client, "alpha", "bravo").status_code == 302
    client.force_login(three["steward"])
    page = _text(
        client.post(
            "/urn/bravo/stewardship/change/deprecation/",
            {"deprecation-successor": "charlie", "deprecation-reason": "Moved to charlie."},
        )
    )
    assert "Nothing until an editor approves it. Then:" in page and "Nothing yet" not in page
    assert "say “deprecated” and name urn:ogf:charlie: as its successor." in page
    assert "its tombstone will read “superseded by urn:ogf:bravo:, itself superseded by urn:ogf:charlie:”" in page
