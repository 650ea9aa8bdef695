"""Start the test OpenID Connect provider on a free loopback port.

    python -m tests.oidc_provider.serve CLIENT_ID SECRET REDIRECT_URI USERNAME PASSWORD ORCID_ID [EMAIL [verified]]

With EMAIL the provider asserts that address for the user (``email`` and ``email_verified``
claims), verified only if the last argument says so; without it, no address at all.
Prints ``LISTENING http://127.0.0.1:<port>`` once it answers, then serves until killed.
"""

import os
import sys
import tempfile


def main(argv: list[str]) -> None:
    client_id, secret, redirect_uri, username, password, orcid, *asserted = argv
    os.environ.setdefault("OIDC_PROVIDER_DB", os.path.join(tempfile.mkdtemp(prefix="oidc-provider-"), "db.sqlite3"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.oidc_provider.settings"
    os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"  # plain HTTP on the loopback only
    import django

    django.setup()
    from allauth.idp.oidc.models import Client
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
    from django.core.wsgi import get_wsgi_application

    call_command("migrate", verbosity=0, interactive=False)
    user = get_user_model().objects.create_user(username, f"{username}@provider.example", password, last_name=orcid)
    if asserted:
        from allauth.account.models import EmailAddress

        EmailAddress.objects.create(user=user, email=asserted[0], primary=True, verified=asserted[1:] == ["verified"])
    client = Client(id=client_id, name="urn:ogf registry (test)", skip_consent=True, type=Client.Type.CONFIDENTIAL)
    client.set_secret(secret)
    client.set_redirect_uris([redirect_uri])
    client.set_scopes(["openid", "profile", "email"])
    client.save()

    class QuietHandler(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadedWSGIServer(("127.0.0.1", 0), QuietHandler)
    server.set_app(get_wsgi_application())
    print(f"LISTENING http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
