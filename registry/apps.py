from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _findings_follow(sender, **kwargs):
    """The open proposals of the SNIDs that changed are checked again (``services.findings``),
    imported when the registry first changes, not at start-up."""
    from .services.findings import findings_on_registry_changed

    findings_on_registry_changed(sender, **kwargs)


def _user_name_claim(sender, **kwargs):
    """The name rules (registry.accounts.names) load with the first account saved, not at start-up:
    their Unicode data (PRECIS, confusables) is most of what a command would otherwise pay for."""
    from .accounts.names import user_name_claim

    return user_name_claim(sender, **kwargs)


def _user_name_record(sender, **kwargs):
    from .accounts.names import user_name_record

    return user_name_record(sender, **kwargs)


def _guards_after_migrate(sender, using="default", **kwargs):
    """SQLite drops a table's triggers when a migration rebuilds it: put them back."""
    from django.db import connections

    from .dbguards import sqlite_triggers_install

    sqlite_triggers_install(connections[using])


#: The rooms that keep models of their own (docs/architecture.md): each room's ``models`` module.
ROOM_MODELS = ("transparency", "resolution", "stewardship", "accounts")


class RegistryConfig(AppConfig):
    name = "registry"
    verbose_name = "urn:ogf registry"
    default_auto_field = "django.db.models.BigAutoField"

    def import_models(self):
        """Django imports ``registry/models.py`` to find the app's models; the rooms' own models
        modules are imported here, beside it, at the same moment of start-up (before any model is
        looked up), so ``registry/models.py`` imports no room above it."""
        from importlib import import_module

        super().import_models()
        for room in ROOM_MODELS:
            import_module(f"{self.name}.{room}.models")

    def ready(self):
        """Registration only — signals, checks, the hooks the rooms and engines are given — and
        nothing that costs: every command, ``manage.py help`` included, runs this, so what only a
        request, a job or a review needs is imported there (tests/test_startup.py)."""
        post_migrate.connect(_guards_after_migrate, sender=self)
        from .signals import registry_changed

        registry_changed.connect(_findings_follow, dispatch_uid="registry.services.findings")
        # The engines import no Django: they read the settings and the shared cache through
        # registry/engineconfig.py, without this importing them (the bounded worker's process pool,
        # the grammar compiler).
        from django.conf import settings
        from django.core.cache import cache

        from . import engineconfig

        engineconfig.settings_reader = lambda name, default: getattr(settings, name, default)
        engineconfig.shared_cache_source = lambda: cache
        from django.contrib.auth import get_user_model
        from django.core import checks
        from django.db.models.signals import post_save, pre_save

        from .accounts.checks import name_clashes_check

        pre_save.connect(_user_name_claim, sender=get_user_model(), dispatch_uid="registry.user_name_claim")
        post_save.connect(_user_name_record, sender=get_user_model(), dispatch_uid="registry.user_name_record")
        checks.register(name_clashes_check, checks.Tags.database)

        from .stewardship.signals import connect

        connect()

        # Rooms above stewardship give it what it offers without importing them (docs/architecture.md).
        from .resolution.changes import install as resolution_changes_install

        resolution_changes_install()
