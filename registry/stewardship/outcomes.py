"""What each stewardship decision will do, in words: shown on its confirmation page before it is made.

Every page that asks someone to confirm a step of an SNID's life after approval says what will
change in public, what the transparency log will record, what stays private, and who will be
told by e-mail — the same sentences for every way in (the stewardship page, the editors' queue).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .selectors import UNNAMED, chain_of, person, predecessors_of, public_name, stewards_told, successors_in_force


@dataclass
class Outcome:
    #: What the public sees change: pages, the API, the exports, the SNID's public history.
    public: list[str] = field(default_factory=list)
    #: The transparency log's new leaf, or "" for none.
    log: str = ""
    #: What is recorded that only the stewards and the editors see.
    private: list[str] = field(default_factory=list)
    #: The people mailed (as editors and stewards know them) ...
    told: list[str] = field(default_factory=list)
    #: ... and whether the GFD editors are mailed too.
    editors: bool = False


def _told(namespace, *also) -> list[str]:
    return [person(user) for user in stewards_told(namespace, *also)]


def _logged(user) -> str:
    name = public_name(user)
    return f"“{name}”" if name else f"“{UNNAMED}” (they have chosen none)"


def _deprecation_public(namespace, successor: str | None, *, requested: bool) -> list[str]:
    """What a deprecation makes public, said alike before a steward asks for it and before an editor makes it."""
    said = "“deprecated”" + (f" and name urn:ogf:{successor}: as its successor" if successor else "")
    by = "Deprecated by an editor at a steward's request" if requested else "Deprecated by an editor"
    return [
        f"The SNID's page becomes a tombstone; the lookup, the API, the exports and the feed say {said}.",
        "Its URNs stay valid; the SNID is never registered, reserved or reassigned again while the deprecation stands.",
        f"The public history says “{by}”, with the reason.",
    ] + _chain_lines(namespace, successor)


#: Deprecated SNIDs named one by one on a confirmation page when the step changes their chains (the rest counted).
PREDECESSORS_SHOWN = 20


def _chain_lines(namespace, successor: str | None) -> list[str]:
    """The deprecated SNIDs whose chain of successors passes through this one, and what their tombstones will
    say once it is deprecated too: they send readers on past it, to ``successor`` and beyond."""
    successors = successors_in_force()
    before = predecessors_of(namespace, successors)
    after = {**successors, namespace.snid: successor or None}
    lines = []
    for snid in before[:PREDECESSORS_SHOWN]:
        now, then = chain_of(successors[snid], successors), chain_of(successors[snid], after)
        onward = f"sending readers on to urn:ogf:{then.live}:" if then.live else "naming no current SNID"
        lines.append(f"urn:ogf:{snid}: is deprecated, {now}: its tombstone will read “{then}”, {onward}.")
    if len(before) > PREDECESSORS_SHOWN:
        lines.append(f"And {len(before) - PREDECESSORS_SHOWN} more deprecated SNIDs whose chains pass through it.")
    return lines


def change_requested(namespace, kind, requester, data: dict | None = None) -> Outcome:
    if kind.name == "deprecation":
        public = [
            "Nothing until an editor approves it. Then:",
            *_deprecation_public(namespace, (data or {}).get("successor"), requested=True),
        ]
    else:
        public = ["Nothing yet: the change is made only when an editor approves it."]
    return Outcome(
        public=public,
        private=[
            f"Your request and its reason, in the SNID's history (stewards and "
            f"editors only): “A steward asked to change the {kind.what}.”"
            if kind.name != "deprecation"
            else "Your request and its reason, in the SNID's history (stewards and editors only)."
        ],
        told=_told(namespace, requester),
        editors=True,
    )


def change_decided(request, kind, action: str, *, summary: str) -> Outcome:
    namespace = request.namespace
    told = _told(namespace, request.requested_by)
    if action == "decline":
        return Outcome(
            public=["Nothing: what stands stays as it is."],
            private=["The request is closed as declined, with your note, in the SNID's history."],
            told=told,
        )
    if kind.name == "deprecation":
        return Outcome(
            public=_deprecation_public(namespace, request.data.get("successor"), requested=True),
            log="a snid-deprecated leaf with the reason and the successor.",
            told=told,
        )
    if kind.name == "resolvers":
        return Outcome(
            public=[
                "The resolvers requested replace all of those in force, exactly as listed: the resolver "
                "endpoint sends readers there at once, and the SNID's page lists them.",
                f"The public history says: “{summary}” The resolver changes list the old and the new ones "
                f"with the reason: “{request.reason}”",
            ],
            log="a snid-resolvers leaf with the new resolvers (the log page says what was added, removed or changed).",
            told=told,
        )
    return Outcome(
        public=[
            "The SNID's page, the API, the exports and the feed show the new values at once (details the "
            "registrant did not choose to publish stay with the editors).",
            f"The public history says: “{summary}” The approved version itself never changes.",
        ],
        log="an administrative-change leaf with the new public values and the digest of the public record.",
        told=told,
    )


def steward_form(namespace, action: str, actor) -> Outcome:
    """Before the person is named: what adding or inviting someone will do."""
    told = _told(namespace, actor if action == "invite" else None) + ["the person you name"]
    if action == "invite":
        return Outcome(
            public=["Nothing yet: an editor confirms or declines the invitation."],
            private=["The invitation and its reason, in the SNID's history."],
            told=told,
            editors=True,
        )
    return Outcome(
        public=[
            "The SNID's page lists the new steward by the name they chose (never their user name); "
            "the public history says “A steward was added by an editor.”"
        ],
        log="a steward-changed leaf naming the steward, with the reason.",
        told=told,
    )


def steward_outcome(namespace, action: str, user, *, inviter=None) -> Outcome:
    """What adding, inviting, confirming, declining or removing ``user`` as a steward will do."""
    told = _told(namespace, user, inviter)
    name = person(user)
    if action == "invite":
        return Outcome(
            public=["Nothing yet: an editor confirms or declines the invitation."],
            private=[f"The invitation of {name} and its reason, in the SNID's history."],
            told=told,
            editors=True,
        )
    if action == "decline":
        return Outcome(
            public=["Nothing."], private=["The invitation is closed as declined, with your note."], told=told
        )
    if action == "remove":
        return Outcome(
            public=[
                f"The SNID's page no longer lists {name} among its stewards.",
                "The public history says “A steward was removed by an editor.”",
            ],
            log=f"a steward-changed leaf naming the steward {_logged(user)}, with the reason.",
            private=[f"{name} can no longer ask for changes, invite stewards or propose new versions of the SNID."],
            told=told,
        )
    sentence = (
        "A steward was added by an editor at a steward's invitation."
        if action == "confirm"
        else "A steward was added by an editor."
    )
    return Outcome(
        public=[
            f"The SNID's page lists the new steward by the name they chose ({_logged(user)}); "
            "their user name is never shown.",
            f"The public history says: “{sentence}”",
        ],
        log=f"a steward-changed leaf naming the steward {_logged(user)}, with the reason.",
        private=[f"{name} may ask for changes, invite stewards and propose new versions of the SNID."],
        told=told,
    )


def deprecation_outcome(namespace, action: str, *, successor=None) -> Outcome:
    told = _told(namespace)
    if action == "undeprecate":
        return Outcome(
            public=[
                "The SNID's page is no longer a tombstone; the lookup, the API, the exports and "
                "the feed say “registered” again.",
                "The public history says “An editor withdrew the deprecation.”, with the reason.",
            ],
            log="a snid-undeprecated leaf with the reason.",
            told=told,
        )
    return Outcome(
        public=_deprecation_public(namespace, successor.snid if successor is not None else None, requested=False),
        log="a snid-deprecated leaf with the reason and the successor.",
        told=told,
    )
