"""The log's two tables: its entries (append-only, numbered from 0 without gaps) and its head.

``LogHead`` is one row holding the number of entries. Every append locks it first
(SELECT ... FOR UPDATE on PostgreSQL; SQLite serialises writers), so appends are
numbered in the order their transactions commit. The database refuses to change or
delete an entry and to move the head other than one step forward (triggers: migration
0008 on PostgreSQL, registry.dbguards on SQLite), as it refuses changes to approved
versions.
"""

from __future__ import annotations

import secrets

from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone


class LogImmutableError(Exception):
    """A write that would change or remove an entry of the transparency log."""


class LogEntryQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise LogImmutableError("The transparency log is append-only.")

    def delete(self):
        raise LogImmutableError("The transparency log is append-only.")


class LogEntry(models.Model):
    """One leaf: canonical JSON (registry.logcore.kinds) and its RFC 6962 leaf hash."""

    index = models.BigIntegerField(primary_key=True)
    kind = models.CharField(max_length=40)
    snid = models.CharField(max_length=32, blank=True)
    version = models.PositiveIntegerField(null=True, blank=True)
    leaf = models.TextField(help_text="the leaf's canonical JSON, exactly the bytes that are hashed (UTF-8)")
    leaf_hash = models.CharField(max_length=64, help_text="SHA-256(0x00 || leaf), hex")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    objects = LogEntryQuerySet.as_manager()

    class Meta:
        app_label = "registry"
        ordering = ["index"]
        # Versions are found by their SNID in any letter case (SNIDs are case-insensitive).
        indexes = [models.Index(Lower("snid"), "version", name="logentry_snid_version")]
        verbose_name_plural = "log entries"

    def __str__(self) -> str:
        return f"log entry {self.index} ({self.kind} {self.snid})"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise LogImmutableError("The transparency log is append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise LogImmutableError("The transparency log is append-only.")


class LogHead(models.Model):
    """The single row (pk 1) every append locks: the log's size, and the identity of the log (made with
    it, kept by the signer in its record too: a new database is a new log, docs/transparency.md)."""

    size = models.BigIntegerField(default=0)
    identity = models.CharField(max_length=64, default=secrets.token_hex, editable=False)  # random, made once

    class Meta:
        app_label = "registry"

    def __str__(self) -> str:
        return f"log head (size {self.size})"

    def delete(self, *args, **kwargs):
        raise LogImmutableError("The log head is never deleted.")


class LogSigned(models.Model):
    """The checkpoint the signer published last (pk 1), as every web worker serves it.

    Only the signer (``manage.py log_sign``, which alone holds the key) writes this row; it keeps
    its own record of what it signed beside its key, where the database cannot rewrite it
    (registry/transparency/signer.py). Web workers serve ``note`` byte for byte after checking
    its signature with the published verifier key, so they all serve the same checkpoint and
    none can make up another. ``damage`` is the signer's last verdict: empty, or why it signs
    nothing (the log no longer extends what it signed).
    """

    note = models.TextField(help_text="the signed checkpoint with the witnesses' cosignatures, as served")
    size = models.BigIntegerField(default=0)
    signed_at = models.DateTimeField(null=True, blank=True)
    damage = models.TextField(blank=True, help_text="why the signer refuses to sign, or empty")
    checked_at = models.DateTimeField(null=True, blank=True, help_text="when the signer last examined the log")

    class Meta:
        app_label = "registry"
        verbose_name = "signed checkpoint"

    def __str__(self) -> str:
        return f"signed checkpoint (size {self.size})" + (" — DAMAGE" if self.damage else "")
