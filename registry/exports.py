"""The registry as data: JSON, CSV and XML exports (docs/registry-exports.md).

One record shape feeds all three formats, so they always agree. Only
registered SNIDs (their current approved version) and active reservations
are exported; drafts and pending proposals never are.

An export is rebuilt whenever the registry changes (every cached copy is keyed
by the registry stamp), so building it must stay cheap at 1,000+ SNIDs: one
query reads only the columns a record shows (never the prose sections, the
findings or the private address) as tuples, not model instances; JSON is
written by orjson and XML by string templates, both byte for byte what
``json.dumps(indent=2)`` and ElementTree wrote before (tests compare them).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from dataclasses import dataclass
from functools import cache

import orjson
from django.conf import settings
from django.db.models import JSONField, Max, OuterRef, Subquery, TextField
from django.db.models.functions import Cast
from django.urls import reverse
from django.utils import timezone

from .enums import NamespaceStatus
from .grammar.portable import published_pattern
from .models import Namespace, Proposal

XML_NAMESPACE = "urn:ogf:registry"
CSV_COLUMNS = [
    "snid",
    "version",
    "registration_date",
    "title",
    "document_reference",
    "document_url",
    "document_status",
    "document_type",
    "registrant_name",
    "registrant_organisation",
    "registrant_email",
    "registrant_contact",
    "equivalence",
    "max_length",
    "pattern",
    "url",
    "status",
    "successor",
    "resolvers",
]


@dataclass(slots=True)
class RegistrySnapshot:
    records: list[dict]
    reservations: list[dict]
    updated: str  # ISO timestamp of the last change

    @property
    def etag(self) -> str:
        digest = hashlib.blake2b(digest_size=12)
        digest.update(json.dumps([self.updated, len(self.records), len(self.reservations)]).encode())
        return digest.hexdigest()


def last_modified():
    """When the registry last changed (an approval or a reservation), or None if empty."""
    changed = Namespace.objects.aggregate(latest=Max("updated_at"))["latest"]
    decided = Proposal.objects.approved().aggregate(latest=Max("decided_at"))["latest"]
    return max((t for t in (changed, decided) if t), default=None)


#: What a record shows of an SNID and its current version, read as one tuple per SNID.
_COLUMNS = (
    "snid",
    "status",
    "reserved_until",
    "current_id",
    "current__version",
    "current__registration_date",
    "current__title",
    "current__document_reference",
    "current__document_url",
    "current__document_status",
    "current__document_type",
    "current__registrant_name",
    "current__registrant_organisation",
    "current__registrant_email",
    "current__registrant_public_contact",
    "current__registrant_published",
    "current__grammar_abnf",
    "current__grammar_rule",
    "current__examples_valid",
    "current__examples_invalid",
    "current__equivalence",
    "current__max_length",
    "current__validator",
)


@cache
def _select() -> tuple[list, tuple[int, ...]]:
    """What the export query selects, and where the JSON columns are in it.

    JSON columns are read as their text and decoded with orjson: Django's JSONField decodes
    each value with the standard library, a third of a cold export of 1,000 SNIDs.
    """
    select, positions = [], []
    for index, column in enumerate(_COLUMNS):
        model, *path, name = [Namespace, *column.split("__")]
        for step in path:
            model = model._meta.get_field(step).related_model
        if isinstance(model._meta.get_field(name), JSONField):
            select.append(Cast(column, TextField()))
            positions.append(index)
        else:
            select.append(column)
    return select, tuple(positions)


def _decoded(row: tuple, positions: tuple[int, ...]) -> tuple:
    """``row`` with the JSON columns' text at ``positions`` decoded (SQL NULL stays None)."""
    values = list(row)
    for index in positions:
        if values[index] is not None:
            values[index] = orjson.loads(values[index])
    return tuple(values)


#: SNIDs whose page URL is the reversed pattern with the SNID put in (reverse() would quote nothing).
_PLAIN_SNID = re.compile(r"[A-Za-z0-9-]+")


def _page_url(base_url: str):
    """``snid -> base_url + namespace.get_absolute_url()``, reversing the URL pattern once."""
    template = reverse("registry:namespace_detail", args=["SNID"])
    head, tail = template.split("SNID", 1)

    def url(snid: str) -> str:
        if _PLAIN_SNID.fullmatch(snid):
            return f"{base_url}{head}{snid}{tail}"
        return f"{base_url}{reverse('registry:namespace_detail', args=[snid])}"

    return url


def _record(row: tuple, url: str) -> dict:
    """One SNID's public record; registrant details follow the registrant's choice of what to publish
    (as ``Proposal.registrant_public`` does)."""
    (
        snid,
        _,
        _,
        _,
        version,
        date,
        title,
        reference,
        document_url,
        status,
        document_type,
        name,
        organisation,
        email,
        contact,
        published,
        abnf,
        rule,
        valid,
        invalid,
        equivalence,
        max_length,
        validator,
    ) = row
    chosen = set(published or ())
    return {
        "snid": snid,
        "version": version,
        "registration_date": date.isoformat() if date else None,
        "title": title,
        "document": {"reference": reference, "url": document_url, "status": status, "type": document_type},
        "registrant": {
            "name": name if "name" in chosen else "",
            "organisation": organisation if "organisation" in chosen else "",
            "email": email if "email" in chosen else "",
            "contact": contact,
        },
        "grammar": {"abnf": abnf, "rule": rule},
        "examples": {"valid": list(valid), "invalid": list(invalid)},
        "equivalence": list(equivalence),
        "max_length": max_length,
        "pattern": published_pattern(snid, validator),
        "url": url,
    }


def registry_snapshot(base_url: str | None = None, updated=None) -> RegistrySnapshot:
    """Every registered SNID's current version and the active reservations.

    Two queries (one if the caller already knows ``updated``, the registry's last change).
    """
    base_url = settings.SITE_URL if base_url is None else base_url
    url = _page_url(base_url)
    today = timezone.localdate()
    records, reservations = [], []
    select, json_positions = _select()
    width = len(select)
    for row in _with_life(Namespace.objects.order_by("snid")).values_list(*select, *_LIFE):
        snid, status, reserved_until, current_id = row[:4]
        if status == NamespaceStatus.REGISTERED and current_id:
            record = _record(_decoded(row[:width], json_positions), url(snid))
            records.append(_lived(record, row[width:], row[_PUBLISHED]))
        elif status == NamespaceStatus.RESERVED and (reserved_until is None or reserved_until >= today):
            # selectors.reservation_active, on the tuple
            reservations.append(
                {"snid": snid, "reserved_until": reserved_until.isoformat() if reserved_until else None}
            )
    _with_resolvers(records)
    changed = last_modified() if updated is None else updated
    return RegistrySnapshot(records, reservations, (changed or timezone.now()).isoformat())


def _with_resolvers(records: list[dict]) -> None:
    """Each record's current resolvers with their health status (one query for all)."""
    from .resolution.models import Resolver

    by_snid: dict[str, list] = {}
    for snid, name, template, returns, types, primary, status, checked in (
        Resolver.objects.current()
        .order_by("namespace_id", "order", "id")
        .values_list(
            "namespace__snid", "name", "template", "returns", "media_types", "primary", "status", "last_checked_at"
        )
    ):
        by_snid.setdefault(snid, []).append(
            {
                "name": name,
                "template": template,
                "returns": returns,
                "media_types": list(types or []),
                "primary": primary,
                "status": status,
                "last_checked_at": checked.isoformat() if checked else None,
            }
        )
    for record in records:
        record["resolvers"] = by_snid.get(record["snid"], [])


#: Where the registrant's choice of what to publish is in a row (read as text).
_PUBLISHED = _COLUMNS.index("current__registrant_published")
#: An SNID's life after approval, read in the same query (registry.stewardship): the overlay of
#: administrative changes on its current version, and a deprecation in force.
_LIFE = ("life_overlay_version", "life_overlay", "life_deprecated", "life_successor")


def _with_life(namespaces):
    from .stewardship.models import RegistrantOverlay, deprecated_in_force, successor_in_force

    overlay = RegistrantOverlay.objects.filter(namespace_id=OuterRef("pk"))
    return namespaces.annotate(
        life_overlay_version=Subquery(overlay.values("version")[:1]),
        life_overlay=Subquery(overlay.annotate(text=Cast("values", TextField())).values("text")[:1]),
        life_deprecated=deprecated_in_force(),
        life_successor=successor_in_force(),
    )


def _lived(record: dict, life: tuple, published) -> dict:
    """The record with the administrative changes in force (as the SNID page shows them) and its status."""
    overlay_version, overlay, deprecated, successor = life
    if overlay and overlay_version == record["version"]:
        values = orjson.loads(overlay) if isinstance(overlay, str) else overlay
        chosen = set(published if isinstance(published, list) else orjson.loads(published or "[]"))
        registrant = record["registrant"]
        if "registrant_public_contact" in values:
            registrant["contact"] = values["registrant_public_contact"]
        for key in ("name", "organisation", "email"):
            if f"registrant_{key}" in values and key in chosen:
                registrant[key] = values[f"registrant_{key}"]
    record["status"] = "deprecated" if deprecated else "registered"
    record["successor"] = successor if deprecated else None
    return record


def as_json(snapshot: RegistrySnapshot) -> str:
    """Two-space indented, non-ASCII as is: the bytes ``json.dumps(indent=2, ensure_ascii=False)`` wrote."""
    return orjson.dumps(
        {
            "registry": "urn:ogf subnamespace identifiers",
            "specification": "GFD.191, RFC 6453",
            "updated": snapshot.updated,
            "snids": snapshot.records,
            "reservations": snapshot.reservations,
        },
        option=orjson.OPT_INDENT_2,
    ).decode("utf-8")


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value) -> str:
    """Text for a spreadsheet cell; a leading = + - @ is quoted so it is never a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in _FORMULA_START else text


def as_csv(snapshot: RegistrySnapshot) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    cell = _csv_cell
    writer.writerows(
        [
            cell(r["snid"]),
            cell(r["version"]),
            cell(r["registration_date"]),
            cell(r["title"]),
            cell(r["document"]["reference"]),
            cell(r["document"]["url"]),
            cell(r["document"]["status"]),
            cell(r["document"].get("type", "")),
            cell(r["registrant"]["name"]),
            cell(r["registrant"]["organisation"]),
            cell(r["registrant"]["email"]),
            cell(r["registrant"]["contact"]),
            cell(" ".join(r["equivalence"])),
            cell(r["max_length"] or ""),
            cell(r["pattern"]),
            cell(r["url"]),
            cell(r["status"]),
            cell(r["successor"]),
            cell(" ".join(f"{x['name']}={x['template']} ({x['status']})" for x in r.get("resolvers", ()))),
        ]
        for r in snapshot.records
    )
    return out.getvalue()


#: Characters XML 1.0 cannot carry (the C0 controls other than tab, line feed and carriage return).
_XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _xml_text(value) -> str:
    """XML 1.0 cannot carry most control characters; drop them rather than emit broken XML."""
    text = "" if value is None else str(value)
    return _XML_UNSAFE.sub("", text)


def _cdata(text: str) -> str:
    """Element text escaped as ElementTree escapes it."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def _attr(text: str) -> str:
    """An attribute value escaped as ElementTree escapes it."""
    text = _cdata(text)
    if '"' in text:
        text = text.replace('"', "&quot;")
    if "\r" in text:
        text = text.replace("\r", "&#13;")
    if "\n" in text:
        text = text.replace("\n", "&#10;")
    if "\t" in text:
        text = text.replace("\t", "&#09;")
    return text


def _leaf(tag: str, text: str, attributes: str = "") -> str:
    """``<tag attributes>text</tag>``, or ``<tag attributes />`` without text, as ElementTree writes it."""
    return f"<{tag}{attributes}>{_cdata(text)}</{tag}>" if text else f"<{tag}{attributes} />"


def _parent(tag: str, children: list[str], indent: str, attributes: str = "") -> str:
    """An element holding ``children``, laid out as ``ElementTree.indent`` lays it out."""
    if not children:
        return f"<{tag}{attributes} />"
    inner = indent + "  "
    return f"<{tag}{attributes}>{inner}{inner.join(children)}{indent}</{tag}>"


def _xml_record(record: dict) -> str:
    """One <record>, at the indentation it has under <registry>."""
    i = "\n    "
    document, registrant = record["document"], record["registrant"]
    children = [_leaf(key, _xml_text(record[key])) for key in ("snid", "version", "title")]
    kind = f' type="{_attr(document["type"])}"' if document.get("type") else ""
    children.append(
        _leaf(
            "document",
            _xml_text(document["reference"]),
            f' href="{_attr(_xml_text(document["url"]))}" status="{_attr(document["status"])}"{kind}',
        )
    )
    children.append(
        _parent(
            "registrant",
            [_leaf(key, _xml_text(registrant[key])) for key in ("name", "organisation", "email", "contact")],
            i,
        )
    )
    children.append(
        _leaf("grammar", _xml_text(record["grammar"]["abnf"]), f' rule="{_attr(_xml_text(record["grammar"]["rule"]))}"')
    )
    children.append(
        _parent(
            "examples",
            [_leaf(kind, _xml_text(urn)) for kind in ("valid", "invalid") for urn in record["examples"][kind]],
            i,
        )
    )
    children.append(_parent("equivalence", [_leaf("step", step) for step in record["equivalence"]], i))
    if record["max_length"]:
        children.append(_leaf("max_length", str(record["max_length"])))
    if record["pattern"]:
        children.append(_leaf("pattern", record["pattern"], ' syntax="re2-ecmascript"'))
    if record.get("resolvers"):
        children.append(
            _parent(
                "resolvers",
                [
                    _leaf(
                        "resolver",
                        _xml_text(r["template"]),
                        f' name="{_attr(_xml_text(r["name"]))}" returns="{_attr(r["returns"])}"'
                        f' primary="{str(r["primary"]).lower()}"'
                        f' status="{_attr(r["status"])}"',
                    )
                    for r in record["resolvers"]
                ],
                i,
            )
        )
    children.append(_leaf("url", record["url"]))
    children.append(
        _leaf("status", record["status"], f' successor="{_attr(record["successor"])}"' if record["successor"] else "")
    )
    return _parent("record", children, "\n  ", f' date="{_attr(record["registration_date"] or "")}"')


def as_xml(snapshot: RegistrySnapshot) -> str:
    """Modelled on IANA's registry XML: a <registry> of <record>s.

    Written as ElementTree with ``ET.indent`` wrote it (``tests/test_exports.py`` compares
    the two on hostile text), without building a tree of 20,000 elements first.
    """
    children = [
        "<title>urn:ogf subnamespace identifiers</title>",
        '<xref type="gfd" data="GFD.191" />',
        _leaf("updated", snapshot.updated),
    ]
    children += [_xml_record(record) for record in snapshot.records]
    children += [
        _leaf("reservation", reservation["snid"], f' until="{_attr(reservation["reserved_until"] or "")}"')
        for reservation in snapshot.reservations
    ]
    root = _parent("registry", children, "\n", f' xmlns="{XML_NAMESPACE}" id="urn-ogf-snids"')
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + root + "\n"


FORMATS = {
    "json": (as_json, "application/json"),
    "csv": (as_csv, "text/csv; charset=utf-8"),
    "xml": (as_xml, "application/xml; charset=utf-8"),
}
