"""The exports' writers (registry/exports.py): the same bytes as the standard library's, and
one lean query whatever the registry's size."""

import json
import xml.etree.ElementTree as ET

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from benchmarks.data import populate
from registry import exports
from registry.exports import XML_NAMESPACE, RegistrySnapshot

from .factories import proposal_factory, user_factory

HOSTILE = "a & b < c > d \"e\" 'f' \t tab \r\n line \x00\x01\x0b\x1f\x7f ünïcødé \u2028 😀 ]]> <!-- -->"


def _record(snid: str, text: str, **changes) -> dict:
    record = {
        "snid": snid,
        "version": 3,
        "registration_date": "2026-01-02",
        "title": text,
        "document": {
            "reference": text,
            "url": "https://x.example/?a=1&b=" + text,
            "status": "informational",
            "type": "Informational",
        },
        "registrant": {"name": text, "organisation": "", "email": "a@b.example", "contact": text},
        "grammar": {"abnf": text + "\nrule = 1*ALPHA\n", "rule": text},
        "examples": {"valid": [f"urn:ogf:{snid}:x", text, ""], "invalid": [text]},
        "equivalence": ["case-insensitive-nss", "unknown & <odd>"],
        "max_length": 120,
        "pattern": "^[uU][rR][nN]:x&y<z>$",
        "url": f"https://registry.example/urn/{snid}/",
        "status": "registered",
        "successor": None,
    }
    record.update(changes)
    return record


def _snapshot() -> RegistrySnapshot:
    return RegistrySnapshot(
        records=[
            _record("hostile", HOSTILE),
            _record(
                "empty",
                "",
                registration_date=None,
                examples={"valid": [], "invalid": []},
                equivalence=[],
                max_length=None,
                pattern=None,
            ),
            _record(
                "spaces", "   ", max_length=0, grammar={"abnf": "", "rule": ""}, status="deprecated", successor='a&"b'
            ),
        ],
        reservations=[{"snid": "held", "reserved_until": "2027-06-30"}, {"snid": "kept", "reserved_until": None}],
        updated="2026-11-22T05:40:12.345678+00:00",
    )


def _elementtree_xml(snapshot: RegistrySnapshot) -> str:
    """The XML export as it was written with ElementTree: the reference the string writer must match."""
    ET.register_namespace("", XML_NAMESPACE)
    q = lambda name: f"{{{XML_NAMESPACE}}}{name}"  # noqa: E731
    text = exports._xml_text
    root = ET.Element(q("registry"), {"id": "urn-ogf-snids"})
    ET.SubElement(root, q("title")).text = "urn:ogf subnamespace identifiers"
    ET.SubElement(root, q("xref"), {"type": "gfd", "data": "GFD.191"})
    ET.SubElement(root, q("updated")).text = snapshot.updated
    for record in snapshot.records:
        element = ET.SubElement(root, q("record"), {"date": record["registration_date"] or ""})
        for key in ("snid", "version", "title"):
            ET.SubElement(element, q(key)).text = text(record[key])
        ET.SubElement(
            element,
            q("document"),
            {
                "href": text(record["document"]["url"]),
                "status": record["document"]["status"],
                **({"type": record["document"]["type"]} if record["document"].get("type") else {}),
            },
        ).text = text(record["document"]["reference"])
        registrant = ET.SubElement(element, q("registrant"))
        for key in ("name", "organisation", "email", "contact"):
            ET.SubElement(registrant, q(key)).text = text(record["registrant"][key])
        ET.SubElement(element, q("grammar"), {"rule": text(record["grammar"]["rule"])}).text = text(
            record["grammar"]["abnf"]
        )
        examples = ET.SubElement(element, q("examples"))
        for kind in ("valid", "invalid"):
            for urn in record["examples"][kind]:
                ET.SubElement(examples, q(kind)).text = text(urn)
        equivalence = ET.SubElement(element, q("equivalence"))
        for step in record["equivalence"]:
            ET.SubElement(equivalence, q("step")).text = step
        if record["max_length"]:
            ET.SubElement(element, q("max_length")).text = str(record["max_length"])
        if record["pattern"]:
            ET.SubElement(element, q("pattern"), {"syntax": "re2-ecmascript"}).text = record["pattern"]
        ET.SubElement(element, q("url")).text = record["url"]
        ET.SubElement(
            element, q("status"), {"successor": record["successor"]} if record["successor"] else {}
        ).text = record["status"]
    for reservation in snapshot.reservations:
        ET.SubElement(root, q("reservation"), {"until": reservation["reserved_until"] or ""}).text = reservation["snid"]
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def test_xml_export_is_what_elementtree_writes_for_hostile_text():
    snapshot = _snapshot()
    assert exports.as_xml(snapshot) == _elementtree_xml(snapshot)


def test_xml_export_of_an_empty_registry_is_what_elementtree_writes():
    snapshot = RegistrySnapshot(records=[], reservations=[], updated="2026-11-22T05:40:12+00:00")
    assert exports.as_xml(snapshot) == _elementtree_xml(snapshot)


def test_xml_export_drops_only_the_characters_xml_cannot_carry():
    assert exports._xml_text("".join(map(chr, range(0x30)))) == "\t\n\r" + "".join(map(chr, range(0x20, 0x30)))


def test_json_export_is_what_json_dumps_writes_for_hostile_text():
    snapshot = _snapshot()
    snapshot.records[0]["title"] = "".join(chr(c) for c in range(0x3000) if not 0xD800 <= c <= 0xDFFF)
    expected = json.dumps(
        {
            "registry": "urn:ogf subnamespace identifiers",
            "specification": "GFD.191, RFC 6453",
            "updated": snapshot.updated,
            "snids": snapshot.records,
            "reservations": snapshot.reservations,
        },
        indent=2,
        ensure_ascii=False,
    )
    assert exports.as_json(snapshot) == expected


@pytest.mark.django_db
def test_snapshot_records_are_the_models_public_records():
    """The tuple query gives what the model's own accessors give (registrant_public, the page URL)."""
    owner, editor = user_factory("owner"), user_factory(editor=True)
    proposal = proposal_factory(owner, state="approved", editor=editor, snid="Mixed-Case", title="Tuples & models")
    proposal.refresh_from_db()
    namespace = proposal.namespace
    public = proposal.registrant_public()
    [record] = exports.registry_snapshot("https://registry.example").records
    assert record["snid"] == namespace.snid
    assert record["registrant"] == {key: public[key] for key in ("name", "organisation", "email", "contact")}
    assert record["url"] == "https://registry.example" + namespace.get_absolute_url()
    assert record["grammar"] == {"abnf": proposal.grammar_abnf, "rule": proposal.grammar_rule}


@pytest.mark.django_db
def test_snapshot_reads_neither_sections_nor_findings_nor_private_addresses():
    populate(3)
    with CaptureQueriesContext(connection) as captured:
        exports.registry_snapshot(updated=None)
    sql = " ".join(query["sql"] for query in captured.captured_queries)
    # the namespaces, the last change, and one query for every SNID's resolvers
    assert (len(captured), "sections" in sql, "findings" in sql, "registrant_address" in sql) == (
        4,
        False,
        False,
        False,
    )


@pytest.mark.django_db
def test_exports_carry_each_snids_resolvers_and_their_status(client):
    from django.utils import timezone

    from registry import demo
    from registry.lookup import registry_invalidate
    from registry.resolution.health import ProbeResult, record
    from registry.resolution.models import Resolver

    demo.demo_load(user_factory("applicant"), user_factory("editor", editor=True))
    fdc = Resolver.objects.current().get(namespace__snid="fdc")
    record(fdc, ProbeResult(True, "https://fdc.example.org/resolve?urn=x", 200, 80), now=timezone.now())
    registry_invalidate()
    body = json.loads(client.get("/urn/registry.json").content)
    by_snid = {r["snid"]: r["resolvers"] for r in body["snids"]}
    assert [(r["name"], r["template"], r["status"]) for r in by_snid["example"]] == [
        ("Cluster catalogue", "https://catalogue.example.net/{DOMAIN}/{INDEX}", "unknown"),
        ("Metadata", "https://catalogue.example.net/api/{nss}", "unknown"),
    ]
    assert by_snid["fdc"][0]["status"] == "up" and by_snid["fdc"][0]["last_checked_at"]
    text = client.get("/urn/registry.csv").content.decode()
    assert "FDC resolver=https://fdc.example.org/resolve?urn={nss} (up)" in text
    root = ET.fromstring(client.get("/urn/registry.xml").content)
    found = {
        (element.get("name"), element.text, element.get("status"))
        for element in root.iter(f"{{{XML_NAMESPACE}}}resolver")
    }
    assert ("FDC resolver", "https://fdc.example.org/resolve?urn={nss}", "up") in found
    assert ("Metadata", "https://catalogue.example.net/api/{nss}", "unknown") in found
