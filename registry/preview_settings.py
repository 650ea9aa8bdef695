"""Settings of ``manage.py start``: the registry in production mode, on the loopback only.

``start`` shows the registry as its users will see it — DEBUG off, the project's
own error pages, hashed and compressed static files served by whitenoise, the
deployed server (granian, registry/serve.py) — on ``http://127.0.0.1`` with no TLS proxy in
front. It runs the ordinary production settings (``DJANGO_DEBUG=0``) and hands
them the checkout's development secret key and the loopback host names
explicitly, so the production checks of ``registry/settings.py`` run
unchanged; only what needs HTTPS is relaxed, here and nowhere else, and this
module refuses any host name that is not the loopback's.
"""

import os

from django.core.exceptions import ImproperlyConfigured

from .settings import *  # noqa: F403 - the production settings, then the loopback's differences
from .settings import ALLOWED_HOSTS

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
if set(ALLOWED_HOSTS) - set(LOOPBACK_HOSTS):
    raise ImproperlyConfigured(
        "registry.preview_settings serves the loopback only (manage.py start); "
        "deploy with registry.settings (docs/deployment.md)."
    )

# Plain HTTP on the loopback: no redirect to HTTPS, cookies without the Secure flag, no HSTS.
SECURE_SSL_REDIRECT = False
SECURE_PROXY_SSL_HEADER = None
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
SECURE_HSTS_SECONDS = 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = False
SECURE_HSTS_PRELOAD = False

# The README's address of the admin.
ADMIN_PATH = os.environ.get("DJANGO_ADMIN_PATH", "admin/").strip("/") + "/"

# Mail goes to files (one per message) unless an outgoing mail backend is configured.
if "DJANGO_EMAIL_BACKEND" not in os.environ:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = os.environ.get("REGISTRY_MAIL_DIR", str(BASE_DIR / "mail"))  # noqa: F405
