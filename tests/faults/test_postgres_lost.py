"""PostgreSQL lost under traffic, with the registry served as deployed (granian, DEBUG off):
every page answers 503 with Retry-After and a sentence for people — or its true answer where it
needs no database (the help, the log-in form) or only what the worker holds in memory (lookups
and redirects through its registry index, anonymous public pages in its page cache) — never a
500, never a dead worker; the service recovers by itself when the database comes back, also
from a restart between two requests; and a worker started while the database is down comes up
and answers. docs/operations.md, "PostgreSQL lost", says the same for operators.

The drill runs a PostgreSQL server of its own (tests/faults/postgres.py), whatever database
the rest of the suite uses; the shared server on port 5432 is never touched."""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from ..conftest import require_external
from . import postgres
from .conftest import Answer, request
from .server import Server

pytestmark = [pytest.mark.faults, pytest.mark.serial]  # stops a database under timed traffic

REGISTERED = "urn:ogf:example:cluster:2009:example.net:42"
CSRF = "c" * 32
SENTENCE = "could not reach its database"
#: Seconds within which every page answers as before once the database is back.
RECOVERY_SECONDS = 5

SETUP = """
import json
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from registry import demo
from registry.forms import ProposalForm
from registry.models import Proposal
accounts = demo.demo_accounts()
demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
applicant = accounts["applicant"][0]
proposal = Proposal.objects.get(submitter=applicant, state="changes_requested")
session = SessionStore()
session[SESSION_KEY] = str(applicant.pk)
session[BACKEND_SESSION_KEY] = "registry.accounts.names.FoldedNameBackend"
session[HASH_SESSION_KEY] = applicant.get_session_auth_hash()
session.save()
form = {k: v for k, v in ProposalForm.initial_from(proposal.to_data()).items() if v is not None}
print(json.dumps({"pk": proposal.pk, "session": session.session_key, "form": form}, default=str))
"""


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """A PostgreSQL server of the drill's own, migrated and loaded with the demo data, and the
    settings of a deployment (``registry.preview_settings``: production on the loopback)."""
    reason = postgres.missing()
    require_external("PostgreSQL", reason is None, reason or "")
    from registry.transparency.log import log_key_generate

    home = tmp_path_factory.mktemp("pg-drill")
    log_key_generate(home / "log.key", "drill.example/log")
    database = postgres.PostgresServer()  # initdb
    try:
        database.start()
        database.createdb()
        env = {
            "DJANGO_SETTINGS_MODULE": "registry.preview_settings",
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "drill-" + "k" * 50,
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "REGISTRY_LOG_KEY_FILE": str(home / "log.key"),
            "DJANGO_STATIC_ROOT": str(home / "static"),
            "REGISTRY_MAIL_DIR": str(home / "mail"),
            "REGISTRY_SITE_URL": "http://127.0.0.1",
        }
        site = Server(database.url, **env)
        site.manage("collectstatic", "--noinput", "--verbosity", "0")
        setup = site.setup(SETUP)
        yield {"database": database, "env": env, "setup": setup, "home": home}
    finally:
        database.remove()


@pytest.fixture
def servers():
    started = []

    def make(deployed, **env) -> Server:
        started.append(Server(deployed["database"].url, **deployed["env"], **env))
        return started[-1]

    yield make
    for one in started:
        one.stop()


_asked = itertools.count()


class Page:
    """One kind of request, its answer while the database is up, and what it needs to give that
    answer: ``"database"``; ``"index"``, the registry index (and the validators and resolvers) a
    worker holds in memory once it has answered a lookup; ``"cache"``, that index and the page in
    the page cache (anonymous public pages, for five minutes); or ``"nothing"`` (files and code)."""

    def __init__(
        self, name, method, path, *, body=None, headers=None, up=200, check=None, needs="database", heavy=False
    ):
        self.name, self.method, self.path, self.body, self.headers = name, method, path, body, headers or {}
        self.up, self.check, self.needs = up, check, needs
        #: A heavy request of one account (registry/fairshare.py): under this traffic its third at
        #: once is refused, 429 with Retry-After and the form as typed, which is its correct answer too.
        self.heavy = heavy

    def ask(self, base_url: str) -> Answer:
        path = self.path.replace("{n}", str(next(_asked)))  # a page never asked before (never cached)
        return request(base_url, self.method, path, self.body, {"Host": "127.0.0.1", **self.headers}, timeout=30)

    def correct(self, answer: Answer) -> bool:
        if self.heavy and answer.status == 429:  # the form kept as typed: tests/test_fairshare.py
            return bool(answer.headers.get("Retry-After"))
        return answer.status == self.up and (self.check is None or self.check(answer))

    def unavailable(self, answer: Answer) -> bool:
        """A 503 for people: Retry-After, JSON under /api/, the site's page elsewhere, in words; a
        page that only asked offers to try again, a form sent is to be sent again from the browser."""
        if answer.status != 503 or answer.headers.get("Retry-After") != "30":
            return False
        if self.path.startswith("/api/"):
            return answer.headers.get("Content-Type") == "application/json" and SENTENCE in answer.json()["detail"]
        if not (
            answer.headers.get("Content-Type", "").startswith("text/html")
            and "<html" in answer.text
            and "Error 503" in answer.text
            and SENTENCE in answer.text
        ):
            return False
        if self.method == "GET":
            return "<title>Not available just now — urn:ogf registry</title>" in answer.text and (
                f'<a href="{self.path.split("{n}")[0]}' in answer.text.replace("&amp;", "&")
                and ">Try again</a> — in 30 seconds or so" in answer.text
            )
        return (
            "so nothing was saved" in answer.text
            and "your browser keeps what you typed" in answer.text
            and "<title>Not saved — urn:ogf registry</title>" in answer.text
        )


def _lookup_says(registered: bool):
    return lambda answer: answer.json()["registered"] is registered


def _redirected(answer: Answer) -> bool:
    return answer.headers["Location"].startswith("https://catalogue.example.net/")


def pages(setup) -> list[Page]:
    session = {"Cookie": f"sessionid={setup['session']}; csrftoken={CSRF}", "X-CSRFToken": CSRF}
    anonymous_post = {"Cookie": f"csrftoken={CSRF}", "X-CSRFToken": CSRF}
    typed = "Typed while the database was away: " + "a sentence worth keeping. " * 20
    edit = {**setup["form"], "section_scope": typed, "intent": "save"}
    bulk = json.dumps({"urns": [REGISTERED, "urn:ogf:nosuchsnid:x"]})
    return [
        Page("public list", "GET", "/urn/", check=lambda a: "urn:ogf:example:" in a.text, needs="cache"),
        Page("SNID page", "GET", "/urn/example/", check=lambda a: "urn:ogf:example:" in a.text, needs="cache"),
        Page("search", "GET", "/urn/search/?q=example", check=lambda a: "/urn/example/" in a.text, needs="cache"),
        Page(
            "search, never asked before",
            "GET",
            "/urn/search/?q=drill-{n}",
            check=lambda a: "— search — urn:ogf registry</title>" in a.text,
        ),
        Page("lookup", "GET", f"/api/lookup/?urn={REGISTERED}", check=_lookup_says(True), needs="index"),
        Page(
            "lookup, unknown SNID",
            "GET",
            "/api/lookup/?urn=urn:ogf:nosuchsnid:x",
            check=_lookup_says(False),
            needs="index",
        ),
        Page(
            "bulk lookup",
            "POST",
            "/api/validate/",
            body=bulk,
            headers={"Content-Type": "application/json"},
            check=lambda a: [r["registered"] for r in a.json()["results"]] == [True, False],
            needs="index",
        ),
        Page("resolve", "GET", f"/resolve/?urn={REGISTERED}", up=303, check=_redirected, needs="index"),
        Page("resolve, path form", "GET", f"/{REGISTERED}", up=303, check=_redirected, needs="index"),
        Page("help index", "GET", "/help/", check=lambda a: "/help/api/" in a.text, needs="nothing"),
        Page("help page", "GET", "/help/api/", check=lambda a: "/api/lookup/" in a.text, needs="nothing"),
        Page("log-in page", "GET", "/accounts/login/", check=lambda a: 'name="password"' in a.text, needs="nothing"),
        Page(
            "log-in",
            "POST",
            "/accounts/login/",
            headers=anonymous_post,
            up=302,
            body={"username": "applicant", "password": "applicant-demo-2026"},
        ),
        Page(
            "applicant's proposals",
            "GET",
            "/proposals/",
            headers=session,
            check=lambda a: "Log out applicant" in a.text,
        ),
        Page(
            "applicant's proposal",
            "GET",
            f"/proposals/{setup['pk']}/",
            headers=session,
            check=lambda a: "Log out applicant" in a.text,
        ),
        Page(
            "proposal saved", "POST", f"/proposals/{setup['pk']}/edit/", body=edit, headers=session, up=302, heavy=True
        ),
    ]


def sweep(base_url: str, kinds: list[Page]) -> list[tuple[Page, Answer]]:
    return [(page, page.ask(base_url)) for page in kinds]


def _said(answers) -> list:
    """What each kind of page answered, and how often (for a failure's message)."""

    def gist(answer: Answer) -> str:
        title = re.search(r"<title>([^<]*)</title>", answer.text)
        return title.group(1).strip() if title else answer.text[:160]

    return sorted(Counter((page.name, answer.status, gist(answer)) for page, answer in answers).items())


def _server_log_tail(log: Path, lines: int = 60) -> str:
    """The end of the server's own log (its tracebacks), for a failure's message."""
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else "(no log)"


def assert_all_correct(answers) -> None:
    wrong = [(page, answer) for page, answer in answers if not page.correct(answer)]
    assert not wrong, _said(wrong)


def assert_without_database(answers, held: set[str]) -> None:
    """Pages needing only what is ``held`` give their true answer; every other page its 503."""
    wrong = [
        (page, answer)
        for page, answer in answers
        if not (page.correct(answer) if page.needs in held else page.unavailable(answer))
    ]
    assert not wrong, _said(wrong)


class Traffic:
    """Every page, again and again from a few threads, until stopped: each answer kept."""

    def __init__(self, base_url: str, kinds: list[Page], threads: int = 4):
        self.base_url, self.kinds = base_url, kinds
        self.answers: list[tuple[Page, Answer]] = []
        self.stopped = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(n,), daemon=True) for n in range(threads)]

    def run(self, offset: int) -> None:
        n = offset
        while not self.stopped.is_set():
            page = self.kinds[n % len(self.kinds)]
            self.answers.append((page, page.ask(self.base_url)))
            n += 1

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        for thread in self.threads:
            thread.join(timeout=60)


def assert_recovers(base_url: str, kinds: list[Page]) -> None:
    """Seconds until a whole sweep answers as before (failing past RECOVERY_SECONDS); then every
    answer under traffic from more threads than a worker has is as before too (no thread is left
    with a connection to the stopped server)."""
    started = time.monotonic()
    while True:
        answers = sweep(base_url, kinds)
        if all(page.correct(answer) for page, answer in answers):
            break
        if time.monotonic() - started > RECOVERY_SECONDS:
            wrong = [(page, answer) for page, answer in answers if not page.correct(answer)]
            pytest.fail(f"not recovered within {RECOVERY_SECONDS} s: {_said(wrong)}")
        time.sleep(0.2)
    with Traffic(base_url, kinds, threads=12) as traffic:
        time.sleep(2)
    assert_all_correct(traffic.answers)


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_postgres_lost_under_traffic_answers_503s_then_recovers_by_itself(deployed, servers, mode):
    """One worker, so that what it holds in memory is known: it answered every page before."""
    database = deployed["database"]
    if not database.running:
        database.start()
    site = servers(deployed, WEB_CONCURRENCY="1")
    site.start(log=deployed["home"] / f"server-{mode}.log")
    kinds = pages(deployed["setup"])
    cached = [page for page in kinds if page.needs != "database"]
    with Traffic(site.url, kinds, threads=12) as warm:  # every thread of the worker has a connection
        time.sleep(1)
    assert_all_correct(warm.answers + sweep(site.url, cached))
    workers = site.workers()
    assert len(workers) == 1

    with Traffic(site.url, kinds) as traffic:
        time.sleep(0.5)
        database.stop(mode)
        time.sleep(2)  # past the registry index's stamp interval: what is in memory is all there is
    assert traffic.answers
    errors = [(page, answer) for page, answer in traffic.answers if answer.status >= 500 and answer.status != 503]
    if errors:
        pytest.fail(f"{_said(errors)}\n{_server_log_tail(deployed['home'] / f'server-{mode}.log')}")
    wrong = [
        (page, answer) for page, answer in traffic.answers if not (page.correct(answer) or page.unavailable(answer))
    ]
    assert not wrong, _said(wrong)

    down = sweep(site.url, kinds)
    assert_without_database(down, held={"nothing", "index", "cache"})
    # What memory answered says as of when: the registry as the database last confirmed it.
    from_memory = [answer for page, answer in down if page.needs in ("index", "cache")]
    assert from_memory and all(answer.headers.get("Registry-As-Of") for answer in from_memory), _said(down)
    assert site.workers() == workers  # none died, none was replaced

    database.start()
    assert_recovers(site.url, kinds)
    assert site.workers() == workers
    assert not [page.name for page, answer in sweep(site.url, kinds) if "Registry-As-Of" in answer.headers]


def test_a_worker_started_while_postgres_is_down_comes_up_and_answers_503s(deployed, servers):
    database = deployed["database"]
    if database.running:
        database.stop("fast")
    site = servers(deployed)
    site.start(ready=(503,), log=deployed["home"] / "server-down.log")
    kinds = pages(deployed["setup"])
    # A new worker holds no registry index yet: lookups need the database too.
    assert_without_database(sweep(site.url, kinds), held={"nothing"})
    workers = site.workers()
    assert len(workers) == 2 and site.process.poll() is None
    time.sleep(2)
    assert site.workers() == workers

    database.start()
    assert_recovers(site.url, kinds)
    assert site.workers() == workers


def test_postgres_restarted_while_idle_the_next_answers_are_correct(deployed, servers):
    """A restart between requests (maintenance, a fail-over): every thread's kept connection is
    to the old server, and the first request each thread takes must not pay for that."""
    database = deployed["database"]
    if not database.running:
        database.start()
    site = servers(deployed, WEB_CONCURRENCY="1")
    site.start(log=deployed["home"] / "server-restart.log")
    kinds = pages(deployed["setup"])
    with Traffic(site.url, kinds, threads=12) as warm:
        time.sleep(1)
    assert_all_correct(warm.answers)
    database.stop("fast")
    database.start()
    with Traffic(site.url, kinds, threads=12) as after:
        time.sleep(1)
    assert_all_correct(after.answers)
