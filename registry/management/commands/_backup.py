"""The registry's backup file: what it holds, its schema, its digest, and how it is restored.

A backup is one JSON document written by ``export_registry --format backup``::

    {"format": "urn-ogf-registry-backup", "version": 2, "created_at": "...",
     "key_id": "<first 16 hex digits of SHA-256 of the key>",
     "hmac_sha256": "<HMAC-SHA256 of everything else under the backup key>", "records": [ ... ]}

``records`` are Django's serialisation of every table the site needs to be the same site
(``BACKUP_MODELS``): every SNID, version, event, comment, judgement, reservation request,
stewardship, resolver and log entry; every group and account (with its password hash), each
account's record (how it was made, when its address was confirmed, its names as compared), its
e-mail addresses, its linked sign-in identities (ORCID, OpenID Connect) and its API token.
Accounts and groups are identified by name, never by their row number, and so are the records
that belong to one account (``PER_ACCOUNT_MODELS``, written without a row number), so a restore
cannot overwrite an unrelated account that happens to have the same number in the target
database. What a backup leaves out, and why, is ``LEFT_OUT`` (docs/operations.md lists both).

The backup proves itself with a keyed signature: an unkeyed digest could be recomputed by
whoever changed a grammar or an owner. The key is kept outside the backup
(REGISTRY_BACKUP_KEY, or the file REGISTRY_BACKUP_KEY_FILE; in development a key is made
once in ``.backup_key``, git-ignored). ``import_registry`` accepts only a file exactly as
the exporter wrote it: it checks the layout against a JSON Schema built from the models,
verifies the signature with the key, and compares the bytes with the exporter's own
serialisation, so a single changed byte is refused before anything is written.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import hmac
import json
import secrets
import uuid
from pathlib import Path

import jsonschema
from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.db import models
from django.utils import timezone

from ...keyfiles import key_file_create

FORMAT, VERSION = "urn-ogf-registry-backup", 3
#: Versions this registry restores: 2 held no account records, addresses nor identities.
VERSIONS_READ = (2, 3)
SIGNED_FIELDS = ("key_id", "hmac_sha256")

#: In the order they are restored. Accounts and groups by natural key (name), the rest by pk.
BACKUP_MODELS = [
    "auth.group",
    "auth.user",
    "registry.account",
    "account.emailaddress",
    "socialaccount.socialaccount",
    "authtoken.token",
    "registry.namespace",
    "registry.proposal",
    "registry.proposalevent",
    "registry.comment",
    "registry.reservationrequest",
    "registry.judgement",
    "registry.steward",
    "registry.changerequest",
    "registry.stewardshipevent",
    "registry.registrantoverlay",
    "registry.deprecation",
    "registry.resolver",
    "registry.resolvercheck",
    "registry.logentry",
    "registry.loghead",
]
#: Restored last, after every SNID points at its current version: the database refuses to re-point a
#: deprecated SNID (registry.dbguards), so its deprecation must not exist before then.
RESTORED_LAST = {"registry.deprecation"}
ACCOUNT_MODELS = {"auth.group", "auth.user"}
#: Rows that belong to one account, named by it (its user name), written without their row number.
PER_ACCOUNT_MODELS = {"registry.account", "account.emailaddress", "socialaccount.socialaccount"}
REGISTRY_MODELS = [
    label for label in BACKUP_MODELS if label.startswith("registry.") and label not in PER_ACCOUNT_MODELS
]
#: Figures derived from the record, not part of it: not backed up, cleared with the registry on a
#: restore (they refer to its rows) and measured again at its end (``measure_validators``).
DERIVED_MODELS = ["registry.validatorcost"]
#: Every other table, and why a backup leaves it out (tests/test_backup_accounts.py holds every table to
#: being in BACKUP_MODELS, DERIVED_MODELS or here).
LEFT_OUT = {
    "sessions.session": "who is signed in where: everyone signs in again after a restore",
    "registry.validatorcost": "measured again at the end of the restore (measure_validators)",
    "registry.logsigned": "the signed checkpoint is signed again by `log_sign`, which alone holds the key",
    "auth.permission": "made by `migrate`; accounts' and groups' permissions are in the backup by name",
    "contenttypes.contenttype": "made by `migrate`",
    "admin.logentry": "the admin's own history of its edits; the registry's history is its events and its log",
    "axes.accessattempt": "failed log-ins counted for the log-in limits: short-lived",
    "axes.accessfailurelog": "failed log-ins counted for the log-in limits: short-lived",
    "axes.accessattemptexpiration": "failed log-ins counted for the log-in limits: short-lived",
    "axes.accesslog": "log-in history for the log-in limits: short-lived",
    "account.emailconfirmation": "allauth's address confirmations, unused (sign-ups confirm by the registry's link)",
    "socialaccount.socialapp": "identity providers are configured by the environment (docs/deployment.md)",
    "socialaccount.socialtoken": "a provider's access tokens: secrets of the provider, renewed at the next sign-in",
    "authtoken.tokenproxy": "the same table as authtoken.token",
}


class BackupError(Exception):
    """The file is not a backup this registry can restore; the message says why and where."""


def backup_key() -> bytes:
    """The key backups are signed with, from outside the backup; BackupError if there is none."""
    value = getattr(settings, "REGISTRY_BACKUP_KEY", "")
    if value:
        return value.encode("utf-8")
    path = getattr(settings, "REGISTRY_BACKUP_KEY_FILE", "")
    if not path:
        raise BackupError(
            "No backup key is configured: set REGISTRY_BACKUP_KEY_FILE (a file holding a long "
            "random key, kept apart from the backups) or REGISTRY_BACKUP_KEY; see "
            "docs/operations.md. Nothing was exported or restored."
        )
    path = Path(path)
    if not path.exists() and path == Path(settings.BASE_DIR) / ".backup_key":
        # Development: one key per checkout, made on first use (like .secret_key).
        key_file_create(path, secrets.token_hex(32) + "\n")  # the first of concurrent first uses wins
    try:
        key = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise BackupError(
            f"Cannot read the backup key file {path}: {exc.strerror}. Nothing was exported or restored."
        ) from None
    if len(key) < 32:
        raise BackupError(
            f"The backup key in {path} is shorter than 32 characters; make a long random one (docs/operations.md)."
        )
    return key.encode("utf-8")


def key_id(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()[:16]


def _canonical(document: dict) -> bytes:
    body = {key: value for key, value in document.items() if key != "hmac_sha256"}
    return json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def signature(document: dict, key: bytes) -> str:
    return hmac.new(key, _canonical(document), hashlib.sha256).hexdigest()


def sign(document: dict) -> dict:
    """Sign ``document`` in place with the configured backup key."""
    key = backup_key()
    document["key_id"] = key_id(key)
    document["hmac_sha256"] = signature(document, key)
    return document


def render(document: dict) -> str:
    """The one serialisation of a backup document (export writes it, import compares with it)."""
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


def _exact(value):
    """JSON for what the serialiser leaves as Python objects, losing nothing.

    (Django's JSON encoder cuts times to milliseconds and writes a time whose microseconds
    are below 1,000 as ".000", which reads back as another string: a restore would not be
    identical in about one run of ten.)
    """
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (decimal.Decimal, uuid.UUID)):
        return str(value)
    raise TypeError(f"{type(value).__name__} cannot be written to a backup")


def backup_document() -> dict:
    records = []
    for label in BACKUP_MODELS:
        model = apps.get_model(label)
        queryset = model._default_manager.order_by(model._meta.pk.name)
        if label in PER_ACCOUNT_MODELS:
            queryset = queryset.select_related("user").order_by("user__username", model._meta.pk.name)
        objects = serializers.serialize(
            "python", queryset, use_natural_foreign_keys=True, use_natural_primary_keys=label in ACCOUNT_MODELS
        )
        if label in PER_ACCOUNT_MODELS:
            for obj, record in zip(queryset, objects, strict=True):
                record["pk"] = None  # named by its account, never by its row number here
                record["fields"]["user"] = list(obj.user.natural_key())
        records += json.loads(json.dumps(objects, default=_exact, ensure_ascii=False))
    document = {
        "format": FORMAT,
        "version": VERSION,
        "created_at": timezone.now().isoformat(),
        "key_id": "",
        "hmac_sha256": "",
        "records": records,
    }
    return sign(document)


# --- schema -----------------------------------------------------------------------------------


def _field_schema(field) -> dict:
    if field.many_to_many:
        return {"type": "array", "items": {"type": ["array", "integer", "string"]}}
    if field.is_relation:
        target = field.related_model
        kinds = ["array"] if hasattr(target, "natural_key") else ["integer", "string"]
        return {"type": kinds + (["null"] if field.null else [])}
    if isinstance(field, models.JSONField):
        return {}
    if isinstance(field, models.BooleanField):
        kinds = ["boolean"]
    elif isinstance(field, (models.IntegerField, models.AutoField)):
        kinds = ["integer"]
    else:
        kinds = ["string"]
    schema: dict = {"type": kinds + (["null"] if field.null else [])}
    if isinstance(field, models.CharField) and field.max_length and kinds == ["string"]:
        schema["maxLength"] = field.max_length
    return schema


def _record_schema(label: str) -> dict:
    model = apps.get_model(label)
    fields = [f for f in model._meta.local_fields if f.serialize and not f.primary_key]
    fields += [f for f in model._meta.local_many_to_many if f.serialize]
    if label == "authtoken.token":  # its primary key is the token itself
        fields = [f for f in model._meta.local_fields if f.name != "key"]
    if label == "registry.account":  # its primary key is its user, named
        fields = [model._meta.pk, *fields]
    properties = {f.name: _field_schema(f) for f in fields}
    record = {
        "type": "object",
        "additionalProperties": False,
        "required": ["model", "fields"],
        "properties": {
            "model": {"const": label},
            "fields": {
                "type": "object",
                "additionalProperties": False,
                "required": sorted(properties),
                "properties": properties,
            },
        },
    }
    if label in ACCOUNT_MODELS or label in PER_ACCOUNT_MODELS:
        record["properties"]["pk"] = {"type": "null"}
    else:
        record["required"].append("pk")
        record["properties"]["pk"] = (
            {"type": "string", "minLength": 1}
            if label == "authtoken.token"
            else {"type": "integer", "minimum": 0 if label == "registry.logentry" else 1}
        )
    return record


def backup_schema() -> dict:
    """The JSON Schema of a backup, derived from the models it holds."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "required": ["format", "version", "created_at", "key_id", "hmac_sha256", "records"],
        "properties": {
            "format": {"const": FORMAT},
            "version": {"enum": list(VERSIONS_READ)},
            "created_at": {"type": "string"},
            "key_id": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
            "hmac_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "records": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["model"],
                    "properties": {"model": {"enum": BACKUP_MODELS}},
                    "allOf": [
                        {"if": {"properties": {"model": {"const": label}}}, "then": _record_schema(label)}
                        for label in BACKUP_MODELS
                    ],
                },
            },
        },
    }


def read_backup(raw: bytes) -> dict:
    """Parse and check a backup file; raise BackupError with what is wrong and where."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BackupError(f"The file is not UTF-8 text (byte {exc.start}).") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BackupError(f"The file is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BackupError(
            "This is not a registry backup (made by `manage.py export_registry --format backup`): "
            f'it has no "format": "{FORMAT}".'
        )
    if document.get("version") == 1 and "sha256" in document:
        raise BackupError(
            "This backup was made by an older version of the registry, with an unkeyed digest that "
            "anyone could recompute, so it cannot be verified. Make a new, signed backup with "
            "`manage.py export_registry --format backup`. Nothing was restored."
        )
    errors = sorted(
        jsonschema.Draft202012Validator(backup_schema()).iter_errors(document), key=lambda e: list(e.absolute_path)
    )
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top level)"
        raise BackupError(
            f"The backup does not match its schema at {where}: {first.message}"
            + (f" ({len(errors) - 1} more problem(s))" if len(errors) > 1 else "")
        )
    key = backup_key()
    if document["key_id"] != key_id(key):
        raise BackupError(
            f"The backup was signed with another key (key id {document['key_id']}; this registry's "
            f"is {key_id(key)}): restore it with the key it was made with "
            "(REGISTRY_BACKUP_KEY_FILE). Nothing was restored."
        )
    if not hmac.compare_digest(signature(document, key), document["hmac_sha256"]):
        raise BackupError(
            "The backup's content does not match its HMAC-SHA256 signature: it was changed after "
            "export (or damaged). Nothing was restored."
        )
    if render(document) != text:
        raise BackupError(
            "The backup's bytes differ from what export_registry writes for this content: the file "
            "was edited after export. Nothing was restored."
        )
    if not any(r["model"] == "registry.namespace" for r in document["records"]) and not any(
        r["model"] == "auth.user" for r in document["records"]
    ):
        raise BackupError("The backup holds no accounts and no SNIDs: there is nothing to restore.")
    return document
