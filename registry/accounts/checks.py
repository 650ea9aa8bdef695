"""``manage.py check --database default`` (and ``migrate``): accounts whose names are one name folded."""

from __future__ import annotations

from django.core import checks
from django.db import DatabaseError


def name_clashes_check(app_configs=None, databases=None, **kwargs):
    """Accounts made before user names were folded may share a name folded (``Ärger`` and ``ärger``).
    Nothing merges them: the oldest keeps the name, the others sign in by their exact name only until
    an administrator renames them (admin → Users). Said at every ``migrate`` until then."""
    if not databases:
        return []
    from .names import name_clashes

    try:
        clashes = name_clashes()
    except DatabaseError:  # not migrated yet: migration 0010 reports them as it runs
        return []
    return [
        checks.Warning(
            "These accounts' user names are one name when case is ignored: "
            + ", ".join(repr(n) for n in names)
            + f". {names[0]!r} (the oldest) keeps it; the others sign in by their exact name only until renamed.",
            hint="Rename all but one in the admin (Users → the account → Username), or ask their owners.",
            id="registry.W010",
        )
        for names in clashes
    ]
