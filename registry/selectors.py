"""Reads: the queries pages, the API, commands and services share."""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass

from django.db import connection
from django.db.models import F, Max, OuterRef, Q, Subquery, TextField
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Lower
from django.utils import timezone

from .checklist import DRAFT, FAIL, SUBMITTED, Context, Finding, RegistryFacts, run_checklist
from .checklist.registration import snid_unique
from .enums import NamespaceStatus, ProposalKind, ProposalState
from .gfd191 import PROSE_KEYS, SECTIONS_BY_KEY
from .interchange import ProposalData
from .models import Namespace, Proposal, ValidatorCost
from .stewardship.models import deprecated_in_force
from .stewardship.selectors import current_with_overlay

#: Longest search text any search box uses.
SEARCH_MAX_CHARS = 200


def search_text(raw: str | None) -> str:
    """Search-box input the database accepts: NUL (refused by PostgreSQL) and other control
    characters become spaces, ends trimmed, at most SEARCH_MAX_CHARS characters."""
    text = "".join(
        " " if ord(c) < 0x20 or ord(c) == 0x7F or 0xD800 <= ord(c) <= 0xDFFF else c
        for c in (raw or "")[: SEARCH_MAX_CHARS * 2]
    )
    return " ".join(text.split())[:SEARCH_MAX_CHARS]


def namespace_get(snid: str) -> Namespace | None:
    return Namespace.objects.by_snid(snid).select_related("current").first()


def reservation_active(namespace: Namespace, today=None) -> bool:
    today = today or timezone.localdate()
    return namespace.status == NamespaceStatus.RESERVED and (
        namespace.reserved_until is None or namespace.reserved_until >= today
    )


def latest_version(namespace: Namespace | None, exclude_pk: int | None = None) -> int | None:
    if namespace is None:
        return None
    approved = namespace.proposals.approved()
    if exclude_pk is not None:
        approved = approved.exclude(pk=exclude_pk)
    return approved.aggregate(latest=Max("version"))["latest"]


def registry_facts(snid: str, submitter_id: int | None = None, exclude_pk: int | None = None) -> RegistryFacts:
    """What the checklist needs to know about ``snid``, as it stood before the proposal
    ``exclude_pk`` (so an approved proposal is not compared with its own registration)."""
    namespace = namespace_get(snid) if snid else None
    if namespace is None:
        return RegistryFacts()
    if namespace.status == NamespaceStatus.REGISTERED:
        latest = latest_version(namespace, exclude_pk)
        if latest is None:
            return RegistryFacts()  # registered by the proposal being checked
        own = submitter_id is not None and namespace.stewards.filter(user_id=submitter_id, state="active").exists()
        return RegistryFacts(
            registered=True,
            latest_version=latest,
            own_namespace=own,
            submitter_known=submitter_id is not None,
            deprecated=namespace.deprecations.in_force().exists(),
        )
    if reservation_active(namespace):
        return RegistryFacts(
            reserved=True,
            reserved_for_applicant=submitter_id is not None and namespace.reserved_for_id == submitter_id,
            reserved_until=namespace.reserved_until.isoformat() if namespace.reserved_until else None,
        )
    return RegistryFacts()


def snid_refusal(snid: str, submitter_id: int | None) -> str | None:
    """Why ``snid`` cannot be proposed by ``submitter_id`` at all — deprecated, registered to someone
    else, reserved for someone else — in the checklist's own words (its "SNID free to register"
    check), or None. A new proposal is refused with this before any draft exists."""
    facts = registry_facts(snid, submitter_id)
    if not (facts.registered or facts.reserved):
        return None
    findings = snid_unique(Context(data=ProposalData(snid=snid), facts=facts))
    return next((f.message for f in findings if f.status == FAIL), None)


def checklist_stage(proposal: Proposal) -> str:
    """A proposal its applicant is still writing is checked as a draft (unwritten is "to do")."""
    return DRAFT if proposal.state in (ProposalState.DRAFT, ProposalState.CHANGES_REQUESTED) else SUBMITTED


def proposal_findings(
    proposal: Proposal, data: ProposalData | None = None, *, stage: str | None = None
) -> list[Finding]:
    """The checklist on ``proposal`` (or on ``data`` typed into its form), live, against the
    registry as it stands without the proposal itself (an approved proposal is not compared
    with its own registration)."""
    data = data if data is not None else proposal.to_data()
    facts = registry_facts(data.snid, proposal.submitter_id, exclude_pk=proposal.pk)
    return run_checklist(data, facts, stage=stage or checklist_stage(proposal))


def data_findings(data: ProposalData, submitter_id: int | None = None, *, stage: str = SUBMITTED) -> list[Finding]:
    return run_checklist(data, registry_facts(data.snid, submitter_id), stage=stage)


def proposals_for(user):
    return Proposal.objects.filter(submitter=user).select_related("namespace")


def slow_validators():
    """The current versions whose validator was last measured over the matching budget (editors' dashboard)."""
    return list(
        ValidatorCost.objects.filter(slow=True, proposal__namespace__current=F("proposal"))
        .select_related("proposal")
        .only("figures", "measured_at", "proposal__snid", "proposal__version")
        .order_by("proposal__snid")[:50]
    )


def pending_proposals():
    return (
        Proposal.objects.filter(state=ProposalState.SUBMITTED)
        .select_related("submitter", "namespace")
        .order_by("submitted_at", "id")
    )


def snid_suggestions(snid: str, limit: int = 5) -> list[str]:
    """Registered SNIDs close to ``snid`` (for helpful 404s); never sends ``snid`` to the database."""
    registered = {s.lower(): s for s in Namespace.objects.registered().values_list("snid", flat=True)}
    close = difflib.get_close_matches(snid.lower(), list(registered), n=limit, cutoff=0.6)
    return [registered[c] for c in close]


def with_registration_kind(proposals):
    """Annotate what the registry already holds under each proposal's SNID, in the same query.

    ``registered_namespace_id`` / ``registered_current_id``: the registered namespace of that
    SNID (compared case-insensitively) and its current version, or None. With the proposal's
    own ``namespace_id`` this tells a new SNID from a new version and from a duplicate
    (see ``registration_kind``).
    """
    registered = Namespace.objects.filter(snid__lower=Lower(OuterRef("snid")), status=NamespaceStatus.REGISTERED)
    return proposals.annotate(
        registered_namespace_id=Subquery(registered.values("id")[:1]),
        registered_current_id=Subquery(registered.values("current_id")[:1]),
    )


def registration_kind(proposal) -> str:
    """ "new", "version" or "duplicate".

    What a proposal asks for is fixed at its first submission (``Proposal.kind``); a later
    registration (of its SNID by someone else, or of a later version) never changes it. Only a
    proposal still in review can turn out a duplicate: its SNID registered meanwhile to another
    (from the annotations of ``with_registration_kind``). A proposal from before the kind was kept
    is a new version when it proposes version 2 or later of an SNID it belongs to."""
    namespace_id = getattr(proposal, "registered_namespace_id", None)
    if proposal.state != ProposalState.APPROVED and namespace_id is not None and proposal.namespace_id != namespace_id:
        return "duplicate"
    if proposal.kind:
        return "version" if proposal.kind == ProposalKind.NEW_VERSION else "new"
    return "version" if proposal.namespace_id and proposal.version > 1 else "new"


# --- search over the registry ------------------------------------------------------------------

SEARCH_LIMIT = 50
SNIPPET_CHARS = 220
_WORD = re.compile(r"[\w-]+", re.UNICODE)


@dataclass(slots=True)
class SearchHit:
    namespace: Namespace
    score: float
    #: The section the snippet comes from ("" when the SNID or title matched), and the
    #: snippet as (text, highlighted) pieces, so a page can mark them up safely.
    section: str
    pieces: list[tuple[str, bool]]

    @property
    def snippet(self) -> str:
        return "".join(text for text, _ in self.pieces)


def search_terms(text: str) -> list[str]:
    return list(dict.fromkeys(word.lower() for word in _WORD.findall(text[:200])))[:12]


_MARKUP = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|`+|\*\*?|^#+\s*|^>\s*", re.MULTILINE)


def _plain(markdown: str) -> str:
    """Markdown as the words a reader sees, for snippets: links become their text, markers go."""
    return _MARKUP.sub(lambda match: match.group(1) or "", markdown)


def _searchable(proposal: Proposal) -> list[tuple[str, str]]:
    """(section heading, text) of what search reads: title and prose sections, never the registrant."""
    out = [("", proposal.title)]
    for key in PROSE_KEYS:
        value = (proposal.sections or {}).get(key)
        if value:
            out.append((SECTIONS_BY_KEY[key].heading, _plain(value)))
    return out


def _term_pattern(terms: list[str]) -> re.Pattern:
    """Words starting with a term (or its stem, so "registries" finds "registry")."""
    stems = sorted({t[: max(4, len(t) - 3)] if len(t) > 5 else t for t in terms}, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(s) for s in stems) + r")[\w-]*", re.IGNORECASE)


def _snippet(proposal: Proposal, terms: list[str]) -> tuple[str, list[tuple[str, bool]]]:
    pattern = _term_pattern(terms)
    best = None
    for heading, text in _searchable(proposal)[1:]:
        matches = list(pattern.finditer(text))
        if matches and (best is None or len(matches) > best[2]):
            best = (heading, text, len(matches), matches[0].start())
    if best is None:
        return "", []
    heading, text, _, first = best
    start = max(0, first - SNIPPET_CHARS // 3)
    start = text.rfind(" ", 0, start) + 1 if start else 0
    window = " ".join(text[start : start + SNIPPET_CHARS].split())
    pieces, last = [], 0
    for match in pattern.finditer(window):
        pieces += [(window[last : match.start()], False), (match.group(), True)]
        last = match.end()
    pieces.append((window[last:], False))
    if start:
        pieces.insert(0, ("… ", False))
    if start + SNIPPET_CHARS < len(text):
        pieces.append((" …", False))
    return heading, [piece for piece in pieces if piece[0]]


def _score(namespace: Namespace, terms: list[str], pattern_of: dict[str, re.Pattern]) -> float:
    """The fallback ranking (SQLite): every term must occur; SNID > title > section text."""
    snid, title = namespace.snid.lower(), namespace.current.title.lower()
    body = " ".join(text for _, text in _searchable(namespace.current)[1:]).lower()
    score = 0.0
    for term in terms:
        in_body = len(pattern_of[term].findall(body))
        found = (
            (10.0 if snid == term else 5.0 if term in snid else 0.0)
            + (3.0 if pattern_of[term].search(title) else 0.0)
            + min(in_body, 10) * 0.5
        )
        if not found:
            return 0.0
        score += found
    return score


def registry_search(text: str, limit: int = SEARCH_LIMIT) -> list[SearchHit]:
    """Registered SNIDs matching ``text`` in their SNID, title or section text, best first.

    PostgreSQL ranks with its full-text search (English stemming, SNID and title
    weighted above the sections); elsewhere the candidates are found with
    case-insensitive matching and ranked by the same preference in Python.
    Registrant details are never searched: they may be private.
    """
    if text[:8].lower() == "urn:ogf:":  # a URN finds the SNID it belongs to
        text = text[8:].split(":", 1)[0]
    terms = search_terms(text)
    if not terms:
        return []
    base = (
        Namespace.objects.registered()
        .filter(current__isnull=False)
        .select_related("current")
        .annotate(deprecated=deprecated_in_force())
    )
    if connection.vendor == "postgresql":
        ranked = _postgres_ranked(base, text, terms, limit)
    else:
        candidates = Q()
        for term in terms:
            stem = term[: max(4, len(term) - 3)] if len(term) > 5 else term
            # The JSON text escapes non-ASCII letters (\u00e4), so look for the escaped form too.
            candidates &= (
                Q(snid__icontains=term)
                | Q(current__title__icontains=stem)
                | Q(sections_text__icontains=stem)
                | Q(sections_text__icontains=json.dumps(stem)[1:-1])
            )
        rows = base.annotate(sections_text=Cast("current__sections", TextField())).filter(candidates)
        pattern_of = {term: _term_pattern([term]) for term in terms}
        scored = [(namespace, _score(namespace, terms, pattern_of)) for namespace in rows]
        ranked = sorted(((ns, s) for ns, s in scored if s > 0), key=lambda item: (-item[1], item[0].snid))
        ranked = ranked[:limit]
    return [SearchHit(namespace, score, *_snippet(namespace.current, terms)) for namespace, score in ranked]


def _postgres_ranked(base, text: str, terms: list[str], limit: int) -> list[tuple[Namespace, float]]:
    from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector

    vector = (
        SearchVector("snid", weight="A", config="simple")
        + SearchVector("current__title", weight="A", config="english")
        + SearchVector(
            *[KeyTextTransform(key, "current__sections") for key in PROSE_KEYS], weight="B", config="english"
        )
    )
    query = SearchQuery(" ".join(terms), search_type="plain", config="english") | SearchQuery(
        " ".join(terms), search_type="plain", config="simple"
    )
    snid_match = Q()
    for term in terms:
        snid_match |= Q(snid__iexact=term)
    rows = (
        base.annotate(rank=SearchRank(vector, query))
        .annotate(document=vector)
        .filter(Q(document=query) | snid_match)
        .order_by("-rank", "snid")[:limit]
    )
    return [
        (namespace, float(namespace.rank) + (1.0 if namespace.snid.lower() in terms else 0.0)) for namespace in rows
    ]


def next_version_data(namespace):
    """Where a new version of ``namespace`` starts: the current version as it stands today — with the
    approved administrative changes (contact, registrant) and the resolvers in force — numbered next.
    Starting from the approved record alone would quietly undo those changes at the next approval."""
    from .resolution.models import Resolver

    current = current_with_overlay(namespace)
    data = current.to_data()
    data.resolvers = [r.as_data() for r in Resolver.objects.current().filter(namespace=namespace).order_by("id")]
    data.version = current.version + 1
    data.registration_date = None
    return data
