import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "registry.settings")
application = get_wsgi_application()

from registry.api.hotpath import with_fast_lookup  # noqa: E402 - needs the app set up first

application = with_fast_lookup(application)
