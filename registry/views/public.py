"""The public registry at /urn/ (GFD.191 §4): only approved versions ever appear here."""

from __future__ import annotations

import hashlib
from functools import wraps
from urllib.parse import urlencode

import orjson
from django.conf import settings
from django.contrib.messages import get_messages
from django.contrib.syndication.views import Feed
from django.core.cache import cache
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpResponse, HttpResponseNotModified
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.feedgenerator import Atom1Feed
from django.views.decorators.http import condition

from .. import exports, markdown, rules
from ..conditional import etag_matches
from ..diagram_cache import cached_diagrams
from ..diffs import proposal_diff
from ..enums import NamespaceStatus
from ..gfd191 import PROSE_KEYS, sections_by_part
from ..grammar import EQUIVALENCE_STEPS, UrnSyntaxError, Validator, parse_urn
from ..grammar.compiler import NotChecked
from ..grammar.portable import published_pattern
from ..interchange import PUBLISHABLE
from ..lookup import NotAnOgfUrn, lookup_for_snid, lookup_urn, refused, registry_index
from ..models import Namespace, Proposal, ValidatorCost
from ..resolution.selectors import resolver_changes, resolver_status, resolvers_and_budget
from ..selectors import registry_search, reservation_active, search_text, snid_suggestions
from ..stewardship.changes import overlay_of
from ..stewardship.models import StewardshipEvent, deprecated_in_force, successor_in_force
from ..stewardship.selectors import chain_of, overlay_apply, public_changes, public_life, successors_in_force
from ..verdicts import overridden_of
from .log import version_log_status

PAGE_SIZE = 100
SORTS = {
    "snid": "snid",
    "-snid": "-snid",
    "date": "current__registration_date",
    "-date": "-current__registration_date",
    "title": "current__title",
    "-title": "-current__title",
}


#: What a row of the list shows (and sorts by), so a page never loads sections, grammars or findings.
LIST_FIELDS = (
    "snid",
    "status",
    "current",
    "current__is_demo",
    "current__title",
    "current__version",
    "current__registration_date",
    "current__document_url",
    "current__document_reference",
    *(f"current__registrant_{key}" for key in ("published", "public_contact", *PUBLISHABLE)),
)

PAGE_CACHE_SECONDS = 300
#: Longer values of a used query parameter are not cached apart (the pages cut them shorter).
PAGE_CACHE_VALUE_LIMIT = 5000


def anonymous_cache(view=None, *, params: tuple[str, ...] = (), etag: bool = True):
    """Serve anonymous GETs of public pages from the shared cache, with a strong ETag.

    The key carries the registry stamp (lookup index), so an approval or a
    reservation changes every key at once: nothing stale is served, nothing
    needs deleting. Only the query parameters the page reads (``params``) are
    part of the key, so junk queries share one entry instead of filling the
    cache. The ETag is the same stamp, the day (reservations lapse by date) and
    that key, so a matching If-None-Match is answered 304 before any rendering.
    Logged-in users always get a fresh page (it shows their name), and so does a visitor
    with a message waiting to be shown (one person's confirmation, never everyone's).
    ``etag=False`` leaves validators to the view (exports use ``condition``).

    What such a view renders is shared by everyone who asks, whatever host name, scheme or
    cookies they asked with: it is built from settings alone (``settings.SITE_URL`` for an
    absolute address, the registry's state), never from the request
    (tests/views/test_shared_pages.py renders each one for two hosts and compares).
    The wrapper is marked ``shared_page`` so that test finds every one.
    """

    def decorate(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if request.method != "GET" or request.user.is_authenticated:
                return view(request, *args, **kwargs)
            if len(get_messages(request)):  # read, not consumed: the page shows them
                response = view(request, *args, **kwargs)
                patch_cache_control(response, private=True, no_cache=True)
                return response
            stamp = registry_index().etag_prefix
            used = [
                (name, request.GET.get(name, "")[:PAGE_CACHE_VALUE_LIMIT]) for name in params if name in request.GET
            ]
            identity = repr((request.path, used)).encode("utf-8", "surrogatepass")
            digest = hashlib.blake2b(identity, digest_size=16).hexdigest()
            tag = f'"{stamp}-{timezone.localdate():%Y%m%d}-{digest[:16]}"'
            if etag and etag_matches(request.META.get("HTTP_IF_NONE_MATCH", ""), tag):
                response = HttpResponseNotModified()
                response["ETag"] = tag
                return _public(response, request)
            key = f"registry:page:{stamp}:{digest}"
            response = cache.get(key)
            if response is None:
                response = view(request, *args, **kwargs)
                if response.status_code == 200 and not getattr(response, "streaming", False):
                    cache.set(key, response, PAGE_CACHE_SECONDS)
            if etag and response.status_code == 200:
                response["ETag"] = tag
            return response

        wrapper.shared_page = True
        return wrapper

    return decorate(view) if view is not None else decorate


def _public(response, request):
    """Anonymous pages may be cached by browsers and proxies for a minute."""
    if not request.user.is_authenticated:
        patch_cache_control(response, public=True, max_age=60)
    patch_vary_headers(response, ["Cookie"])
    return response


@anonymous_cache(params=("q", "sort", "page"))
def namespace_list(request):
    text = search_text(request.GET.get("q"))
    sort = request.GET.get("sort", "snid")
    namespaces = (
        Namespace.objects.registered()
        .filter(current__isnull=False)
        .select_related("current")
        .only(*LIST_FIELDS)
        .annotate(deprecated=deprecated_in_force(), successor=successor_in_force())
    )
    # A URN typed into the filter is looked up as the header's box and the lookup page do (one answer),
    # and the list shows its SNID.
    answer = _check(text) if text[:4].lower() == "urn:" else None
    if answer is not None:
        namespaces = namespaces.filter(snid__iexact=answer["snid"] or "")
    elif text:
        namespaces = namespaces.filter(Q(snid__icontains=text) | Q(current__title__icontains=text))
    namespaces = namespaces.order_by(SORTS.get(sort, "snid"), "snid")
    page = Paginator(namespaces, PAGE_SIZE).get_page(request.GET.get("page"))
    if any(ns.deprecated for ns in page):  # a chain of successors is named to its live end
        successors = successors_in_force()
        for ns in page:
            ns.chain = chain_of(ns.successor, successors) if ns.deprecated else None
    reservations = [ns for ns in Namespace.objects.filter(status=NamespaceStatus.RESERVED) if reservation_active(ns)]
    context = {
        "page": page,
        "q": text,
        "answer": answer,
        "sort": sort if sort in SORTS else "snid",
        "reservations": reservations,
    }
    return _public(render(request, "registry/urn/list.html", context), request)


def snid_not_found(request, snid: str, version: int | None = None):
    context = {"snid": snid, "version": version, "suggestions": snid_suggestions(snid)}
    return render(request, "registry/urn/not_found.html", context, status=404)


def _diagrams(proposal: Proposal) -> list[tuple[str, str]]:
    """Railroad diagrams of an approved version, drawn once per grammar text (``diagram_cache``)."""
    return cached_diagrams(proposal.grammar_abnf)


def _examples(proposal: Proposal) -> list[dict]:
    """Each example with what the version's own grammar says of it."""
    validator = None
    if proposal.validator:
        # With its measured cost: a validator not proven cheap runs in the bounded worker.
        cost = ValidatorCost.objects.filter(proposal=proposal).values_list("figures", flat=True).first()
        validator = Validator.from_dict(proposal.validator, cost)
    rows = []
    for kind, urns in (("valid", proposal.examples_valid), ("invalid", proposal.examples_invalid)):
        for urn in urns:
            try:
                errors = validator.check(parse_urn(urn)) if validator else None
            except UrnSyntaxError as exc:
                errors = [exc.message]
            except NotChecked:
                errors = None
            rows.append(
                {
                    "urn": urn,
                    "kind": kind,
                    "checked": errors is not None,
                    "accepted": errors == [] if errors is not None else None,
                }
            )
    return rows


def _example(proposal: Proposal, examples: list[dict], is_current: bool) -> str | None:
    """One valid example to show first: one the lookup accepts (for the current version), or one
    the version's own grammar accepts (for an earlier version)."""
    for row in examples:
        if row["kind"] != "valid" or row["accepted"] is False:
            continue
        if not is_current or lookup_for_snid(row["urn"], proposal.namespace.snid)["valid"]:
            return row["urn"]
    return None


#: Document series a registration may be published in, by the prefix of its reference.
DOCUMENT_SERIES = {"GFD": "Grid Forum Document", "RFC": "Request for Comments", "ID": "Internet-Draft"}


def _document_type(reference: str) -> str:
    """'Grid Forum Document' for 'GFD.191', 'Request for Comments' for 'RFC 4198', else ''."""
    series = reference.replace(".", " ").replace("-", " ").split(" ")[0].strip().upper()
    return DOCUMENT_SERIES.get(series, "")


def _card(namespace: Namespace, proposal: Proposal, examples: list[dict], is_current: bool) -> dict:
    """The facts a reader comes for, at the top of the page (status, version, document, example,
    pattern, equivalence, contact, and the editor's note when failing checks were overridden)."""
    public = proposal.registrant_public()
    return {
        "example": _example(proposal, examples, is_current),
        "pattern": published_pattern(namespace.snid, proposal.validator),
        "document_type": _document_type(proposal.document_reference),
        "equivalence": ["urn:ogf: and the SNID are case-insensitive (RFC 6453)."]
        + [EQUIVALENCE_STEPS[step] for step in proposal.equivalence],
        "contact": public["contact"],
        "contact_is_email": "@" in public["contact"] and " " not in public["contact"].strip(),
        "contact_is_url": public["contact"].startswith(("https://", "http://")),
        "organisation": public["organisation"] or public["name"],
        # Approved over the approval rule (verdicts.approval_blockers): what, and the editor's reason.
        "overridden": overridden_of(proposal),
        "override_reason": proposal.override_reason,
        "public_note": proposal.public_note,
    }


@anonymous_cache(params=("urn",))
def namespace_detail(request, snid, version=None):
    namespace = Namespace.objects.by_snid(snid).select_related("current").first()
    if namespace is None or namespace.status != NamespaceStatus.REGISTERED or not namespace.current_id:
        return snid_not_found(request, snid)
    if namespace.snid != snid:
        args = [namespace.snid] + ([version] if version else [])
        name = "registry:namespace_version" if version else "registry:namespace_detail"
        return redirect(reverse(name, args=args), permanent=True)
    versions = list(namespace.proposals.approved().order_by("version").only("version", "registration_date", "title"))
    if version is None:
        proposal = namespace.current
    else:
        proposal = namespace.proposals.approved().filter(version=version).first()
        if proposal is None:
            return snid_not_found(request, snid, version)
    proposal.namespace = namespace
    if version is None or proposal.pk == namespace.current_id:
        overlay_apply(proposal, overlay_of(namespace))  # administrative changes since approval (in memory only)
    check = None
    if "urn" in request.GET:
        check = _check(request.GET["urn"][:5000], namespace)
    is_current = proposal.pk == namespace.current_id
    resolvers, budget = resolvers_and_budget(namespace) if is_current else ([], None)
    examples = _examples(proposal)
    sections = proposal.sections or {}
    markdown.prerender_page(text for key in PROSE_KEYS if isinstance(text := sections.get(key), str))
    context = {
        "namespace": namespace,
        "proposal": proposal.public_copy(),
        "versions": versions,
        "is_current": is_current,
        "parts": sections_by_part(),
        "diagrams": _diagrams(proposal),
        "examples": examples,
        "steps": [(step, EQUIVALENCE_STEPS[step]) for step in proposal.equivalence],
        "check": check,
        "card": _card(namespace, proposal, examples, is_current),
        "log": version_log_status(namespace.snid, proposal.version),
        "resolvers": resolvers,
        "resolution_budget": budget,
        "resolver_changes": resolver_changes(namespace) if is_current else [],
        "can_change_resolvers": is_current and rules.can_decide_for_snid(request.user, namespace),
        "can_manage": rules.can_see_stewardship(request.user, namespace),
        "life": public_life(namespace),
        "site_url": settings.SITE_URL,  # never the request's host: the page is shared (anonymous_cache)
    }
    return _public(render(request, "registry/urn/detail.html", context), request)


def _check(urn: str, namespace: Namespace | None = None) -> dict:
    urn = urn.strip()
    if namespace is not None:
        return lookup_for_snid(urn, namespace.snid)
    try:
        return lookup_urn(urn)
    except NotAnOgfUrn as exc:
        return refused(urn, str(exc))


@anonymous_cache(params=("urn", "q"))
def urn_search(request):
    """The box on every page: a URN goes to its lookup, anything else searches the registry."""
    query = request.GET.get("q", "").strip()
    if query[:4].lower() == "urn:":
        return redirect(f"{reverse('registry:urn_search')}?{urlencode({'urn': query[:5000]})}")
    urn = request.GET.get("urn", "")[:5000]
    query = search_text(query)  # NUL and control characters never reach the database
    hits = registry_search(query) if query else []
    context = {"urn": urn, "answer": _check(urn) if urn.strip() else None, "q": query, "hits": hits}
    return _public(render(request, "registry/urn/search.html", context), request)


@anonymous_cache(params=("from", "to"))
def namespace_diff(request, snid):
    namespace = Namespace.objects.by_snid(snid).first()
    if namespace is None or namespace.status != NamespaceStatus.REGISTERED:
        return snid_not_found(request, snid)
    # Public copies: a changed registrant shows only what the registrant chose to publish.
    versions = {p.version: p.public_copy() for p in namespace.proposals.approved()}
    latest = max(versions)
    try:
        new = int(request.GET.get("to", latest))
        old = int(request.GET.get("from", max(new - 1, 1)))
    except ValueError:
        new, old = latest, max(latest - 1, 1)
    if old not in versions or new not in versions:
        return snid_not_found(request, snid, old if old not in versions else new)
    context = {
        "namespace": namespace,
        "old": versions[old],
        "new": versions[new],
        "versions": sorted(versions),
        "diff": proposal_diff(versions[old], versions[new]),
    }
    return _public(render(request, "registry/urn/diff.html", context), request)


# --- machine-readable exports ------------------------------------------------------------------


def _registry_changed(request):
    """The registry's last change, read once per request (the validators and the export share it)."""
    if not hasattr(request, "_registry_changed"):
        request._registry_changed = exports.last_modified()
    return request._registry_changed


def _export_etag(request, fmt):
    changed = _registry_changed(request)
    count = Namespace.objects.count()
    return f"{fmt}-{count}-{changed.timestamp() if changed else 0}"


def _export_last_modified(request, fmt=None):
    return _registry_changed(request)


@condition(etag_func=_export_etag, last_modified_func=_export_last_modified)
@anonymous_cache(etag=False)
def registry_export(request, fmt):
    render_as, content_type = exports.FORMATS[fmt]
    base = settings.SITE_URL  # never the request's Host: the answer is cached and shared
    snapshot = exports.registry_snapshot(base, updated=_registry_changed(request))
    response = HttpResponse(render_as(snapshot), content_type=content_type)
    if fmt == "csv":
        response["Content-Disposition"] = 'inline; filename="urn-ogf-registry.csv"'
    patch_cache_control(response, public=True, max_age=300)
    return response


@condition(etag_func=lambda request: _export_etag(request, "full"), last_modified_func=_export_last_modified)
@anonymous_cache(etag=False)
def registry_full_export(request):
    """Every approved version, resolver, steward and deprecation: what the transparency log holds, as the
    site publishes it now (``exports_full``), for mirrors that check the log (``registry.verify``)."""
    from ..exports_full import full_document

    response = HttpResponse(
        orjson.dumps(full_document(updated=_registry_changed(request))), content_type="application/json"
    )
    patch_cache_control(response, public=True, max_age=300)
    return response


class RegistryFeed(Feed):
    """Registrations and new versions, newest first."""

    feed_type = Atom1Feed
    title = "urn:ogf registry: registrations and new versions"
    subtitle = "Subnamespace identifiers approved under GFD.191"

    # Absolute links from settings.SITE_URL, never from the request's Host.
    def link(self):
        return settings.SITE_URL + reverse("registry:namespace_list")

    def feed_url(self):
        return settings.SITE_URL + reverse("registry:feed")

    def items(self):
        versions = list(
            Proposal.objects.approved()
            .select_related("namespace")
            .order_by("-decided_at", "-id")
            .only("namespace__snid", "version", "title", "document_reference", "decided_at")[:50]
        )
        # Public changes after approval (deprecations, contact changes, stewards) are news too.
        changes = list(public_changes()[:50])
        return sorted(versions + changes, key=_feed_date, reverse=True)[:50]

    def item_title(self, item):
        if isinstance(item, StewardshipEvent):
            return f"urn:ogf:{item.namespace.snid}: {item.summary}"
        what = "registered" if item.version == 1 else f"version {item.version}"
        return f"urn:ogf:{item.namespace.snid}: {what} — {item.title}"

    def item_description(self, item):
        if isinstance(item, StewardshipEvent):
            return (
                f"{item.summary} {item.reason}".strip() if item.kind in ("deprecated", "undeprecated") else item.summary
            )
        document = f" Registered by {item.document_reference}." if item.document_reference else ""
        return f"{item.title}.{document}"

    def item_link(self, item):
        if isinstance(item, StewardshipEvent):
            return settings.SITE_URL + reverse("registry:namespace_detail", args=[item.namespace.snid])
        return settings.SITE_URL + reverse("registry:namespace_version", args=[item.namespace.snid, item.version])

    def item_guid(self, item):
        if isinstance(item, StewardshipEvent):
            return f"{self.item_link(item)}#change-{item.pk}"
        return self.item_link(item)

    def item_categories(self, item):
        return [item.kind] if isinstance(item, StewardshipEvent) else []

    def item_pubdate(self, item):
        return _feed_date(item)

    def item_updateddate(self, item):
        return _feed_date(item)


def _feed_date(item):
    return item.created_at if isinstance(item, StewardshipEvent) else item.decided_at


@anonymous_cache
def registry_feed(request):
    """The Atom feed, cached and validated like the pages."""
    return _public(RegistryFeed()(request), request)


def namespace_document(request, snid, version, fmt):
    """An approved version as a GFD.191 registration document."""
    from .proposals import document_response

    namespace = Namespace.objects.by_snid(snid).first()
    proposal = namespace.proposals.approved().filter(version=version).first() if namespace else None
    if proposal is None:
        return snid_not_found(request, snid, version)
    # The current version's document says what its page says: the details in force (a contact changed at a
    # steward's request since approval), which resolvers are in force and how they fare.
    status = None
    if proposal.pk == namespace.current_id:
        proposal.namespace = namespace
        overlay_apply(proposal, overlay_of(namespace))
        status = resolver_status(namespace)
    return document_response(proposal.public_copy(), fmt, resolver_status=status)


def favicon(request):
    """Browsers ask for /favicon.ico whatever the page says; send them to the static icon."""
    return redirect(static("registry/favicon.svg"), permanent=True)
