"""ORCID's OpenID Connect subject is the ORCID iD: this provider uses the user's ``last_name`` for it."""

from allauth.idp.oidc.adapter import DefaultOIDCAdapter
from django.contrib.auth import get_user_model


class SubjectIsOrcidAdapter(DefaultOIDCAdapter):
    def get_user_sub(self, client, user) -> str:
        return user.last_name or super().get_user_sub(client, user)

    def get_user_by_sub(self, client, sub: str):
        return get_user_model().objects.filter(last_name=sub).first() or super().get_user_by_sub(client, sub)
