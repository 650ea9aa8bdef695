"""``manage.py drf_create_token USERNAME [--reset]``: Django REST framework's command, the user name's case ignored.

It replaces DRF's own (``registry`` comes before ``rest_framework.authtoken`` in INSTALLED_APPS),
which looked the account up byte for byte: ``drf_create_token ärger`` now finds ``Ärger``
(registry.accounts.names).
"""

from rest_framework.authtoken.management.commands import drf_create_token
from rest_framework.authtoken.models import Token

from ._common import get_user


class Command(drf_create_token.Command):
    help = "Create (or with --reset replace) the API token of the account USERNAME, its case ignored."

    def create_user_token(self, username, reset_token):
        user = get_user(username)  # CommandError naming the user name if there is none
        if reset_token:
            Token.objects.filter(user=user).delete()
        return Token.objects.get_or_create(user=user)[0]
