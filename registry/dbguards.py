"""SQLite triggers that keep the record honest in development, as PostgreSQL's do in production.

SQLite rebuilds a table (and drops its triggers) whenever a migration alters it, so they are
(re)created after every ``migrate`` (registry.apps) as well as by migration 0007.
"""

from __future__ import annotations

SQLITE_TRIGGERS = [
    """CREATE TRIGGER IF NOT EXISTS registry_snid_permanent BEFORE UPDATE OF snid ON registry_namespace
       WHEN lower(OLD.snid) <> lower(NEW.snid)
       BEGIN SELECT RAISE(ABORT, 'SNIDs are never renamed'); END""",
    """CREATE TRIGGER IF NOT EXISTS registry_current_is_approved BEFORE UPDATE OF current_id ON registry_namespace
       WHEN NEW.current_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM registry_proposal p
            WHERE p.id = NEW.current_id AND p.state = 'approved' AND p.namespace_id = NEW.id)
       BEGIN SELECT RAISE(ABORT, 'an SNID can only point at an approved version of itself'); END""",
    """CREATE TRIGGER IF NOT EXISTS registry_proposal_immutable BEFORE UPDATE ON registry_proposal
       WHEN OLD.state = 'approved'
       BEGIN SELECT RAISE(ABORT, 'approved proposals are immutable'); END""",
    """CREATE TRIGGER IF NOT EXISTS registry_event_append_only BEFORE UPDATE ON registry_proposalevent
       BEGIN SELECT RAISE(ABORT, 'proposal events are append-only'); END""",
]
SQLITE_TRIGGER_NAMES = [
    "registry_snid_permanent",
    "registry_current_is_approved",
    "registry_proposal_immutable",
    "registry_event_append_only",
]

#: The transparency log (registry.transparency): entries never change, the head only moves one step on.
SQLITE_LOG_TRIGGERS = [
    """CREATE TRIGGER IF NOT EXISTS registry_logentry_append_only BEFORE UPDATE ON registry_logentry
       BEGIN SELECT RAISE(ABORT, 'the transparency log is append-only'); END""",
    """CREATE TRIGGER IF NOT EXISTS registry_loghead_forward BEFORE UPDATE ON registry_loghead
       WHEN NEW.size <> OLD.size + 1 OR NEW.id <> OLD.id
       BEGIN SELECT RAISE(ABORT, 'the transparency log head only moves one entry forward'); END""",
]
SQLITE_TRIGGER_NAMES += ["registry_logentry_append_only", "registry_loghead_forward"]

#: An SNID's life after approval (registry.stewardship): its history never changes, a decided change
#: request never changes, and a deprecated SNID is never registered, reserved or re-pointed again.
#: (Deletes are refused by the models, as for the other tables: SQLite's test flush deletes rows.)
_DEPRECATED = """EXISTS (SELECT 1 FROM registry_deprecation d JOIN registry_namespace n ON n.id = d.namespace_id
                 WHERE d.ended_at IS NULL AND lower(n.snid) = lower(NEW.snid))"""
SQLITE_STEWARDSHIP_TRIGGERS = [
    """CREATE TRIGGER IF NOT EXISTS registry_stewardshipevent_append_only BEFORE UPDATE ON registry_stewardshipevent
       BEGIN SELECT RAISE(ABORT, 'an SNID''s history is append-only'); END""",
    """CREATE TRIGGER IF NOT EXISTS registry_changerequest_decided BEFORE UPDATE ON registry_changerequest
       WHEN OLD.state <> 'pending'
       BEGIN SELECT RAISE(ABORT, 'a decided change request never changes'); END""",
    """CREATE TRIGGER IF NOT EXISTS registry_deprecated_stays BEFORE UPDATE ON registry_namespace
       WHEN EXISTS (SELECT 1 FROM registry_deprecation d WHERE d.namespace_id = OLD.id AND d.ended_at IS NULL)
        AND (NEW.status <> OLD.status OR NEW.current_id IS NOT OLD.current_id
             OR NEW.reserved_until IS NOT OLD.reserved_until OR NEW.reserved_for_id IS NOT OLD.reserved_for_id)
       BEGIN SELECT RAISE(ABORT, 'a deprecated SNID is never registered, reserved or reassigned'); END""",
    f"""CREATE TRIGGER IF NOT EXISTS registry_deprecated_not_proposed BEFORE INSERT ON registry_proposal
       WHEN {_DEPRECATED}
       BEGIN SELECT RAISE(ABORT, 'a deprecated SNID is never proposed or registered again'); END""",
    f"""CREATE TRIGGER IF NOT EXISTS registry_deprecated_not_approved BEFORE UPDATE OF state ON registry_proposal
       WHEN NEW.state = 'approved' AND {_DEPRECATED}
       BEGIN SELECT RAISE(ABORT, 'a deprecated SNID is never proposed or registered again'); END""",
]
SQLITE_TRIGGER_NAMES += [
    "registry_stewardshipevent_append_only",
    "registry_changerequest_decided",
    "registry_deprecated_stays",
    "registry_deprecated_not_proposed",
    "registry_deprecated_not_approved",
]


def sqlite_triggers_install(connection) -> None:
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        tables = set(connection.introspection.table_names(cursor))
        if {"registry_namespace", "registry_proposal", "registry_proposalevent"} <= tables:
            for statement in SQLITE_TRIGGERS:
                cursor.execute(statement)
        if {"registry_logentry", "registry_loghead"} <= tables:
            for statement in SQLITE_LOG_TRIGGERS:
                cursor.execute(statement)
        if {"registry_stewardshipevent", "registry_changerequest", "registry_deprecation"} <= tables:
            for statement in SQLITE_STEWARDSHIP_TRIGGERS:
                cursor.execute(statement)


def sqlite_triggers_remove(connection) -> None:
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        for name in SQLITE_TRIGGER_NAMES:
            cursor.execute(f"DROP TRIGGER IF EXISTS {name}")
