"""The signed-in user's linked identities (ORCID, other OpenID Connect providers): list and link."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from ..identity import identity_providers, linked_identities


@login_required
def identities(request):
    linked = linked_identities(request.user)
    have = {item["provider_id"] for item in linked}
    context = {"linked": linked, "providers": [p for p in identity_providers() if p["id"] not in have]}
    return render(request, "registration/identities.html", context)
