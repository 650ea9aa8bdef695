"""How pages tell the automated review: one error per mistake, progress for drafts."""

from __future__ import annotations

import pytest

from registry.models import Proposal

from ..factories import user_factory


@pytest.mark.django_db
def test_start_page_gives_one_error_for_a_malformed_snid(client):
    client.force_login(user_factory())
    page = client.post("/proposals/new/", {"start": "blank", "snid": "Alice_Grid"}).content.decode()
    assert "Give the SNID you want to register." not in page
    errors = page[page.index('id="id_snid_errors"'):]
    errors = errors[:errors.index("</ul>")]
    assert errors.count("<li>") == 1 and "Character 6 of the SNID, &#x27;_&#x27;, is not allowed" in errors


@pytest.mark.django_db
def test_blank_draft_shows_progress_not_red_failures(client):
    client.force_login(user_factory())
    response = client.post("/proposals/new/", {"start": "blank", "snid": "alicegrid"})
    proposal = Proposal.objects.get(snid="alicegrid")
    assert response.status_code == 302
    page = client.get(f"/proposals/{proposal.pk}/edit/").content.decode()
    assert "2 of 17 sections written." in page
    assert "Fail (" not in page
    assert proposal.findings_summary["fail"] == 0
