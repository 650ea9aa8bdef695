"""What a server process prepares before its first request (registry/wsgi.py calls it).

Left to itself, Django imports the URL configuration (DRF, the OpenAPI views,
the PostgreSQL field modules), fills the URL resolver's tables and compiles
each template on the first request that needs them: half a second and more,
paid by whichever visitor comes first, once in every worker. Done here, at
start-up, the server's master (registry/serve.py) does it once and every worker
forks with it done.

Nothing here touches the database: a connection opened in the master would be
shared by the workers it forks.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from django.template import engines
from django.template.backends.django import DjangoTemplates
from django.urls import get_resolver, reverse

TEMPLATE_SUFFIXES = (".html", ".txt", ".xml")


def prepare() -> list[str]:
    """Import the URLs, fill the resolver and compile the project's templates; the templates' names."""
    get_resolver().url_patterns  # noqa: B018 - imports every view module
    reverse("registry:namespace_list")  # fills the reverse tables of every namespace
    _warm_filters()
    return _compile_templates()


def _warm_filters() -> None:
    """Use once each template filter that builds its regular expressions on first use.

    Django compiles ``urlize``'s patterns (and ``truncatechars``' and ``slugify``'s)
    lazily, in the process that first needs them: 50 ms the first time an SNID page
    shows a public contact with a link, paid by that page's first visitor in every
    worker. Done here, the master does it once before it forks.
    """
    from django.template import defaultfilters as f

    sample = "Write to registry@example.org or see https://example.org/a?b=c (www.example.org). Ünïcode line\n2"
    f.urlize(sample)
    f.truncatechars(sample, 20)
    f.slugify(sample)
    f.linebreaksbr(sample)
    f.striptags(f"<p>{sample}</p>")


def _compile_templates() -> list[str]:
    """Compile every template of the project's template directories, where the loader keeps them."""
    names = []
    for engine in engines.all():
        if not isinstance(engine, DjangoTemplates) or engine.engine.debug:
            continue  # in debug mode templates are read afresh on every request anyway
        for directory in engine.engine.dirs:
            root = Path(directory)
            for path in sorted(root.rglob("*")):
                if path.suffix in TEMPLATE_SUFFIXES:
                    name = path.relative_to(root).as_posix()
                    engine.get_template(name)
                    names.append(name)
    return names


#: Pages a new worker asks itself for before it takes its first request (``warm_pages``).
WARM_PATHS = (
    "/urn/",
    "/urn/search/?q={snid}",
    "/urn/search/?urn=urn:ogf:{snid}:x",
    "/api/lookup/?urn=urn:ogf:{snid}:x",
    "/api/snids/{snid}/",
    "/urn/registry.json",
    "/urn/registry.csv",
    "/urn/registry.xml",
    "/urn/feed.atom",
)
#: Seconds a worker may spend at start on the proposals being worked on and then the SNID pages
#: (``WEB_WARM_SECONDS``): every SNID page of a registry of a few hundred, the most recently
#: registered first in a larger one.
WARM_SECONDS = 10.0


def warm_pages(application, *, host: str | None = None, seconds: float = WARM_SECONDS, tick=None) -> dict[str, int]:
    """Ask ``application`` (the WSGI app) for the public pages once: path -> status.

    A worker's first request of a page otherwise pays for everything done once per
    process — the first query of each shape, regular expressions, a page's Markdown,
    grammar and diagrams, the registry's index — half a second to a second
    (docs/performance.md, "First request after a restart"). Called from
    registry/serve.py in each worker, after the fork and before the worker accepts a connection, so
    that cost is paid at start: the public pages and the help pages, then, for at most
    ``seconds`` in all, the proposal form and the automated review of every proposal
    being worked on (``_warm_workbench``: their grammars compiled, their Markdown
    rendered), every registered SNID's validator (as the lookup uses it) and every SNID
    page, newest first. An SNID page lands in the shared page cache, so with Redis the
    workers (and a restarted server) share that work. ``tick`` is called after each
    page (a server's heartbeat, so a long warm-up is not taken for a stuck worker).
    Plain GETs and checks, which change nothing. A page that fails is only logged: a
    warm-up never stops a start.
    """
    import logging
    import time

    from django.conf import settings

    from .help import PAGES
    from .models import Namespace
    from .storage import storage_fault

    log = logging.getLogger(__name__)
    try:
        snids = list(Namespace.objects.registered().order_by("-registered_at", "snid").values_list("snid", flat=True))
    except Exception:  # noqa: BLE001 - no database yet (before migrate): warm what needs none
        log.info("warm-up: the database cannot be read; warming pages that need no SNID only")
        snids = []
    first = snids[0] if snids else None
    paths = [p.format(snid=first) for p in WARM_PATHS if first or "{snid}" not in p]
    paths += [f"/help/{slug}/" for slug in PAGES]
    hosts = [h for h in settings.ALLOWED_HOSTS if h and not h.startswith(".") and h != "*"]
    host = host or (hosts[0] if hosts else "localhost")
    statuses = {}
    for path in paths:
        statuses[path] = _get(application, host, path, log)
        if tick:
            tick()
    deadline = time.monotonic() + seconds
    try:
        _warm_workbench(deadline, tick)
        statuses["(the proposal form and the automated review)"] = 200
    except Exception as exc:  # noqa: BLE001 - see the docstring
        if storage_fault(exc) is None:
            log.exception("warm-up: the proposal form and the automated review failed")
            statuses["(the proposal form and the automated review)"] = 500
        else:  # the database is down: the worker starts all the same and answers 503s until it is back
            log.warning("warm-up: the database cannot be reached (%s); the worker starts unprepared", exc)
            statuses["(the proposal form and the automated review)"] = 503
    try:
        from .lookup import registry_index, validators_preload

        validators_preload(registry_index(), deadline)  # every SNID's first lookup, then its page
    except Exception:  # noqa: BLE001 - see the docstring
        log.warning("warm-up: the SNIDs' validators could not be read; each is read on its first lookup")
    for count, snid in enumerate(snids):
        if time.monotonic() >= deadline:
            log.info(
                "warm-up: %d of %d SNID pages prepared within %g s; the rest on their first visit",
                count,
                len(snids),
                seconds,
            )
            break
        statuses[f"/urn/{snid}/"] = _get(application, host, f"/urn/{snid}/", log)
        if tick:
            tick()
    return statuses


def _get(application, host: str, path: str, log) -> int:
    """One anonymous GET of ``path`` through the WSGI application, as a proxy would send it: its status."""
    route, _, query = path.partition("?")
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": route,
        "QUERY_STRING": query,
        "SCRIPT_NAME": "",
        "SERVER_NAME": host,
        "SERVER_PORT": "443",
        "HTTP_HOST": host,
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_X_FORWARDED_PROTO": "https",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "https",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    status = []
    try:
        for _chunk in application(environ, lambda code, headers, exc_info=None: status.append(code)):
            pass
        return int(status[0].split()[0]) if status else 0
    except Exception:  # noqa: BLE001 - a warm-up never stops a start
        log.exception("warm-up: %s failed", path)
        return 500


def _warm_workbench(deadline: float | None = None, tick=None) -> int:
    """The applicant's and the editor's pages without a session: the proposal form drawn and the
    automated review run, as their first request would, on the GFD.191 worked example and on
    every proposal being worked on (in review or a draft), the most recently active first, until
    ``deadline``. Each distinct content is prepared once: a thousand proposals written from one
    template cost one check. How many were prepared."""
    import hashlib
    import json
    import time

    from .demo import FIXTURES
    from .enums import ProposalState
    from .forms import ProposalForm
    from .interchange import dump, load
    from .markdown import prerender_page
    from .models import Proposal
    from .selectors import data_findings
    from .views.workbench import workbench

    example = load(json.loads((FIXTURES / "proposals" / "example.json").read_text(encoding="utf-8")))
    active = (
        Proposal.objects.filter(
            state__in=[ProposalState.SUBMITTED, ProposalState.CHANGES_REQUESTED, ProposalState.DRAFT]
        )
        .order_by("-updated_at", "-id")
        .iterator()
    )
    seen, prepared = set(), 0
    for data in (example, *(proposal.to_data() for proposal in active)):
        if deadline is not None and time.monotonic() >= deadline:
            break
        content = {k: v for k, v in dump(data).items() if k not in ("snid", "version", "registration_date")}
        key = hashlib.blake2b(json.dumps(content, sort_keys=True, default=str).encode(), digest_size=16).digest()
        if key in seen:
            continue
        seen.add(key)
        str(ProposalForm(initial=ProposalForm.initial_from(data)))
        workbench(data, data_findings(data), diagrams_url="/")
        prerender_page(list((data.sections or {}).values()))
        prepared += 1
        if tick:
            tick()
    return prepared
