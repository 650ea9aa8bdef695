"""What the registry answers for a URN: a redirect to a resolver, or a landing page.

Like the lookup (registry.lookup), the warm path runs no query: the lookup index says
whether the URN is registered and valid, and each SNID's resolvers are read once per
registry stamp (one small query) into ``_plans``. Resolver changes and health
transitions move the stamp, so a down resolver is skipped everywhere within a second.

RFC 8141 components: ``?+`` (r-component) is passed on to the resolver as the query
parameter ``urn-r``, ``?=`` (q-component) is kept as the target URL's query, and a
``#`` fragment is left to the client: it is not part of what is resolved, and is handed
back on the target URL for the client to apply. Components are checked against RFC
8141's syntax first, so nothing but URL characters can reach a ``Location`` header.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from ..grammar import URN_MAX_LENGTH
from ..lookup import Index, NotAnOgfUrn, lookup_urn, registry_index
from ..resolving.cost import ResolutionCost
from ..resolving.expand import ExpandError, percent_encode, url_bounded, urls_for, urls_grouped
from .budget import budget_ms, clearly_over, predicted_ms
from .models import Resolver, ResolverStatus


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    template: str
    returns: str
    media_types: tuple[str, ...]
    primary: bool
    program: dict | None
    status: str
    cost: dict | None = None  # what resolving one URN with the SNID's set was measured to cost


@dataclass(slots=True)
class Components:
    assigned: str
    r: str = ""
    q: str = ""
    f: str = ""

    def as_dict(self) -> dict:
        return {"r": self.r or None, "q": self.q or None, "f": self.f or None}


@dataclass(slots=True)
class Outcome:
    """``kind``: redirect | landing | invalid | unknown | not-urn."""

    kind: str
    status: int
    answer: dict
    location: str = ""
    negotiated: bool = False
    targets: list = field(default_factory=list)


class Targets(list):
    """An SNID's current resolvers, and whether resolving with them may run in a web thread."""

    proven = True


_plans: dict = {"index": None, "by_snid": {}}
_plans_lock = threading.Lock()


def targets_for(snid_key: str, index: Index) -> list[Target]:
    """The SNID's current resolvers, read once per registry stamp."""
    with _plans_lock:
        if _plans["index"] is not index:
            _plans["index"], _plans["by_snid"] = index, {}
        found = _plans["by_snid"].get(snid_key)
    if found is not None:
        return found
    rows = (
        Resolver.objects.current()
        .filter(namespace__snid__lower=snid_key)
        .values_list("name", "template", "returns", "media_types", "primary", "program", "status", "cost")
    )
    found = Targets(Target(n, t, r, tuple(m or ()), p, prog, s, c) for n, t, r, m, p, prog, s, c in rows)
    found.proven = _proven(found) or _measured_on_first_use(snid_key, found)
    with _plans_lock:
        if _plans["index"] is index:
            _plans["by_snid"][snid_key] = found
    return found


def split_components(text: str) -> Components:
    """The assigned name and its RFC 8141 r-, q- and f-components."""
    text, _, fragment = text.partition("#")
    parts = Components(text, f=fragment)
    starts = [i for i in (text.find("?+"), text.find("?=")) if i != -1]
    if not starts:
        return parts
    parts.assigned = text[: min(starts)]
    rest = text[min(starts) :]
    if rest.startswith("?+"):
        r, _, q = rest[2:].partition("?=")
        parts.r, parts.q = r, q
    else:
        parts.q = rest[2:]
    return parts


#: What RFC 8141 allows in r-, q- and f-components besides %XX escapes: pchar, "/" and "?".
_COMPONENT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?")
_HEX = frozenset("0123456789ABCDEFabcdef")
_COMPONENT_NAMES = {"r": "r-component (?+)", "q": "q-component (?=)", "f": "fragment (#)"}


def component_error(text: str, parts: Components) -> str:
    """Why a component of ``text`` is not RFC 8141 syntax (naming the character), or ""."""
    for key in ("r", "q", "f"):
        value = getattr(parts, key)
        if not value:
            continue
        start = text.rfind("#" + value) + 1 if key == "f" else text.find(("?+" if key == "r" else "?=") + value) + 2
        for index, char in enumerate(value):
            if char in _COMPONENT_CHARS or (
                char == "%" and value[index + 1 : index + 2] in _HEX and value[index + 2 : index + 3] in _HEX
            ):
                continue
            shown = {
                "\r": "a carriage return",
                "\n": "a line feed",
                "\t": "a tab",
                " ": "a space",
                "%": "a '%' that starts no %XX escape",
                "#": "a second '#'",
            }.get(char, repr(char))
            return (
                f"Character {start + index + 1} of the URN is {shown}, which cannot stand in its "
                f"{_COMPONENT_NAMES[key]} (RFC 8141 §2: letters, digits, -._~!$&'()*+,;=:@/? and %XX "
                "escapes); percent-encode it."
            )
    return ""


def _accepted(accept: str) -> list[str]:
    """Media ranges of an Accept header, most preferred first (q=0 left out)."""
    ranges = []
    for position, item in enumerate(accept.split(",")[:32]):
        media, *params = [p.strip() for p in item.split(";")]
        quality = 1.0
        for param in params:
            if param.startswith("q="):
                try:
                    quality = float(param[2:])
                except ValueError:
                    quality = 0.0
        if media and quality > 0:
            ranges.append((-quality, position, media.lower()))
    return [media for _, _, media in sorted(ranges)]


def _negotiate(targets: list[Target], accept: str) -> Target | None:
    for media in _accepted(accept):
        if media in ("*/*", "text/html"):
            return None  # the primary
        for target in targets:
            for declared in target.media_types:
                if declared == media or (media.endswith("/*") and declared.startswith(media[:-1])):
                    return target
    return None


def _with_components(url: str, parts: Components) -> str:
    extra = []
    if parts.q:
        extra.append(parts.q)
    if parts.r:
        extra.append("urn-r=" + percent_encode(parts.r))
    if not extra and not parts.f:
        return url
    base, _, fragment = url.partition("#")
    if extra:
        base += ("&" if "?" in base else "?") + "&".join(extra)
    fragment = fragment or parts.f  # the template's own fragment, else the URN's, for the client
    return url_bounded(base + ("#" + fragment if fragment else ""))


def resolve(
    text: str, *, provider: str = "", accept: str = "", index: Index | None = None, slow: Callable | None = None
) -> Outcome:
    """The answer for ``text``. ``slow``: how to fill the templates of a resolver set not proven
    within the resolution budget (``urls_bounded``: a bounded job); without it their rule
    placeholders are not filled (those resolvers say why, and the landing page answers)."""
    parts = split_components(text)
    problem = ""
    if len(text) > URN_MAX_LENGTH:
        problem = f"The URN is {len(text):,} characters long; the limit is {URN_MAX_LENGTH:,}."
    elif parts.r or parts.q or parts.f:
        problem = component_error(text, parts)
    if problem:
        return Outcome("not-urn", 400, {"urn": text[:200], "valid": False, "errors": [problem]})
    try:
        answer = lookup_urn(parts.assigned, index)
    except NotAnOgfUrn as exc:
        return Outcome("not-urn", 400, {"urn": text[:200], "valid": False, "errors": [str(exc)]})
    answer = {**answer, "components": parts.as_dict()}
    if not answer["registered"]:
        return Outcome("unknown", 404, answer)
    if not answer["valid"]:
        return Outcome("invalid", 404, answer)
    index = index or registry_index()
    targets = targets_for(answer["snid"].lower(), index)
    normalized = answer["normalized"]
    nss = normalized.split(":", 3)[3]
    urls = []
    for target, (url, problem) in zip(targets, _filled(targets, normalized, nss, slow), strict=True):
        if url:
            try:
                url = _with_components(url, parts)
            except ExpandError as exc:
                url, problem = None, str(exc)
        urls.append((target, url or None, problem))
    answer["resolvers"] = [
        {
            "name": t.name,
            "url": url,
            "status": t.status,
            "primary": t.primary,
            "returns": t.returns,
            "media_types": list(t.media_types),
            **({"problem": problem} if problem else {}),
        }
        for t, url, problem in urls
    ]
    if provider:
        chosen = [(t, url) for t, url, _ in urls if t.name.lower() == provider.lower()]
        if not chosen:
            answer["errors"] = [f"urn:ogf:{answer['snid']}: has no resolver named {provider[:60]!r}."]
            return Outcome("landing", 404, answer, targets=urls)
        if chosen[0][1] is None:
            return Outcome("landing", 200, answer, targets=urls)
        return Outcome("redirect", 302, answer, location=chosen[0][1], targets=urls)
    usable = [(t, url) for t, url, _ in urls if url and t.status != ResolverStatus.DOWN]
    if not usable:
        return Outcome("landing", 200, answer, targets=urls)
    negotiated = any(t.media_types for t, _ in usable)
    chosen = _negotiate([t for t, _ in usable], accept) if negotiated else None
    if chosen is None:
        chosen = next((t for t, _ in usable if t.primary), usable[0][0])
    location = next(url for t, url in usable if t is chosen)
    return Outcome(
        "redirect", 303 if negotiated else 302, answer, location=location, negotiated=negotiated, targets=urls
    )


def targets_loaded(snid_key: str, index: Index) -> bool:
    """Whether ``targets_for`` would answer without a query, for a set proven within the budget
    (only such a set is resolved where the answer must come at once: the WSGI fast path)."""
    if _plans["index"] is not index:
        return False
    found = _plans["by_snid"].get(snid_key)
    return found is not None and found.proven


def _proven(targets: list[Target]) -> bool:
    """Whether resolving a URN with ``targets`` may run in a web thread: no rule to capture
    (filling {nss} is bounded by the code), or a capture measured within the budget."""
    programs = [t for t in targets if t.program]
    if not programs:
        return True
    cost = ResolutionCost.from_dict(programs[0].cost)
    return cost is not None and cost.cheap and all(t.cost == programs[0].cost for t in programs)


#: Verdicts on resolver sets stored before their cost was measured, measured once in this process
#: (by the programs they hold, so a new stamp does not measure them again).
_first_use: dict[tuple, bool] = {}


def _measured_on_first_use(snid_key: str, targets: list[Target]) -> bool:
    """For rows stored before the measurement (no figure): measure the set now, in the bounded
    worker as the review does, and trust it in this process if within the budget (nothing is
    stored: a GET changes nothing; ``manage.py measure_validators`` stores the figure)."""
    if not any(t.program for t in targets) or any(t.cost is not None for t in targets):
        return False  # nothing to capture, or measured already (and over the budget)
    key = (
        snid_key,
        tuple(sorted({t.program["pattern"] for t in targets if t.program})),
        tuple(t.template for t in targets),
    )
    if key in _first_use:
        return _first_use[key]
    from ..grammar import grammar_compile
    from ..models import Namespace
    from ..resolving.review import resolvers_review

    current = Namespace.objects.filter(snid__lower=snid_key).select_related("current").first()
    proposal = current.current if current is not None else None
    if proposal is None or not proposal.grammar_abnf.strip():
        return False
    compiled = grammar_compile(
        proposal.grammar_abnf,
        proposal.grammar_rule,
        examples=tuple(dict.fromkeys([*proposal.examples_valid, *proposal.examples_invalid])),
    )
    report = resolvers_review(
        compiled,
        [{"name": t.name, "template": t.template} for t in targets],
        proposal.examples_valid[:1],
        proposal.equivalence,
        snid=proposal.snid,
    )
    cost = ResolutionCost.from_dict(report.cost)
    verdict = not report.not_run and cost is not None and cost.cheap
    if not report.fault:
        _first_use[key] = verdict
    return verdict


#: Why a rule placeholder was not filled for a set that is not proven cheap, when it was not
#: given to a bounded job (the WSGI fast path never does; it leaves such a URN to Django).
NOT_FILLED = (
    "This SNID's resolvers cost more to fill than the registry's budget per URN (an editor "
    "approved them over that check), so the values of their rule placeholders are not worked "
    "out here."
)


def _filled(targets: list[Target], normalized: str, nss: str, slow) -> list[tuple[str, str]]:
    """(url, problem) of every target: in this thread for a proven set; else ``slow`` does it
    (a bounded job), or the templates that name rules are left unfilled."""
    if not targets:
        return []
    pairs = [(t.template, t.program) for t in targets]
    if targets.proven if isinstance(targets, Targets) else _proven(targets):
        return urls_grouped(pairs, normalized, nss)
    unfilled = NOT_FILLED
    if slow is not None:
        cost = ResolutionCost.from_dict(next((t.cost for t in targets if t.program), None))
        if not clearly_over(cost, len(normalized)):
            return slow(pairs, normalized, nss)
        unfilled = over_budget_reason(cost, len(normalized))
    return [urls_for([t.template], None, normalized, nss)[0] if not t.program else ("", unfilled) for t in targets]


def over_budget_reason(cost: ResolutionCost, length: int) -> str:
    """Why a rule placeholder was not filled for a URN the review's figure puts far over the budget."""
    return (
        f"Working out the values of this resolver's placeholders for a URN of {length:,} characters would cost "
        f"about {predicted_ms(cost, length):,.0f} ms of CPU time by the figure the review measured, more than the "
        f"{budget_ms():g} ms the registry gives one URN of this SNID (its resolvers were approved over the "
        "registry's budget), so it is not tried."
    )
