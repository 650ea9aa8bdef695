import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "registry.settings")
application = get_wsgi_application()

from registry import warmup  # noqa: E402 - needs the app set up first
from registry.api.hotpath import with_fast_lookup  # noqa: E402
from registry.resolution.hotpath import with_fast_resolve  # noqa: E402

warmup.prepare()  # before the first request, and before gunicorn forks its workers
application = with_fast_resolve(with_fast_lookup(application))
