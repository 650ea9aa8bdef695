"""SQLite, the default database, under the deployed server (granian): concurrent decisions give exactly one
winner and 409s (never 500 "database is locked"); a full disk answers a clear error and the
typed text comes back in the form."""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from ..conftest import require_external
from .conftest import request
from .server import Server

pytestmark = [pytest.mark.faults]

EDITORS = 6
CSRF = "c" * 32

SETUP_DECISIONS = f"""
import json
from rest_framework.authtoken.models import Token
from tests.factories import proposal_factory, user_factory
editors = [user_factory(f"editor{{n}}", editor=True) for n in range({EDITORS})]
proposal = proposal_factory(user_factory("applicant"), state="submitted")
print(json.dumps({{"pk": proposal.pk, "tokens": [Token.objects.create(user=e).key for e in editors]}}))
"""


@pytest.fixture
def server(tmp_path):
    servers = []

    def make(database, **env):
        servers.append(Server(database, **env))
        return servers[-1]

    yield make
    for one in servers:
        one.stop()


@pytest.mark.long
def test_concurrent_decisions_give_one_winner_and_409s_never_500(server, tmp_path):
    site = server(tmp_path / "db.sqlite3")
    setup = site.setup(SETUP_DECISIONS)
    site.start()
    actions = ["approve", "reject"] * (EDITORS // 2)
    bodies = {"approve": {"override_reason": "drill"}, "reject": {"comment": "Out of scope."}}
    headers = [{"Authorization": f"Token {token}", "Host": "127.0.0.1"} for token in setup["tokens"]]
    # Each editor reads the proposal first, as a client does, and decides with the token of what it read.
    seen = [
        request(site.url, "GET", f"/api/proposals/{setup['pk']}/", headers=h).json()["decision_basis"]["seen"]
        for h in headers
    ]

    def decide(n):
        return request(
            site.url,
            "POST",
            f"/api/proposals/{setup['pk']}/actions/{actions[n]}/",
            json.dumps({**bodies[actions[n]], "seen": seen[n]}),
            {**headers[n], "Content-Type": "application/json"},
        )

    with ThreadPoolExecutor(EDITORS) as pool:
        answers = list(pool.map(decide, range(EDITORS)))
    statuses = sorted(answer.status for answer in answers)
    assert statuses == [200] + [409] * (EDITORS - 1), [(a.status, a.text[:200]) for a in answers]
    winner = next(a for a in answers if a.status == 200).json()
    assert winner["state"] in ("approved", "rejected")
    events = site.manage(
        "shell",
        code=(
            "from registry.models import ProposalEvent\n"
            f"print(ProposalEvent.objects.filter(proposal_id={setup['pk']}, to_state__in=['approved', "
            "'rejected']).count())"
        ),
    )
    assert events.strip().splitlines()[-1] == "1"


SETUP_DRAFT = """
import json
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from tests.factories import proposal_factory, user_factory
applicant = user_factory("applicant")
draft = proposal_factory(applicant)
session = SessionStore()
session[SESSION_KEY] = str(applicant.pk)
session[BACKEND_SESSION_KEY] = "registry.accounts.names.FoldedNameBackend"
session[HASH_SESSION_KEY] = applicant.get_session_auth_hash()
session.save()
print(json.dumps({"pk": draft.pk, "session": session.session_key}))
"""


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)], capture_output=True, text=True
    )
    require_external("tmpfs", done.returncode == 0, f"mounting a small tmpfs failed: {done.stderr.strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(directory) -> None:
    with open(directory / "filler", "wb") as filler:
        try:
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
        except OSError:
            pass


@pytest.mark.long
def test_a_full_disk_answers_a_clear_error_and_gives_the_typed_text_back(server, small_disk):
    from registry.forms import ProposalForm
    from registry.interchange import load

    from ..factories import demo_raw

    site = server(small_disk / "db.sqlite3")
    setup = site.setup(SETUP_DRAFT)
    site.start()
    form = {k: v for k, v in ProposalForm.initial_from(load(demo_raw("example"))).items() if v is not None}
    typed = "Typed while the disk was full: " + "a sentence worth keeping. " * 40
    form.update(title="A title typed on a full disk", section_resolution=typed, intent="save")
    auth = {"Cookie": f"sessionid={setup['session']}; csrftoken={CSRF}", "X-CSRFToken": CSRF, "Host": "127.0.0.1"}
    _fill(small_disk)
    try:
        answer = request(site.url, "POST", f"/proposals/{setup['pk']}/edit/", form, auth)
        assert answer.status == 503, answer.text[:2000]
        assert answer.headers.get("Retry-After")
        assert "The registry&#x27;s storage is full, so nothing could be saved" in answer.text
        assert "A title typed on a full disk" in answer.text and typed.split(":")[0] in answer.text
        assert "a sentence worth keeping. " * 40 in answer.text  # the whole text, back in the form
    finally:
        (small_disk / "filler").unlink()
    saved = request(site.url, "POST", f"/proposals/{setup['pk']}/edit/", form, auth)
    assert saved.status == 302
