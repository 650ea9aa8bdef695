"""What a server process prepares before its first request (registry/wsgi.py calls it).

Left to itself, Django imports the URL configuration (DRF, the OpenAPI views,
the PostgreSQL field modules), fills the URL resolver's tables and compiles
each template on the first request that needs them: half a second and more,
paid by whichever visitor comes first, once in every worker. Done here, at
start-up, gunicorn's master (``preload_app``) does it once and every worker
forks with it done.

Nothing here touches the database: a connection opened in the master would be
shared by the workers it forks.
"""

from __future__ import annotations

from pathlib import Path

from django.template import engines
from django.template.backends.django import DjangoTemplates
from django.urls import get_resolver, reverse

TEMPLATE_SUFFIXES = (".html", ".txt", ".xml")


def prepare() -> list[str]:
    """Import the URLs, fill the resolver and compile the project's templates; the templates' names."""
    get_resolver().url_patterns  # noqa: B018 - imports every view module
    reverse("registry:namespace_list")  # fills the reverse tables of every namespace
    return _compile_templates()


def _compile_templates() -> list[str]:
    """Compile every template of the project's template directories, where the loader keeps them."""
    names = []
    for engine in engines.all():
        if not isinstance(engine, DjangoTemplates) or engine.engine.debug:
            continue  # in debug mode templates are read afresh on every request anyway
        for directory in engine.engine.dirs:
            root = Path(directory)
            for path in sorted(root.rglob("*")):
                if path.suffix in TEMPLATE_SUFFIXES:
                    name = path.relative_to(root).as_posix()
                    engine.get_template(name)
                    names.append(name)
    return names
