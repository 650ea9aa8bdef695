"""Reads of an SNID's life after approval, for pages, the API, exports and the lookup."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q

from ..accounts.lookalike import mixed_scripts, scripts
from .changes import OVERLAY_FIELDS, overlay_of
from .models import (
    SHOWN_IN_PUBLIC,
    ChangeRequest,
    ChangeState,
    Deprecation,
    Steward,
    StewardshipEvent,
    StewardshipEventKind,
    StewardState,
)


def overlay_apply(proposal, values: dict):
    """``proposal`` (the SNID's current version, in memory only) with the overlay's values in force.

    Approved versions refuse saves, so the record itself can never take these values.
    """
    for name, value in values.items():
        if name in OVERLAY_FIELDS:
            setattr(proposal, name, value)
    return proposal


def current_with_overlay(namespace):
    """The namespace's current version as the public sees it today."""
    proposal = namespace.current
    if proposal is None:
        return None
    return overlay_apply(proposal, overlay_of(namespace))


def snids_stewarded_by(user) -> list[str]:
    """The registered SNIDs ``user`` is an active steward of (``rules.is_steward``): those they may revise."""
    return sorted(
        Steward.objects.filter(
            user_id=user.pk, state=StewardState.ACTIVE, namespace__status="registered", namespace__current__isnull=False
        ).values_list("namespace__snid", flat=True)
    )


def deprecation_of(namespace) -> Deprecation | None:
    return Deprecation.objects.of(namespace)


#: Links followed at most along a chain of successors: a cycle is refused when a deprecation is written
#: (``deprecation.deprecation_check``), and this bounds any read whatever the table holds.
CHAIN_MAX = 32


def successors_in_force() -> dict[str, str | None]:
    """Every deprecation in force as {deprecated SNID: its successor SNID, or None}, in one query."""
    return dict(Deprecation.objects.in_force().values_list("namespace__snid", "successor__snid"))


def chain_from(successor: str | None, successors: dict[str, str | None]) -> list[str]:
    """The chain of successors from ``successor`` on: ``[B]`` while B is current, ``[B, C]`` once B is itself
    deprecated in favour of C. The last is the live end, unless it is deprecated with no successor named
    (``successors`` says so)."""
    chain: list[str] = []
    while successor and successor not in chain and len(chain) < CHAIN_MAX:
        chain.append(successor)
        successor = successors.get(successor)
    return chain


@dataclass(frozen=True)
class Chain:
    """A deprecated SNID's successors, nearest first, as every page, mail and answer names them."""

    snids: tuple[str, ...]
    #: The last is itself deprecated and names no successor: the chain has no live end.
    dead_end: bool = False

    @property
    def live(self) -> str | None:
        """The SNID new identifiers should use: the live end of the chain (None if it has none)."""
        return self.snids[-1] if self.snids and not self.dead_end else None

    def __bool__(self) -> bool:
        return bool(self.snids)

    def __str__(self) -> str:
        """'superseded by urn:ogf:b:, itself superseded by urn:ogf:c:' (one sentence everywhere)."""
        if not self.snids:
            return ""
        words = [f"superseded by urn:ogf:{self.snids[0]}:"] + [
            f"itself superseded by urn:ogf:{s}:" for s in self.snids[1:]
        ]
        if self.dead_end:
            words.append("itself deprecated with no successor named")
        return ", ".join(words)


def successor_chain(namespace, successors: dict[str, str | None] | None = None) -> Chain:
    """The chain of successors of a deprecated SNID (empty if it is current or names none)."""
    successors = successors_in_force() if successors is None else successors
    return chain_of(successors.get(namespace.snid), successors)


def chain_of(successor: str | None, successors: dict[str, str | None]) -> Chain:
    snids = chain_from(successor, successors)
    return Chain(tuple(snids), bool(snids) and snids[-1] in successors)


def predecessors_of(namespace, successors: dict[str, str | None] | None = None) -> list[str]:
    """The deprecated SNIDs whose chain of successors passes through ``namespace``, nearest first: those
    that name it as their successor, then those that name one of them, and so on."""
    successors = successors_in_force() if successors is None else successors
    found = [snid for snid in successors if namespace.snid in chain_from(successors[snid], successors)]
    return sorted(found, key=lambda snid: (chain_from(successors[snid], successors).index(namespace.snid), snid))


def public_history(namespace) -> list[StewardshipEvent]:
    return list(namespace.stewardship_events.filter(SHOWN_IN_PUBLIC).order_by("created_at", "id"))


def full_history(namespace) -> list[StewardshipEvent]:
    return list(namespace.stewardship_events.select_related("actor").order_by("created_at", "id"))


def stewards_active(namespace) -> list[Steward]:
    return list(Steward.objects.filter(namespace=namespace, state=StewardState.ACTIVE).select_related("user"))


def stewards_invited(namespace) -> list[Steward]:
    return list(
        Steward.objects.filter(namespace=namespace, state=StewardState.INVITED).select_related("user", "invited_by")
    )


def change_requests_pending(namespace=None):
    requests = ChangeRequest.objects.filter(state=ChangeState.PENDING).select_related("namespace", "requested_by")
    return requests.filter(namespace=namespace) if namespace is not None else requests


def invitations_pending():
    return Steward.objects.filter(state=StewardState.INVITED).select_related("namespace", "user", "invited_by")


def snids_without_steward():
    """Registered SNIDs none of whose stewards can still sign in: editors are told about these."""
    live = Steward.objects.filter(namespace_id=OuterRef("pk"), state=StewardState.ACTIVE, user__is_active=True)
    from ..models import Namespace

    return Namespace.objects.registered().filter(current__isnull=False).filter(~Q(Exists(live))).order_by("snid")


#: How public pages and the transparency log name a steward who chose no public name.
UNNAMED = "a steward without a public name"


def account_closed(user) -> bool:
    """Whether the owner closed the account (registry.people); an active account is not (no query)."""
    if user.is_active:
        return False
    account = getattr(user, "account", None)
    return bool(account and account.closed_at)


def public_name(user) -> str:
    """The name a person chose to be shown under in public ("" if none): never the login name."""
    return (user.get_full_name() or "").strip() if user is not None else ""


def logged_name(user) -> str:
    """How the transparency log and registry-full.json name a steward: the name they chose, else UNNAMED;
    never the login name (the verifier compares the two, so they are made here alone)."""
    return public_name(user) or UNNAMED


def person(user) -> str:
    """A person as editors and stewards see them: the chosen name with the user name, or the user name; a
    closed account by its public name alone; a name mixing scripts (``аlice``) with a warning."""
    if user is None:
        return ""
    name = public_name(user)
    if account_closed(user):
        return f"{name} (account closed)" if name else "a closed account"
    shown = f"{name} ({user.get_username()})" if name else user.get_username()
    return shown + script_warning(user)


def account_name(user) -> str:
    """How the review names an account (its pages, history, threads, queue): the user name, as editors
    and applicants know each other there; a closed account by its public name alone (``person``),
    never by the user name of someone who has left."""
    if user is None:
        return ""
    return person(user) if account_closed(user) else user.get_username()


def script_warning(user) -> str:
    """ " [warning: …]" when the user name or public name mixes scripts (made before the rule, or named by an
    identity provider): shown where people decide about a person, invitations and the review queue."""
    return names_warning(public_name(user), user.get_username())


def names_warning(*names: str) -> str:
    mixed = sorted({s.title() for text in names if mixed_scripts(text) for s in scripts(text)})
    return f" [warning: the name mixes the scripts {', '.join(mixed)}]" if mixed else ""


def steward_display(steward: Steward) -> dict:
    """A steward as the public page shows them: the name they chose (never their login name), and the
    verified ORCID iD if they chose to show it."""
    user = steward.user
    orcid = orcid_of(user) if steward.show_orcid else ""
    return {"name": public_name(user), "orcid": orcid}


def stewards_told(namespace, *also) -> list:
    """Everyone told of a step of the SNID's life: its active stewards (read when the mail goes, after the
    commit) and ``also`` (the one asking, the one concerned); accounts that can sign in, with an address."""
    users = {s.user.pk: s.user for s in stewards_active(namespace)}
    users.update({u.pk: u for u in also if u is not None})
    return sorted((u for u in users.values() if u.is_active and u.email), key=lambda u: u.pk)


def emails_of(users) -> list[str]:
    return [u.email for u in users]


def orcid_of(user) -> str:
    """The user's ORCID iD, verified by signing in with ORCID (a linked social account), or ""."""
    try:
        from allauth.socialaccount.models import SocialAccount
    except ImportError:
        return ""
    account = SocialAccount.objects.filter(user=user, provider="orcid").first()
    return account.uid if account is not None else ""


def public_life(namespace) -> dict:
    """What the SNID's public page shows of its life after approval: stewards, deprecation, history."""
    deprecation = deprecation_of(namespace)
    shown = [steward_display(s) for s in stewards_active(namespace) if s.user.is_active]
    return {
        # Stewards by the names they chose (or the ORCID iD they chose to show); the others are counted, once.
        "stewards": [s for s in shown if s["name"] or s["orcid"]],
        "unnamed": sum(1 for s in shown if not (s["name"] or s["orcid"])),
        "deprecation": deprecation,
        "successors": successor_chain(namespace) if deprecation is not None else Chain(()),
        "history": public_history(namespace),
    }


def public_changes():
    """Every SNID's public changes after approval, newest first (the Atom feed)."""
    # The registrant becoming the first steward is part of the registration, which the feed announces already.
    return (
        StewardshipEvent.objects.filter(public=True)
        .exclude(kind=StewardshipEventKind.STEWARD_ADDED, actor__isnull=True)
        .select_related("namespace")
        .order_by("-created_at", "-id")
    )
