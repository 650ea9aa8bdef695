"""registry/warmup.py: what a server process prepares before its first request."""

from pathlib import Path

from django.conf import settings
from django.template import engines
from django.urls import get_resolver

from registry import warmup

TEMPLATES = Path(settings.BASE_DIR) / "templates"


def _cached_names() -> set[str]:
    loader = engines["django"].engine.template_loaders[0]
    return {template.origin.template_name for template in loader.get_template_cache.values()
            if hasattr(template, "origin")}


def test_warmup_compiles_every_project_template_into_the_loader_cache():
    engines["django"].engine.template_loaders[0].reset()
    names = warmup.prepare()
    expected = sorted(p.relative_to(TEMPLATES).as_posix() for p in TEMPLATES.rglob("*")
                      if p.suffix in warmup.TEMPLATE_SUFFIXES)
    assert sorted(names) == expected
    assert set(expected) <= _cached_names()


def test_warmup_fills_the_url_resolver():
    warmup.prepare()
    resolver = get_resolver()
    assert resolver._populated
    assert "registry" in resolver.namespace_dict


def test_warmup_opens_no_database_connection(django_db_blocker):
    engines["django"].engine.template_loaders[0].reset()
    with django_db_blocker.block():  # any connection or query raises here
        names = warmup.prepare()
    assert "base.html" in names
