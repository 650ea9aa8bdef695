from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _guards_after_migrate(sender, using="default", **kwargs):
    """SQLite drops a table's triggers when a migration rebuilds it: put them back."""
    from django.db import connections

    from .dbguards import sqlite_triggers_install

    sqlite_triggers_install(connections[using])


class RegistryConfig(AppConfig):
    name = "registry"
    verbose_name = "urn:ogf registry"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        post_migrate.connect(_guards_after_migrate, sender=self)
        from .stewardship.signals import connect

        connect()
