"""Demonstration data: accounts and proposals from ``fixtures/demo.json``.

Loaded through the same services as the site, so the demo registry carries
real histories and findings.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from . import interchange, services
from .accounts.names import user_by_name
from .models import Namespace, Proposal

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
MANIFEST = FIXTURES / "demo.json"


def manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def demo_accounts() -> dict[str, tuple]:
    """Create the demo accounts if missing; returns role -> (user, password, created)."""
    User = get_user_model()
    accounts = {}
    for role, spec in manifest()["accounts"].items():
        user = user_by_name(spec["username"])  # "Applicant" made by hand is the demo's applicant
        created = user is None
        if created:
            user = User(username=spec["username"], email=spec["email"])
            user.set_password(spec["password"])
            user.save()
        if spec["editor"]:
            services.editor_grant(user, staff=True)  # the demo editor may look at the admin too
        accounts[role] = (user, spec["password"], created)
    return accounts


def database_is_empty() -> bool:
    return not Proposal.objects.exists() and not Namespace.objects.exists()


@transaction.atomic
def demo_load(applicant, editor) -> list[Proposal]:
    proposals = []
    for entry in manifest()["proposals"]:
        raw = json.loads((FIXTURES / entry["file"]).read_text(encoding="utf-8"))
        if "resolvers" in entry:  # section 3.2's resolvers, declared for the demo (docs/resolution.md)
            raw["resolvers"] = entry["resolvers"]
        proposal = services.proposal_create(interchange.load(raw), applicant, is_demo=True)
        for step in entry["steps"]:
            actor = applicant if step["action"] in ("submit", "withdraw") else editor
            if step["action"] == "judge":  # the four judgements of GFD.191 §5, recorded before a decision
                services.judgements_set(proposal, editor, {c: (ok, "") for c, ok in step["judgements"].items()})
                continue
            proposal = services.proposal_transition(
                proposal,
                step["action"],
                actor,
                comment=step.get("comment", ""),
                override_reason=step.get("override_reason", ""),
                public_note=step.get("public_note", ""),
            )
        proposals.append(proposal)
    demo_life(applicant, editor)
    return proposals


def demo_life(applicant, editor) -> None:
    """An SNID's life after approval (the manifest's ``life``): stewards, a completed change, a deprecation."""
    from .stewardship import services as stewardship

    accounts = {"applicant": applicant, "editor": editor}
    for step in manifest().get("life", []):
        namespace = Namespace.objects.by_snid(step["snid"]).first()
        by = accounts[step["by"]]
        if step["action"] == "steward_add":
            steward = demo_accounts()[step["account"]][0]  # created if missing
            stewardship.steward_add(namespace, steward, by, reason=step["reason"])
        elif step["action"] == "change":
            request = stewardship.change_request_create(
                namespace, step["kind"], step["data"], by, reason=step["reason"]
            )
            stewardship.change_request_decide(request, editor, approve=step["decision"] == "approve")
        elif step["action"] == "deprecate":
            stewardship.snid_deprecate(namespace, by, reason=step["reason"], successor=step.get("successor", ""))
