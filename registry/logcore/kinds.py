"""What the log records: a registry of leaf kinds, each a versioned JSON schema.

Pure Python (no Django): the verifier reads leaves with it. A leaf is one canonical
JSON object — keys sorted, no insignificant white space, UTF-8, integers and strings
only (no floats), which is RFC 8785 for such values — with an envelope shared by all
kinds (``kind``, ``v`` the kind's schema version, ``at`` when it was logged, UTC to the
second) and the kind's own fields beside it. A new kind of public change adds one
``register(...)`` call here and one ``log_append`` call in the service that makes the
change; a changed shape of an existing kind raises its version, and old leaves keep
the version they were written with.

``jsonschema`` is imported, and each kind's schema checked, when a leaf of that kind is first
encoded or validated — not when this module is imported: every command imports the log through
the lookup, and checking the nine schemas cost a quarter of a second of each start
(tests/test_startup.py; tests/transparency/test_kinds.py checks them all).
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .tiles import MAX_ENTRY

if TYPE_CHECKING:
    import jsonschema

_TEXT = {"type": "string", "maxLength": 100_000}
_SNID = {"type": "string", "minLength": 1, "maxLength": 32}
# ``[0-9]``, never ``\d``: JSON Schema patterns run as Python regular expressions here, where ``\d``
# also matches other scripts' digits ("٢٠٢٦").
_DATE = {"type": ["string", "null"], "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
_SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_TEXTS = {"type": "array", "items": _TEXT}


@dataclass(frozen=True)
class LeafKind:
    name: str
    version: int
    description: str
    schema: dict


KINDS: dict[str, LeafKind] = {}


def register(name: str, version: int, description: str, properties: dict, required: list[str]) -> LeafKind:
    envelope = {
        "kind": {"const": name},
        "v": {"const": version},
        "at": {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"},
    }
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {**envelope, **properties},
        "required": ["kind", "v", "at", *required],
    }
    KINDS[name] = kind = LeafKind(name, version, description, schema)
    return kind


#: The public record of one registered version: registry.json's record without what is
#: derived from it (the page URL, the published pattern).
RECORD_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": [
        "snid",
        "version",
        "registration_date",
        "title",
        "document",
        "registrant",
        "grammar",
        "examples",
        "equivalence",
        "max_length",
    ],
    "properties": {
        "snid": _SNID,
        "version": {"type": "integer", "minimum": 1},
        "registration_date": _DATE,
        "title": _TEXT,
        "document": {
            "type": "object",
            "additionalProperties": False,
            "required": ["reference", "url", "status", "type"],
            "properties": {"reference": _TEXT, "url": _TEXT, "status": _TEXT, "type": _TEXT},
        },
        "registrant": {
            "type": "object",
            "additionalProperties": False,
            "required": ["name", "organisation", "email", "contact"],
            "properties": {k: _TEXT for k in ("name", "organisation", "email", "contact")},
        },
        "grammar": {
            "type": "object",
            "additionalProperties": False,
            "required": ["abnf", "rule"],
            "properties": {"abnf": _TEXT, "rule": _TEXT},
        },
        "examples": {
            "type": "object",
            "additionalProperties": False,
            "required": ["valid", "invalid"],
            "properties": {"valid": _TEXTS, "invalid": _TEXTS},
        },
        "equivalence": _TEXTS,
        "max_length": {"type": ["integer", "null"]},
    },
}
RECORD_KEYS = tuple(RECORD_SCHEMA["required"])

SNID_VERSION = register(
    "snid-version",
    1,
    "A version of an SNID was registered (approved): its public record, the record's digest and the "
    "digest of the whole registration document (unpublished registrant details included). A record too "
    "large for one entry bundle is carried by its digest alone. A version approved over the review's rule "
    "(a failing check, a judgement not satisfied or not recorded) also carries what it was approved over and "
    "the editor's reason (by its digest alone where the text would not fit).",
    {
        "snid": _SNID,
        "version": {"type": "integer", "minimum": 1},
        "record": RECORD_SCHEMA,
        "record_sha256": _SHA256,
        "document_sha256": _SHA256,
        "approval": {
            "type": "object",
            "additionalProperties": False,
            "required": ["overridden", "override_sha256"],
            "properties": {
                "overridden": {"type": "array", "items": {"type": "string", "maxLength": 1000}, "maxItems": 100},
                "override_reason": {"type": "string", "maxLength": 20000},
                "override_sha256": _SHA256,
            },
        },
    },
    ["snid", "version", "record_sha256", "document_sha256"],
)

RESERVATION_GRANTED = register(
    "reservation-granted",
    1,
    "An SNID was reserved (or a reservation renewed) until a date, before any registration (GFD.191 §4).",
    {"snid": _SNID, "reserved_until": _DATE, "renewal": {"type": "boolean"}},
    ["snid", "reserved_until", "renewal"],
)

RESERVATION_ENDED = register(
    "reservation-ended",
    1,
    "A reservation ended without a registration: it expired, or an editor released it (then the day it was "
    "released and the editor who released it; the date it was to run until is kept as well).",
    {
        "snid": _SNID,
        "reserved_until": _DATE,
        "how": {"enum": ["expired", "released"]},
        "released_on": _DATE,
        "released_by": {"type": "string", "minLength": 1, "maxLength": 150},
    },
    ["snid", "reserved_until", "how"],
)

SNID_RESOLVERS = register(
    "snid-resolvers",
    1,
    "The resolvers of a registered SNID were set: on approval of a version (copied from its section 3.2) "
    "or changed by an editor afterwards (with the reason); the syntax and meaning of URNs do not change.",
    {
        "snid": _SNID,
        "version": {"type": "integer", "minimum": 1},
        "how": {"enum": ["approved", "changed"]},
        "reason": _TEXT,
        "resolvers": {
            "type": "array",
            "maxItems": 10,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "template", "returns", "media_types", "primary"],
                "properties": {
                    "name": _TEXT,
                    "template": _TEXT,
                    "returns": _TEXT,
                    "media_types": _TEXTS,
                    "primary": {"type": "boolean"},
                },
            },
        },
    },
    ["snid", "version", "how", "reason", "resolvers"],
)


_NAME = {"type": "string", "maxLength": 300}
_PUBLIC_REGISTRANT = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "organisation", "email", "contact"],
    "properties": {k: _TEXT for k in ("name", "organisation", "email", "contact")},
}

STEWARD_CHANGED = register(
    "steward-changed",
    1,
    "Who acts for an SNID changed: the registrant became its first steward on approval, an editor added or "
    "removed a steward, or confirmed one a steward invited.",
    {"snid": _SNID, "change": {"enum": ["added", "removed", "confirmed"]}, "steward": _NAME, "reason": _TEXT},
    ["snid", "change", "steward", "reason"],
)

STEWARD_RENAMED = register(
    "steward-renamed",
    1,
    "A steward chose another public name (or none): the log and the site name them so from now on, never by "
    "their login name. One entry for each SNID they are a steward of.",
    {"snid": _SNID, "steward": _NAME, "previous": _NAME},
    ["snid", "steward", "previous"],
)

ADMINISTRATIVE_CHANGE = register(
    "administrative-change",
    1,
    "An editor approved a steward's request to change an administrative detail of an SNID (its public "
    "contact, the registrant's details, its resolvers) without a new version. The entry holds the new "
    "public values (fields); where the change shows in the version's public record, also that record's "
    "registrant and digest (registrant, record_sha256) from now on.",
    {
        "snid": _SNID,
        "version": {"type": "integer", "minimum": 1},
        "change": {"type": "string", "maxLength": 40},
        "fields": {"type": "object", "additionalProperties": _TEXT},
        "registrant": _PUBLIC_REGISTRANT,
        "record_sha256": _SHA256,
    },
    ["snid", "version", "change", "fields"],
)

SNID_DEPRECATED = register(
    "snid-deprecated",
    1,
    "An editor deprecated an SNID: it stays registered and is never reassigned; new identifiers should use "
    "the successor, if one is named.",
    {"snid": _SNID, "reason": _TEXT, "successor": {"type": ["string", "null"], "maxLength": 32}},
    ["snid", "reason", "successor"],
)

SNID_UNDEPRECATED = register(
    "snid-undeprecated",
    1,
    "An editor withdrew an SNID's deprecation.",
    {"snid": _SNID, "reason": _TEXT},
    ["snid", "reason"],
)


def canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def sha256_hex(value) -> str:
    return hashlib.sha256(canonical(value)).hexdigest()


class LeafError(ValueError):
    """A leaf that does not follow its kind's schema."""


@functools.cache
def _validator(name: str) -> jsonschema.Draft202012Validator:
    """The kind's validator, its schema checked first (once per process: see the module's docstring)."""
    import jsonschema

    schema = KINDS[name].schema
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def leaf_validate(leaf: dict) -> LeafKind:
    kind = KINDS.get(leaf.get("kind")) if isinstance(leaf, dict) else None
    if kind is None:
        raise LeafError(f"Unknown leaf kind {leaf.get('kind') if isinstance(leaf, dict) else leaf!r}.")
    validator = _validator(kind.name)
    if validator.is_valid(leaf):  # a verifier validates every leaf of the log: the common case first
        return kind
    from jsonschema.exceptions import best_match

    error = best_match(validator.iter_errors(leaf))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "the leaf"
        raise LeafError(f"{kind.name} leaf, at {where}: {error.message}")
    return kind


def leaf_encode(kind: str, fields: dict, at: str) -> bytes:
    """The canonical bytes of a leaf of ``kind`` (validated against its schema)."""
    if kind not in KINDS:
        raise LeafError(f"Unknown leaf kind {kind!r}; register it in registry/logcore/kinds.py.")
    leaf = {**fields, "kind": kind, "v": KINDS[kind].version, "at": at}
    if kind == SNID_VERSION.name and len(canonical(leaf)) > MAX_ENTRY:
        leaf.pop("record", None)  # the digest still commits to it
    if kind == SNID_VERSION.name and len(canonical(leaf)) > MAX_ENTRY and "approval" in leaf:
        leaf["approval"] = {k: v for k, v in leaf["approval"].items() if k != "override_reason"}  # its digest stays
    leaf_validate(leaf)
    data = canonical(leaf)
    if len(data) > MAX_ENTRY:
        raise LeafError(f"A {kind} leaf of {len(data):,} bytes is over the {MAX_ENTRY:,} bytes of an entry.")
    return data


def leaf_decode(data: bytes) -> dict:
    try:
        leaf = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise LeafError(f"Not a JSON leaf: {exc}") from None
    leaf_validate(leaf)
    if canonical(leaf) != data:
        raise LeafError("The leaf is not in canonical form.")
    return leaf


def record_of_export(record: dict) -> dict:
    """The logged part of a registry.json record: its logged keys, and of the nested objects only the
    logged fields (an export may carry more, e.g. the document type, than version 1 of the leaf logs)."""
    logged = {key: record.get(key) for key in RECORD_KEYS}
    for key, schema in RECORD_SCHEMA["properties"].items():
        if schema.get("type") == "object" and isinstance(logged.get(key), dict):
            logged[key] = {name: logged[key].get(name) for name in schema["properties"]}
    return logged


def describe(leaf: dict) -> str:
    """A short human name for a leaf, for reports."""
    if leaf.get("kind") == SNID_VERSION.name:
        return f"urn:ogf:{leaf.get('snid')}: version {leaf.get('version')}"
    return f"{leaf.get('kind')} urn:ogf:{leaf.get('snid')}:"
