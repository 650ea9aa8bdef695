import os

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "registry.settings")
application = get_wsgi_application()

from django.conf import settings  # noqa: E402

if settings.REGISTRY_MISSING_TO_SERVE:
    # House rule: production never runs half-configured. Build steps and the signer, which need
    # none of these, never load this module (registry/settings.py).
    raise ImproperlyConfigured(
        "Production mode (DJANGO_DEBUG=0) needs "
        + " and ".join(settings.REGISTRY_MISSING_TO_SERVE)
        + " to be set in the environment to serve the site; see docs/deployment.md."
    )

from registry import warmup  # noqa: E402 - needs the app set up first
from registry.api.hotpath import with_fast_lookup  # noqa: E402
from registry.api.resolve_hotpath import with_fast_resolve  # noqa: E402
from registry.processenv import without_process_environment  # noqa: E402

warmup.prepare()  # before the first request, and before the server's master forks its workers
application = with_fast_resolve(with_fast_lookup(without_process_environment(application)))
