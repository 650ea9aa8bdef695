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
    from .names import name_clashes, names_read_alike

    try:
        clashes = name_clashes()
        alike = names_read_alike()
    except DatabaseError:  # not migrated yet: migrations 0010 and 0013 report them as they run
        return []
    return [
        checks.Warning(
            "These accounts' user names read alike (letters that look the same): "
            + ", ".join(repr(n) for n in names)
            + f". {names[0]!r} (the oldest) keeps its name; the others should be renamed so nobody is taken "
            "for another.",
            hint="Rename all but one in the admin (Users → the account → Username), or ask their owners.",
            id="registry.W011",
        )
        for names in alike
    ] + [
        checks.Warning(
            "These accounts' user names are one name when case is ignored: "
            + ", ".join(repr(n) for n in names)
            + f". {names[0]!r} (the oldest) keeps it; the others sign in by their exact name only until renamed.",
            hint="Rename all but one in the admin (Users → the account → Username), or ask their owners.",
            id="registry.W010",
        )
        for names in clashes
    ]
