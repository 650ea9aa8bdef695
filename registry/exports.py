"""The registry as data: JSON, CSV and XML exports (docs/registry-exports.md).

One record shape feeds all three formats, so they always agree. Only
registered SNIDs (their current approved version) and active reservations
are exported; drafts and pending proposals never are.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from .enums import NamespaceStatus
from .grammar.portable import published_pattern
from .models import Namespace, Proposal
from .selectors import reservation_active

XML_NAMESPACE = "urn:ogf:registry"
CSV_COLUMNS = ["snid", "version", "registration_date", "title", "document_reference", "document_url",
               "document_status", "registrant_name", "registrant_organisation", "registrant_email",
               "registrant_contact", "pattern", "url"]


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


def _record(namespace: Namespace, base_url: str) -> dict:
    """One SNID's public record; registrant details follow the registrant's choice of what to publish."""
    current = namespace.current
    registrant = current.registrant_public()
    return {
        "snid": namespace.snid,
        "version": current.version,
        "registration_date": current.registration_date.isoformat() if current.registration_date else None,
        "title": current.title,
        "document": {"reference": current.document_reference, "url": current.document_url,
                     "status": current.document_status},
        "registrant": {"name": registrant["name"], "organisation": registrant["organisation"],
                       "email": registrant["email"], "contact": registrant["contact"]},
        "grammar": {"abnf": current.grammar_abnf, "rule": current.grammar_rule},
        "examples": {"valid": list(current.examples_valid), "invalid": list(current.examples_invalid)},
        "equivalence": list(current.equivalence),
        "max_length": current.max_length,
        "pattern": published_pattern(namespace.snid, current.validator),
        "url": f"{base_url}{namespace.get_absolute_url()}",
    }


def registry_snapshot(base_url: str | None = None) -> RegistrySnapshot:
    """Every registered SNID's current version and the active reservations (two queries)."""
    base_url = settings.SITE_URL if base_url is None else base_url
    namespaces = list(Namespace.objects.select_related("current").order_by("snid"))
    records = [_record(ns, base_url) for ns in namespaces
               if ns.status == NamespaceStatus.REGISTERED and ns.current_id]
    reservations = [
        {"snid": ns.snid, "reserved_until": ns.reserved_until.isoformat() if ns.reserved_until else None}
        for ns in namespaces if reservation_active(ns)
    ]
    changed = last_modified()
    return RegistrySnapshot(records, reservations, (changed or timezone.now()).isoformat())


def as_json(snapshot: RegistrySnapshot) -> str:
    return json.dumps({
        "registry": "urn:ogf subnamespace identifiers",
        "specification": "GFD.191, RFC 6453",
        "updated": snapshot.updated,
        "snids": snapshot.records,
        "reservations": snapshot.reservations,
    }, indent=2, ensure_ascii=False)


def _csv_cell(value) -> str:
    """Text for a spreadsheet cell; a leading = + - @ is quoted so it is never a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def as_csv(snapshot: RegistrySnapshot) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for record in snapshot.records:
        flat = {
            **record,
            "document_reference": record["document"]["reference"],
            "document_url": record["document"]["url"],
            "document_status": record["document"]["status"],
            "registrant_name": record["registrant"]["name"],
            "registrant_organisation": record["registrant"]["organisation"],
            "registrant_email": record["registrant"]["email"],
            "registrant_contact": record["registrant"]["contact"],
        }
        writer.writerow([_csv_cell(flat[column]) for column in CSV_COLUMNS])
    return out.getvalue()


def _xml_text(value) -> str:
    """XML 1.0 cannot carry most control characters; drop them rather than emit broken XML."""
    text = "" if value is None else str(value)
    return "".join(c for c in text if c in "\t\n\r" or ord(c) >= 0x20)


def as_xml(snapshot: RegistrySnapshot) -> str:
    """Modelled on IANA's registry XML: a <registry> of <record>s."""
    ET.register_namespace("", XML_NAMESPACE)
    q = lambda name: f"{{{XML_NAMESPACE}}}{name}"  # noqa: E731
    root = ET.Element(q("registry"), {"id": "urn-ogf-snids"})
    ET.SubElement(root, q("title")).text = "urn:ogf subnamespace identifiers"
    ET.SubElement(root, q("xref"), {"type": "gfd", "data": "GFD.191"})
    ET.SubElement(root, q("updated")).text = snapshot.updated
    for record in snapshot.records:
        element = ET.SubElement(root, q("record"), {"date": record["registration_date"] or ""})
        for key in ("snid", "version", "title"):
            ET.SubElement(element, q(key)).text = _xml_text(record[key])
        ET.SubElement(element, q("document"), {
            "href": _xml_text(record["document"]["url"]), "status": record["document"]["status"],
        }).text = _xml_text(record["document"]["reference"])
        registrant = ET.SubElement(element, q("registrant"))
        for key in ("name", "organisation", "email", "contact"):
            ET.SubElement(registrant, q(key)).text = _xml_text(record["registrant"][key])
        ET.SubElement(element, q("grammar"), {"rule": _xml_text(record["grammar"]["rule"])}).text = \
            _xml_text(record["grammar"]["abnf"])
        examples = ET.SubElement(element, q("examples"))
        for kind in ("valid", "invalid"):
            for urn in record["examples"][kind]:
                ET.SubElement(examples, q(kind)).text = _xml_text(urn)
        equivalence = ET.SubElement(element, q("equivalence"))
        for step in record["equivalence"]:
            ET.SubElement(equivalence, q("step")).text = step
        if record["max_length"]:
            ET.SubElement(element, q("max_length")).text = str(record["max_length"])
        if record["pattern"]:
            ET.SubElement(element, q("pattern"), {"syntax": "re2-ecmascript"}).text = record["pattern"]
        ET.SubElement(element, q("url")).text = record["url"]
    for reservation in snapshot.reservations:
        ET.SubElement(root, q("reservation"), {"until": reservation["reserved_until"] or ""}).text = \
            reservation["snid"]
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


FORMATS = {"json": (as_json, "application/json"), "csv": (as_csv, "text/csv; charset=utf-8"),
           "xml": (as_xml, "application/xml; charset=utf-8")}
