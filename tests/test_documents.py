"""Documents in and out: importing the seed registrations, exporting GFD.191 documents."""

import functools
import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from registry.documents import UNMAPPED_MARK, document_export, document_import
from registry.gfd191 import PROSE_KEYS, SECTIONS
from registry.grammar import grammar_compile
from registry.models import Proposal

from .docxmaker import make_docx
from .factories import data_factory, proposal_factory, user_factory

SEEDS = Path(__file__).resolve().parent / "seeds"
SEED_FILES = {
    "000": "img-registration.txt",
    "001": "rfc4198-fdc.txt",
    "002": "rfc3085-newsml-ocr.txt",
    "003": "urn-5-registration.txt",
    "004": "gfd191.tex",
}
ALL_SECTIONS = {s.key for s in SECTIONS}
RFC3406 = {
    "snid",
    "version",
    "registrant",
    "syntactic_structure",
    "ancillary_documentation",
    "uniqueness",
    "immutability",
    "identifier_assignment",
    "resolution",
    "lexical_equivalence",
    "reserved_use",
    "validation_mechanism",
    "scope",
}

# What an expert would assign: section keys found, SNID, whether the grammar parses
# (only where the source grammar is intact), example URNs (valid, invalid).
EXPECTED = {
    "000": {
        "sections": {
            "syntactic_structure",
            "ancillary_documentation",
            "uniqueness",
            "immutability",
            "identifier_assignment",
            "resolution",
            "lexical_equivalence",
            "reserved_use",
            "validation_mechanism",
            "scope",
        },
        "snid": "",
        "grammar": "parses",
        "rules": 12,
        "examples": (0, 0),
    },
    "001": {"sections": RFC3406 | {"examples"}, "snid": "fdc", "grammar": "damaged", "examples": (3, 0)},
    "002": {
        "sections": RFC3406 - {"version", "registrant"} | {"examples"},
        "snid": "newsm",
        "grammar": "damaged",
        "examples": (2, 0),
    },
    "003": {"sections": RFC3406 | {"changes"}, "snid": "urn-5", "grammar": "parses", "rules": 5, "examples": (3, 0)},
    "004": {"sections": ALL_SECTIONS, "snid": "example", "grammar": "parses", "rules": 9, "examples": (4, 4)},
}


def seed(prefix: str) -> str:
    return (SEEDS / SEED_FILES[prefix]).read_text(encoding="utf-8")


@pytest.mark.parametrize("prefix", sorted(EXPECTED))
def test_seed_imports_with_the_expected_mapping(prefix):
    expected = EXPECTED[prefix]
    result = document_import(seed(prefix))
    assert set(result.mapped) == expected["sections"]
    assert result.data.snid == expected["snid"]
    valid, invalid = expected["examples"]
    assert (len(result.data.examples.valid), len(result.data.examples.invalid)) == (valid, invalid)
    if expected["grammar"] == "parses":
        compiled = grammar_compile(result.data.grammar.abnf)
        assert compiled.ok and not compiled.errors
        assert len(compiled.parsed.rules) == expected["rules"]
    else:  # extraction or OCR damage: said, not hidden
        assert any("grammar" in note for note in result.notes)


def test_gfd191_example_examples_are_found_valid_and_invalid():
    result = document_import(seed("004"))
    assert result.data.examples.valid[0] == "urn:ogf:example:cluster:2009:example.net:42"
    assert result.data.examples.valid[3] == "urn:ogf:example:supercomputer:2011:xn--tcklt4eq6h7d1cbe.example.org:1"
    assert result.data.examples.invalid[0].endswith(":mark1")
    assert result.data.examples.invalid[3].endswith("%e3%82%bf.example.org:1")  # joined across the line break
    compiled = grammar_compile(result.data.grammar.abnf)
    from registry.grammar import parse_urn

    assert all(compiled.check(parse_urn(u)) == [] for u in result.data.examples.valid)


def test_examples_of_the_documents_own_nid_are_recast_to_urn_ogf_and_said_so():
    result = document_import(seed("001"))  # RFC 4198 registers the NID fdc: imported as the SNID fdc
    assert result.data.snid == "fdc"
    assert result.data.examples.valid[0] == "urn:ogf:fdc:example.com:2002:A572007"
    item = [i for i in result.report.items if i.value == result.data.examples.valid[0]][0]
    assert item.status == "found"  # re-casting its own namespace is what importing it as an SNID means
    assert item.why == "written urn:fdc:example.com:2002:A572007, re-cast as an urn:ogf:fdc: URN"
    assert "Example URNs of urn:fdc: were re-cast as urn:ogf:fdc: — check that they still make sense." in result.notes
    assert not any("another namespace" in note for note in result.notes)


def test_examples_under_a_placeholder_nid_the_document_declares_are_recast():
    result = document_import(seed("003"))  # "urn-n is a placeholder for the namespace id to be assigned"
    assert result.data.examples.valid[2] == "urn:ogf:urn-5:Od4rB2QNOLt1e5wITWSJ+9U2Ve+Zon6N3d:17"
    item = [i for i in result.report.items if i.value == result.data.examples.valid[2]][0]
    assert item.status == "found" and item.lines == [52]
    assert "(the document says urn-n is a placeholder for its namespace)" in item.why
    assert any("re-cast as urn:ogf:urn-5:" in note for note in result.notes)
    assert result.data.registrant.name == "B. Fallenstein"
    assert result.data.registrant.address.endswith("Finland")


def test_an_example_of_another_nid_is_kept_as_written_beside_recast_ones():
    result = document_import(published("rfc5138-cgi.txt"))  # registers cgi; one example is urn:ogc:
    assert "urn:ogc:serviceType:CGI:GSML-FS:1.0" in result.data.examples.valid
    assert "urn:ogf:cgi:document:CGI:CGIIdentifierScheme" in result.data.examples.valid
    other = [i for i in result.report.items if i.value == "urn:ogc:serviceType:CGI:GSML-FS:1.0"][0]
    assert other.status == "uncertain"
    assert other.why == "an example of urn:ogc:, which is not this document's namespace; kept as written"
    assert any("examples of urn:ogc: are URNs of another namespace" in note for note in result.notes)
    assert any("Example URNs of urn:cgi: were re-cast as urn:ogf:cgi:" in note for note in result.notes)


def test_ocr_damaged_examples_are_recovered():
    result = document_import(seed("002"))
    assert result.data.examples.valid[0] == "urn:ogf:newsm:iptc.org:20001006:NewsM_v1.0:1"


def test_unmapped_text_is_kept_in_a_marked_place():
    result = document_import(seed("001"))
    assert UNMAPPED_MARK == "Unplaced text from the imported document"
    assert "Security Considerations" in result.data.unplaced
    assert "Security Considerations" not in result.data.sections.get("changes", "")
    assert "Security Considerations" in result.unmapped


def test_nothing_is_silently_dropped():
    text = "Preface that fits nowhere.\n\nScope:\n   Grid clusters.\n\nAcknowledgments\n\nThanks to all.\n"
    result = document_import(text)
    assert result.data.sections["scope"] == "Grid clusters."
    assert "Preface that fits nowhere." in result.data.unplaced
    assert "### Acknowledgments (source lines 6–8)\n\nThanks to all." in result.data.unplaced
    assert "changes" not in result.data.sections


def test_page_furniture_is_cleaned_and_pdf_hyphenation_undone():
    text = (
        "Scope:\n   Identifiers for grid resour-\n   ces and clusters.\n"
        "Tessman                      Informational                     [Page 3]\n"
        "RFC 4198           URN Namespace for Federated Content      November 2005\n"
        "   More scope text.\n"
    )
    result = document_import(text, format="pdf")
    scope = result.data.sections["scope"]
    assert "resources" in scope and "[Page" not in scope and "RFC 4198" not in scope
    assert any(
        "hyphens were removed at 1 line break(s) (from line 2): the document is a PDF" in n for n in result.notes
    )


def test_rfc_text_keeps_its_line_final_hyphens_and_says_so():
    text = (
        'Scope:\n   Regional or market-\n   based agencies; the index files "rfc-index.txt", "fyi-\n'
        '   index.txt" and more.\n'
    )
    result = document_import(text)
    scope = result.data.sections["scope"]
    assert "market-\nbased" in scope and '"fyi-\nindex.txt"' in scope
    assert any("hyphens were kept as written at 2 line break(s) (from line 2)" in n for n in result.notes)


def test_soft_hyphenation_shown_by_the_document_itself_is_undone():
    text = "Scope:\n   Grid resources and more grid resour-\n   ces, and clusters.\n"
    result = document_import(text)
    assert result.data.sections["scope"] == "Grid resources and more grid resources, and clusters."
    assert any("the joined words are written unbroken elsewhere" in n for n in result.notes)


def test_latex_subsubsections_are_recognised():
    text = (
        "\\subsubsection*{1.1. Namespace Identifier}\n“\\texttt{urn:ogf:demo:}”\n"
        "\\subsubsection*{4.1. Scope}\nOnly \\emph{demo} resources. It \\MUST{} be small.\n"
    )
    result = document_import(text)
    assert result.data.snid == "demo"
    assert result.data.sections["scope"] == "Only *demo* resources. It MUST be small."


@pytest.mark.parametrize("name", ["example", "fdc", "img", "newsml", "urn-5"])
@pytest.mark.parametrize("markdown", [True, False], ids=["markdown", "text"])
def test_export_then_import_gives_back_the_same_sections(name, markdown):
    original = data_factory(name)
    exported = document_export(original, markdown=markdown)
    back = document_import(exported).data
    assert {k: v.strip() for k, v in back.sections.items()} == {k: v.strip() for k, v in original.sections.items()}
    assert (back.snid, back.title, back.version) == (original.snid, original.title, original.version)
    assert back.grammar.abnf.strip() == original.grammar.abnf.strip()
    assert back.grammar.rule == original.grammar.rule
    assert (back.examples.valid, back.examples.invalid) == (original.examples.valid, original.examples.invalid)
    assert back.equivalence == original.equivalence and back.max_length == original.max_length


def test_export_uses_the_template_numbering_and_titles():
    text = document_export(data_factory("example"))
    for section in SECTIONS:
        assert f"{section.number}. {section.title}" in text
    assert text.index("1.1. Namespace Identifier") < text.index("5.2. Identifier Immutability")
    assert "    EXAMPLE-URN = " in text and "    1- urn:ogf:example:cluster:2009:example.net:42" in text
    assert "~~urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:mark1~~" in text


# --- command and pages -------------------------------------------------------------------------


@pytest.mark.django_db
def test_import_document_command_dry_run_json_creates_nothing():
    out = io.StringIO()
    call_command("import_document", str(SEEDS / SEED_FILES["003"]), "--json", "--dry-run", stdout=out)
    payload = json.loads(out.getvalue())
    assert payload["data"]["snid"] == "urn-5"
    assert (payload["proposal_id"], payload["created"]) == (None, False)
    assert Proposal.objects.count() == 0
    email = next(i for i in payload["report"]["items"] if i["field"] == "registrant.email")
    assert (email["status"], email["value"], email["lines"]) == ("found", "b.fallenstein&gmx.de", [18])


@pytest.mark.django_db
def test_import_document_command_json_creates_a_draft_and_reports_its_id():
    user_factory("importer")
    out = io.StringIO()
    call_command("import_document", str(SEEDS / SEED_FILES["004"]), "--json", "--submitter", "importer", stdout=out)
    payload = json.loads(out.getvalue())
    proposal = Proposal.objects.get(pk=payload["proposal_id"])
    assert proposal.snid == "example" and payload["created"] is True
    assert payload["data"]["document"]["type"] == "Community Practice"
    assert payload["report"]["summary"]["found"] > 20


@pytest.mark.django_db
def test_import_document_command_text_report():
    user_factory("importer")
    out = io.StringIO()
    call_command("import_document", str(SEEDS / SEED_FILES["004"]), "--submitter", "importer", stdout=out)
    pk = int(out.getvalue().split()[0])
    assert Proposal.objects.get(pk=pk).snid == "example"
    assert "Mapped:" in out.getvalue() and "lexical_equivalence" in out.getvalue()
    assert "[found] 1.1 Namespace Identifier (line 473): example" in out.getvalue()


def test_import_document_command_refuses_a_binary_file(tmp_path):
    path = tmp_path / "registration.txt"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" * 50)
    with pytest.raises(CommandError, match="holds binary data"):
        call_command("import_document", str(path), "--dry-run")


@pytest.mark.django_db
def test_import_page_reviews_before_creating_a_draft(client):
    user = user_factory()
    client.force_login(user)
    upload = io.BytesIO(seed("003").encode())
    upload.name = "urn-5.txt"
    response = client.post("/proposals/import/", {"file": upload})
    page = response.content.decode()
    assert response.status_code == 200 and Proposal.objects.count() == 0  # nothing stored yet
    assert 'id="L18"' in page and "re-cast as urn:ogf:urn-5:" in page and "Create draft" in page
    assert '<a href="#L2">line 2</a>' in page  # the SNID links to its source line
    form = response.context["form"]
    fields = {name: form[name].value() for name in form.fields}
    fields = {k: ("" if v is None else v) for k, v in fields.items() if k != "confirmed"}
    refused = client.post("/proposals/import/create/", fields)
    assert refused.status_code == 400 and "are marked uncertain" in refused.content.decode()
    fields["title"] = "Corrected title"
    created = client.post("/proposals/import/create/", {**fields, "confirmed": "on"}, follow=True)
    proposal = Proposal.objects.get(submitter=user)
    assert (proposal.snid, proposal.state, proposal.title) == ("urn-5", "draft", "Corrected title")
    assert proposal.examples_valid[2] == "urn:ogf:urn-5:Od4rB2QNOLt1e5wITWSJ+9U2Ve+Zon6N3d:17"
    assert "Draft created from the document" in created.content.decode()


@pytest.mark.django_db
def test_document_type_read_from_the_document_is_kept_by_the_draft(client):
    user = user_factory()
    client.force_login(user)
    upload = io.BytesIO(seed("004").encode())
    upload.name = "gfd191.tex"
    review = client.post("/proposals/import/", {"file": upload})
    form = review.context["form"]
    assert form["document_type"].value() == "Community Practice"
    fields = {name: ("" if form[name].value() is None else form[name].value()) for name in form.fields}
    fields["confirmed"] = "on"
    client.post("/proposals/import/create/", fields)
    proposal = Proposal.objects.get(submitter=user)
    assert proposal.document_type == "Community Practice"
    assert proposal.to_data().document.type == "Community Practice"


@pytest.mark.django_db
def test_import_page_refuses_files_that_are_not_what_they_claim(client):
    client.force_login(user_factory())
    for name, content, message in [
        ("evil.exe", b"MZ", "is not a format the registry reads"),
        ("paper.pdf", b"just text", "is called a PDF but is not one"),
        ("paper.docx", b"PK\x03\x04 not a zip", "is not a .docx file"),
        ("notes.txt", bytes(range(0, 40)) * 10, "holds binary data"),
    ]:
        upload = io.BytesIO(content)
        upload.name = name
        assert message in client.post("/proposals/import/", {"file": upload}).content.decode()
    assert Proposal.objects.count() == 0
    assert client.get("/proposals/import/").status_code == 200


@pytest.mark.django_db
def test_import_page_needs_login(client):
    assert "/accounts/login/" in client.get("/proposals/import/")["Location"]


@pytest.mark.django_db
@pytest.mark.parametrize(("who", "status"), [("anonymous", 404), ("submitter", 200), ("other", 404), ("editor", 200)])
def test_proposal_download_follows_visibility(client, who, status):
    proposal = proposal_factory()
    people = {"submitter": proposal.submitter, "other": user_factory(), "editor": user_factory(editor=True)}
    if who in people:
        client.force_login(people[who])
    response = client.get(f"/proposals/{proposal.pk}/export.md")
    assert response.status_code == status
    if status == 200:
        assert response["Content-Disposition"] == 'attachment; filename="urn-ogf-example-v1.md"'
        assert "## 1. Registration" in response.content.decode()


@pytest.mark.django_db
def test_registry_entry_download(client):
    proposal_factory(state="approved")
    response = client.get("/urn/example/1/registration.txt")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    assert "4.1. Scope" in response.content.decode()
    assert client.get("/urn/example/2/registration.txt").status_code == 404


def test_every_prose_section_survives_a_round_trip_with_markdown_inside():
    data = data_factory("example")
    for key in PROSE_KEYS:
        data.sections[key] = f"Text of {key} with **bold**, a list:\n\n- one\n- two"
    back = document_import(document_export(data)).data
    assert back.sections == data.sections


# --- published registrations: exact examples, grammar rules, top rule, registrant -------------

UUID_RULES = [
    "UUID",
    "time-low",
    "time-mid",
    "time-high-and-version",
    "clock-seq-and-reserved",
    "clock-seq-low",
    "node",
    "hexOctet",
    "hexDigit",
]
UUID_EXAMPLE = ["urn:ogf:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"]
JTC1 = ("", "JTC 1/SC6 (ASN.1 Rapporteur Group)", "", "")
IALA = "International Association of Marine Aids to Navigation and Lighthouse Authorities (IALA)"

# file -> snid, (valid, invalid) examples, grammar rule names, top rule, (name, organisation, e-mail, address)
PUBLISHED = {
    "img-registration.txt": (
        "",
        ([], []),
        [
            "NSS",
            "ProviderId",
            "DateId",
            "IMGRootId",
            "FragmentId",
            "label",
            "toplabel",
            "CCYY",
            "MM",
            "DD",
            "alphanum",
            "symbol",
        ],
        "NSS",
        ("", "", "", ""),
    ),
    "rfc4198-fdc.txt": (
        "fdc",
        (
            [
                "urn:ogf:fdc:example.com:2002:A572007",
                "urn:ogf:fdc:example.net:200406:ivr:51089",
                "urn:ogf:fdc:example.org:20010527:img089322-038",
            ],
            [],
        ),
        ["NSS", "ProviderId", "DateId", "ResourceId", "label", "toplabel", "CCYY"],
        "NSS",
        (
            "Dave Tessman",
            "Zelestra",
            "dtessman@zelestra.com",
            "2314 Henrietta Avenue\nLa Crescenta, CA 91214-3007\nUSA",
        ),
    ),
    "rfc3085-newsml-ocr.txt": (
        "newsm",
        (["urn:ogf:newsm:iptc.org:20001006:NewsM_v1.0:1", "urn:ogf:newsm:reuters.com20000206"], []),
        ["NSS", "Providerld", "Dateld", "Update", "date", "century", "year", "string", "char", "posint"],
        "NSS",
        ("", "", "", ""),
    ),
    "urn-5-registration.txt": (
        "urn-5",
        (
            [
                "urn:ogf:urn-5:-URS6S2A3+chjjHVlTkQ9KT5nu2",
                "urn:ogf:urn-5:JtTCacwJ1e1N0yqTULRG7C1GLq8:4",
                "urn:ogf:urn-5:Od4rB2QNOLt1e5wITWSJ+9U2Ve+Zon6N3d:17",
            ],
            [],
        ),
        ["nss", "random-number", "urn-string", "base64", "other"],
        "nss",
        (
            "B. Fallenstein",
            "University of Jyvskyl Hyperstructure Group",
            "b.fallenstein&gmx.de",
            "Dept. of Mathematical Information Technology\nUniversity of Jyvskyl\nPO. Box 35 (Agora)\n"
            "FIN-40014 Jyvskyl\nFinland",
        ),
    ),
    "gfd191.tex": (
        "example",
        (
            [
                "urn:ogf:example:cluster:2009:example.net:42",
                "urn:ogf:example:cluster:2010:example.net:00784505476220484608",
                "urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:1",
                "urn:ogf:example:supercomputer:2011:xn--tcklt4eq6h7d1cbe.example.org:1",
            ],
            [
                "urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:mark1",
                "urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk",
                "urn:ogf:example:supercomputer:1949:colossus.bletchleypark.org.uk:1",
                "urn:ogf:example:supercomputer:2000:%e3%82%b9%e3%83%bc%e3%83%91%e3%83%bc%e3%82%b3%e3%83%b3"
                "%e3%83%94%e3%83%a5%e3%83%bc%e3%82%bf.example.org:1",
            ],
        ),
        ["EXAMPLE-URN", "SNID", "TYPE", "YEAR", "DOMAIN", "LDH-LABEL", "INDEX", "QUERY", "FRAGMENT"],
        "EXAMPLE-URN",
        ("", "", "", ""),
    ),
    "rfc4122-uuid-kramdown.md": ("uuid", (UUID_EXAMPLE, []), UUID_RULES, "UUID", JTC1),
    "rfc4122bis-uuid-rfc8141-template.md": ("uuid", (UUID_EXAMPLE, []), UUID_RULES, "UUID", JTC1),
    "adi-trustframe.md": (
        "adi",
        (
            [
                "urn:ogf:adi:DmJFiNCt6qKBqL5TX9cofWkVA27wDQp4eXfaJh13XUwa",
                "urn:ogf:adi:DmJFiNCt6qKBqL5TX9cofWkVA27wDQp4eXfaJh13XUwa:2:"
                "64MAzrPhKLBHFRy25uC82Eo5MU1FC1XLdM2Jvsx2tTMv",
            ],
            [],
        ),
        [],
        "",
        ("Technical Program Manager", "TrustFrame, Inc.", "info@trustframe.com", ""),
    ),
    "mrn-iala.md": (
        "mrn",
        ([], []),
        [],
        "",
        (IALA, IALA, "info@mrnregistry.org", "10 rue des Gaudines\n78100\nSt Germain en Laye\nFrance"),
    ),
    "whip-ietf-subnamespace.md": (
        "whip",
        ([], []),
        [],
        "",
        (
            "",  # "A designated expert will monitor the WHIP public mailing list.": no one's name
            "The Internet Engineering Task Force.",
            "wish@ietf.org",
            "",
        ),
    ),
}


def published(name: str) -> str:
    return (SEEDS / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_registration_imports_exactly(name):
    snid, (valid, invalid), rules, top, registrant = PUBLISHED[name]
    result = document_import(published(name))
    data = result.data
    assert data.snid == snid
    assert (data.examples.valid, data.examples.invalid) == (valid, invalid)
    rule_item = result.report.item("grammar.rules")
    assert (rule_item.value.split(", ") if rule_item and rule_item.value else []) == rules
    assert data.grammar.rule == top
    r = data.registrant
    assert (r.name, r.organisation, r.email, r.address) == registrant


# --- more published registrations: every field's status, and a property over all of them -------

from typing import NamedTuple  # noqa: E402


class Expected(NamedTuple):
    snid: str
    valid: list[str]
    invalid: list[str]
    rules: list[str]
    top: str
    registrant: tuple[str, str, str, str]  # name, organisation, e-mail, postal address
    found: str  # the report's fields with status "found" ("r." registrant, "s." sections)
    uncertain: str  # the fields reported "uncertain"
    found_and_uncertain: str = ""  # fields with items of both (examples: some re-cast, some of another
    # namespace); every other field is "not found"


# What an expert reads in each document (see tests/seeds/README.md for the sources), and the
# status the report gives every field.
REGISTRATIONS = {
    "rfc2648-ietf.txt": Expected(
        "ietf",
        ["urn:ogf:ietf:rfc:2141", "urn:ogf:ietf:std:50", "urn:ogf:ietf:id:ietf-urn-ietf-06", "urn:ogf:ietf:mtg:41-urn"],
        [],
        ["NSS", "rfc-nss", "fyi-nss", "std-nss", "bcp-nss", "draft-nss", "mtg-nss", "other-nss", "string"],
        "NSS",
        ("Ryan Moats", "AT&T", "jayhawk@att.com", "15621 Drexel Circle\nOmaha, NE 68135-2358"),
        found="snid version registration_date r.email grammar.abnf grammar.rules grammar.rule examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="r.name r.organisation r.address s.reserved_use",
    ),
    "rfc3044-issn.txt": Expected(
        "issn",
        ["urn:ogf:issn:0259-000X", "urn:ogf:issn:1560-1560"],
        [],
        [],
        "",
        ("S. ROZENFELD", "ISSN International Centre", "rozenfeld@issn.org", "20, rue Bachaumont\n75002 PARIS\nFRANCE"),
        found="version registration_date r.name r.organisation r.email r.address examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.ancillary_documentation",
        uncertain="snid s.reserved_use unmapped",
    ),
    "rfc3187-isbn.txt": Expected(
        "isbn",
        ["urn:ogf:isbn:0-395-36341-1"],
        [],
        [],
        "",
        (
            "Hartmut Walravens",
            "The International ISBN Agency",
            "hartmut.walravens@sbb.spk-berlin.de",
            "Staatsbibliothek zu Berlin - Preussischer Kulturbesitz -\nD-10772 Berlin, Germany",
        ),
        found="version registration_date r.name r.email r.address examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.scope s.uniqueness s.immutability s.examples s.ancillary_documentation",
        uncertain="snid r.organisation s.reserved_use s.resolution s.identifier_assignment unmapped",
    ),
    "rfc3541-web3d.txt": Expected(
        "web3d",
        [
            "urn:ogf:web3d:vrml97:node:GeoCoordinate",
            "urn:ogf:web3d:vrml97:node:NurbsCurve",
            "urn:ogf:web3d:x3d:schemas:2002:compact",
            "urn:ogf:web3d:x3d:schemas:2002:compromise",
            "urn:ogf:web3d:media:textures:nature:grass",
        ],
        [],
        [],
        "",
        (
            "Aaron E. Walsh",
            "Web3D Consortium, Inc.",
            "aaron@mantiscorp.com",
            "18 Haviland Street, Boston, MA USA 02115",
        ),
        found="snid version registration_date r.name r.address examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="r.organisation r.email s.reserved_use",
    ),
    "rfc3614-mpeg.txt": Expected(
        "mpeg",
        [
            "urn:ogf:mpeg:mpeg7:schema:2001",
            "urn:ogf:mpeg:mpeg7:cs:VideoDomainCS:2001",
            "urn:ogf:mpeg:mpeg7:cs:GenreCS:2001",
            "urn:ogf:mpeg:mpeg7:cs:ContentCS:2001",
        ],
        [],
        [],
        "",
        (
            "John R. Smith",
            "IBM T. J. Watson Research Center",
            "jrsmith@watson.ibm.com",
            "30 Saw Mill River Road\nHawthorne, NY 10532 USA",
        ),
        found="snid version registration_date r.name r.organisation r.email r.address examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="s.reserved_use",
    ),
    "rfc4246-isan.txt": Expected(
        "isan",
        ["urn:ogf:isan:0123-1230-3210-2310-1", "urn:ogf:isan:1881-66C7-3420-6541-9-9F3A-0245-U"],
        [],
        [],
        "",
        ("Patrick Attallah", "ISAN International Agency", "", "26 rue de St Jean, CH-1203 Geneva, Switzerland"),
        found="version r.name r.organisation r.address examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.ancillary_documentation",
        uncertain="snid s.reserved_use unmapped",
    ),
    "rfc4358-oma.txt": Expected(
        "oma",
        ["urn:ogf:oma:ac:oma-presence", "urn:ogf:oma:drms:org-foobar"],
        [],
        [],
        "",
        (
            "Technical Program Manager",
            "Open Mobile Alliance",
            "TPM@omaorg.org",
            "4275 Executive Square\nSuite 240s\nLa Jolla, CA 92037",
        ),
        found="snid version registration_date r.organisation r.email r.address examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="r.name s.reserved_use unmapped",
    ),
    "rfc4617-ivis.txt": Expected(
        "ivis",
        ["urn:ogf:ivis:000000:DOC-METADATA", "urn:ogf:ivis:000000:NDR1021365"],
        [],
        [],
        "",
        (
            "Jurijs Kornijenko",
            "ABC software LTD on behalf of The Secretariat of the Special Assignments Minister for Electronic Government Affairs",
            "j.kornienko@abcsoftware.lv",
            "Tallinas - 51, Riga, LV-1012",
        ),
        found="version r.name r.email r.address examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="snid registration_date r.organisation",
    ),
    "rfc5031-service.txt": Expected(
        "service",
        [],
        [],
        ["service-URN", "service", "top-level", "sub-service", "let-dig-hyp", "let-dig", "ALPHA", "DIGIT"],
        "service-URN",
        ("Henning Schulzrinne", "IETF", "hgs@cs.columbia.edu", ""),
        found="snid version registration_date r.name r.organisation r.email grammar.rules grammar.rule s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.ancillary_documentation",
        uncertain="grammar.abnf s.reserved_use unmapped",
    ),
    "rfc5134-epc.txt": Expected(
        "epc",
        ["urn:ogf:epc:id:sgtin:900100.0003456.1234567"],
        [],
        [
            "EPC-URN",
            "sub-ns-name",
            "sub-ns",
            "let-num",
            "let-num-hyp",
            "upper",
            "lower",
            "number",
            "SGTIN-URI",
            "SGTINURIBody",
            "NumericComponent",
            "ZeroComponent",
            "NonZeroComponent",
            "PaddedNumericComponent",
            "Digit",
            "NonZeroDigit",
        ],
        "EPC-URN",
        (
            "",
            "EPCglobal, Inc.",
            "bhogan@epcglobalinc.org",
            "Princeton Pike Corporate Center\n1009 Lenox Drive, Suite 202\nLawrenceville, NJ 08648, USA",
        ),
        found="snid version registration_date r.email grammar.rules examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.ancillary_documentation",
        uncertain="r.organisation r.address grammar.abnf grammar.rule s.reserved_use unmapped",
    ),
    "rfc5138-cgi.txt": Expected(
        "cgi",
        [
            "urn:ogf:cgi:document:CGI:CGIIdentifierScheme",
            "urn:ogf:cgi:register:CGI:CGIResourceClasses",
            "urn:ogf:cgi:xmlns:CGI:GeoSciML:2.0",
            "urn:ogf:cgi:schema:GGIC:MineralOccurences:1.0:XMI",
            "urn:ogf:cgi:featureType:CGI:GeoSciML:2.0:Fault",
            "urn:ogc:serviceType:CGI:GSML-FS:1.0",
            "urn:ogf:cgi:classifierScheme:ICS:StratChart:2004",
            "urn:ogf:cgi:classifier:ICS:StratChart:2004:Silurian",
            "urn:ogf:cgi:classifier:GSV:Lithology:UIUYG1245NN07",
            "urn:ogf:cgi:feature:USGS:2feb49bc-6755-11dc-8314-0800200c9a66",
            "urn:ogf:cgi:object:SGU:552cb080-6755-11dc-8314-0800200c9a66",
        ],
        [],
        [],
        "",
        (
            "Ian Jackson",
            "Commission for Geoscience Information (Secretariat)",
            "ij@bgs.ac.uk",
            "c/o British Geological Survey\nKingsley Dunham Centre\nKeyworth\nNottingham\nNottinghamshire\nNG12 5GG\nU K",
        ),
        found="snid version registration_date r.name r.email s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="r.organisation r.address s.reserved_use unmapped",
        found_and_uncertain="examples.valid",
    ),  # one example is urn:ogc:, kept as written
    "rfc5165-ogc.txt": Expected(
        "ogc",
        [
            "urn:ogf:ogc:specification:gml:doc-is(02-023r4):3.0.0",
            "urn:ogf:ogc:serviceType:CatalogueService:2.0.2:HTTP",
            "urn:ogf:ogc:def:crs:EPSG:6.3:26986",
        ],
        [],
        [],
        "",
        (
            "Carl Reed",
            "Open Geospatial Consortium, Inc. (Headquarters)",
            "creed@opengeospatial.org",
            "35 Main Street, Suite 5\nWayland, MA 01778-5037, USA",
        ),
        found="snid version registration_date r.name r.email examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="r.organisation r.address s.reserved_use unmapped",
    ),
    "rfc6061-nena.txt": Expected(
        "nena",
        [
            "urn:ogf:nena:emergencyresponders:ambulance",
            "urn:ogf:nena:emergencyresponders:fire",
            "urn:ogf:nena:emergencyresponders:police",
            "urn:ogf:nena:emergencyresponders:poison",
            "urn:ogf:nena:emergencyresponders:coastguard",
            "urn:ogf:nena:emergencyresponders:marine",
        ],
        [],
        [],
        "",
        (
            "NENA Registry Services Administrator",
            "National Emergency Number Association (NENA)",
            "nrs-admin@nena.org",
            "4350 North Fairfax Drive, Suite 750\nArlington, VA 22203-1695",
        ),
        found="snid version registration_date r.organisation r.email r.address examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="r.name s.reserved_use unmapped",
    ),
    "rfc7207-eurosystem.txt": Expected(
        "eurosystem",
        ["urn:ogf:eurosystem:xsd:reda.012.001.01"],
        [],
        [],
        "",
        (
            "Miriam Ortseifen",
            "Deutsche Bundesbank (member of ESCB)",
            "iso20022@bundesbank.de",
            "Wilhelm-Epstein-Strasse 14\nD-60431 Frankfurt\nGermany",
        ),
        found="snid version registration_date r.name r.organisation r.email r.address examples.valid s.validation_mechanism s.resolution s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="s.syntactic_structure s.reserved_use s.lexical_equivalence s.scope unmapped",
    ),
    "rfc7254-gsma.txt": Expected(
        "gsma",
        [],
        [],
        [
            "gsma-urn",
            "gsma-NID",
            "gsma-NSS",
            "imei-specifier",
            "ext-imei",
            "sw-version-param",
            "imei-version-param",
            "software-version",
            "imei-version-val",
            "future-gsma-specifier",
            "future-specifier",
            "future-param",
            "par-name",
            "par-value",
            "EQUAL",
            "gsma-defined-nonempty",
            "gsma-urn-char",
            "imeival",
            "tac",
            "snr",
            "spare",
        ],
        "gsma-urn",
        (
            "Paul Gosden",
            "GSM Association",
            "pgosden@gsma.com",
            "1st Floor, Mid City Place\n71 High Holborn, London, England",
        ),
        found="snid version registration_date r.name r.organisation r.email r.address grammar.rules grammar.rule s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.ancillary_documentation",
        uncertain="grammar.abnf s.reserved_use",
    ),
    "rfc7302-eidr.txt": Expected(
        "eidr",
        ["urn:ogf:eidr:10.5240:7791-8534-2C23-9030-8610-5"],
        [],
        ["URN-EIDR", "EIDR-NSS", "EIDR-PREFIX", "EIDR-SUFFIX", "EIDR-CHARS", "RP2079-SUFFIX", "CHECK"],
        "URN-EIDR",
        (
            "",
            "Entertainment Identifier Registry Association",
            "info@eidr.org",
            "c/o Alliances Management\n544 Hillside Road\nRedwood City, CA 94062\nUSA",
        ),
        found="snid version registration_date r.organisation r.email r.address grammar.rules examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="grammar.abnf grammar.rule s.reserved_use unmapped",
    ),
    "rfc8069-ieee.txt": Expected(
        "ieee",
        ["urn:ogf:ieee:std:802.5:yang", "urn:ogf:ieee:foobar"],
        [],
        [],
        "",
        (
            "Angela Thomas",
            "Institute of Electrical and Electronics Engineers",
            "ieee-registration-authority@ieee.org",
            "445 Hoes Lane\nPiscataway, NJ 08854\nUSA",
        ),
        found="snid version registration_date r.name r.organisation r.email r.address examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="s.reserved_use unmapped",
    ),
    "rfc8464-3gpp2.txt": Expected(
        "3gpp2",
        [],
        [],
        [
            "pp2-urn",
            "pp2-NID",
            "pp2-NSS",
            "meid-specifier",
            "future-pp2-specifier",
            "future-specifier",
            "pp2-char",
            "meidval",
            "Manufacturer-Code",
            "Serial-Number",
            "HEX",
        ],
        "pp2-urn",
        ("John Derr", "Third Generation Partnership Project 2 (3GPP2)", "JDerr@tiaonline.org", ""),
        found="snid version registration_date r.email grammar.rules grammar.rule s.syntactic_structure s.resolution s.scope s.identifier_assignment s.ancillary_documentation s.changes",
        uncertain="r.name r.organisation grammar.abnf unmapped",
    ),
    "rfc4179-uci.txt": Expected(
        "uci",
        ["urn:ogf:uci:I700-2987098"],
        [],
        ["UCI", "prefix", "instance", "qualifier", "trans", "alphaDigit", "head", "other"],
        "UCI",
        (
            "Sang-ug Kang",
            "National Computerization Agency",
            "sukang@nca.or.kr",
            "NCA Bldg. 77 Mookyo-Dong, Chung-Ku, Seoul, Korea",
        ),
        found="r.name r.organisation r.email r.address grammar.abnf grammar.rules grammar.rule examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.ancillary_documentation",
        uncertain="snid registration_date s.reserved_use",
    ),
    "rfc5174-ebu.txt": Expected(
        "ebu",
        ["urn:ogf:ebu:metadata:pmeta_2007", "urn:ogf:ebu:metadata-cs:EscortCS_2007"],
        [],
        [],
        "",
        (
            "Jean-Pierre Evain",
            "European Broadcasting Union (EBU)",
            "evain@ebu.ch",
            "Ancienne Route 17a\nCH-1218 Geneva\nSWITZERLAND",
        ),
        found="snid version registration_date r.name r.organisation r.email r.address examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.examples s.ancillary_documentation",
        uncertain="s.reserved_use s.uniqueness s.identifier_assignment s.immutability",
    ),
    "rfc6289-cablelabs.txt": Expected(
        "cablelabs",
        ["urn:ogf:cablelabs:packetcable-example:ue:rst-sample"],
        [],
        [],
        "",
        (
            "Manager, Standards",
            "Cable Television Laboratories, Inc.",
            "ietf_standards@cablelabs.com",
            "858 Coal Creek Circle, Louisville, CO 80027, USA",
        ),
        found="snid version registration_date r.organisation r.email r.address examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="r.name s.reserved_use unmapped",
    ),
    "rfc8107-adid.txt": Expected(
        "adid",
        ["urn:ogf:adid:ABCD0001000", "urn:ogf:adid:ABCD0001000H"],
        [],
        ["URN-ADID", "full-adid-identifier", "full-adid-prefix", "full-adid-code", "full-adid-suffix", "alphanum"],
        "URN-ADID",
        (
            "",
            "Advertising Digital Identification, LLC",
            "cs@ad-id.org",
            "11020 David Taylor Drive, Suite 305\nCharlotte, NC 28262-1103\nUSA",
        ),
        found="snid version registration_date r.organisation r.email grammar.rules grammar.rule examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="r.address grammar.abnf s.reserved_use unmapped",
    ),
    "rfc3188-nbn.txt": Expected(
        "nbn",
        ["urn:ogf:nbn:fi-fe19981001"],
        [],
        [],
        "",
        (
            "Juha Hakala",
            "Helsinki University Library - The National Library of Finland, Conference of European National Librarians (CENL) and Conference of Directors of National Libraries (CDNL)",
            "juha.hakala@helsinki.fi",
            "P.O.Box 26, 00014 Helsinki University, Finland",
        ),
        found="registration_date r.name r.email r.address examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.ancillary_documentation",
        uncertain="snid version r.organisation s.reserved_use unmapped",
    ),
    "rfc3613-mace.txt": Expected(
        "mace",
        [],
        [],
        ["MACE-NSS", "subStChar", "trans", "other", "reserved"],
        "MACE-NSS",
        ("Keith Hazelton", "Middleware Architecture Committee for Education (MACE)", "hazelton@doit.wisc.edu", ""),
        found="snid version registration_date r.email grammar.abnf grammar.rules grammar.rule s.syntactic_structure s.validation_mechanism s.scope s.ancillary_documentation",
        uncertain="r.name r.organisation s.reserved_use s.lexical_equivalence s.resolution s.uniqueness s.identifier_assignment s.immutability",
    ),
    "rfc3616-fipa.txt": Expected(
        "fipa",
        [
            "urn:ogf:fipa:language:acl",
            "urn:ogf:fipa:ontology:management",
            "urn:ogf:fipa:architecture:example:directory",
            "urn:ogf:fipa:architecture:example:greenpolicy",
        ],
        [],
        [],
        "",
        (
            "J. Kelly",
            "Foundation for Intelligent Physical Agents (FIPA)",
            "secretariat@fipa.org",
            "c/o Me Jean-Pierre Jacquemoud\n2, rue Bellot\nCH-1206 Geneve",
        ),
        found="snid version registration_date r.organisation r.email r.address examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.ancillary_documentation",
        uncertain="r.name s.reserved_use s.examples",
    ),
    "rfc4688-s1000d.txt": Expected(
        "s1000d",
        [
            "urn:ogf:s1000d:DMC-AE-A-07-04-0101-00A-040A-A",
            "urn:ogf:s1000d:DMC-AE-A-07-05-0000-00A-040A-A_I-001_L-EN",
            "urn:ogf:s1000d:ICN-AE-B-291101-M-C0419-00571-A-01-1",
            "urn:ogf:s1000d:PMC-AE-F6117-00001-00",
        ],
        [],
        [
            "URN",
            "namespace",
            "NSS",
            "dmc-nss",
            "pmc-nss",
            "csn-nss",
            "icn-nss",
            "com-nss",
            "ddn-nss",
            "dml-nss",
            "nss-code",
            "subcode",
            "subext",
            "issue",
            "lang",
        ],
        "URN",
        (
            "Dennis Hoyland",
            "ASD TPSMG Chairperson",
            "adcts@techinfo.mod.uk",
            "Corporate Technical Services\nTechnical Documentation\nKentigern House\n65 Brown Street\nGlasgow G2 8EX\nUK",
        ),
        found="r.name r.email r.address grammar.rules grammar.rule examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="snid version r.organisation grammar.abnf s.reserved_use",
    ),
    "rfc5119-smpte.txt": Expected(
        "smpte",
        ["urn:ogf:smpte:ul:060E2B34.04010103.04010202.01011100", "urn:ogf:smpte:newnss:future-urn-2105"],
        [],
        ["URN", "NID", "NSS", "UL-NSS", "UL", "DOT", "QUADBYTE", "BYTE", "other-NSS"],
        "URN",
        (
            "Director of Engineering",
            "Society of Motion Picture and Television Engineers",
            "standards@smpte.org",
            "3 Barker Avenue - 5th Floor\nWhite Plains, NY 10601 USA",
        ),
        found="snid registration_date r.email r.address grammar.rules grammar.rule examples.valid s.syntactic_structure s.lexical_equivalence s.validation_mechanism s.resolution s.scope s.uniqueness s.identifier_assignment s.immutability s.examples s.ancillary_documentation",
        uncertain="version r.name r.organisation grammar.abnf s.reserved_use unmapped",
    ),
}


def _statuses(result) -> dict[str, str]:
    """The report's fields grouped by status, in the short names of ``Expected``."""
    by_field: dict[str, set] = {}
    for item in result.report.items:
        by_field.setdefault(item.field, set()).add(item.status)
    groups: dict[str, list[str]] = {}
    for name, statuses in by_field.items():
        short = name.replace("sections.", "s.").replace("registrant.", "r.")
        groups.setdefault("/".join(sorted(statuses)), []).append(short)
    return {status: " ".join(names) for status, names in groups.items()}


@pytest.mark.parametrize("name", sorted(REGISTRATIONS))
def test_registration_imports_exactly_with_every_field_status(name):
    expected = REGISTRATIONS[name]
    result = document_import(published(name))
    data = result.data
    assert data.snid == expected.snid
    assert (data.examples.valid, data.examples.invalid) == (expected.valid, expected.invalid)
    rule_item = result.report.item("grammar.rules")
    assert (rule_item.value.split(", ") if rule_item and rule_item.value else []) == expected.rules
    assert data.grammar.rule == expected.top
    r = data.registrant
    assert (r.name, r.organisation, r.email, r.address) == expected.registrant
    statuses = _statuses(result)
    assert statuses.pop("found", "") == expected.found
    assert statuses.pop("uncertain", "") == expected.uncertain
    assert statuses.pop("found/uncertain", "") == expected.found_and_uncertain
    assert set(statuses) <= {"not found"}


def _truth(name: str) -> dict:
    """The expected value of every field the tests know, for any document under tests/seeds."""
    if name in REGISTRATIONS:
        e = REGISTRATIONS[name]
        snid, valid, invalid, rules, top, registrant = e.snid, e.valid, e.invalid, e.rules, e.top, e.registrant
    else:
        snid, (valid, invalid), rules, top, registrant = PUBLISHED[name]
    return {
        "snid": snid,
        "examples.valid": valid,
        "examples.invalid": invalid,
        "grammar.rules": ", ".join(rules),
        "grammar.rule": top,
        "registrant.name": registrant[0],
        "registrant.organisation": registrant[1],
        "registrant.email": registrant[2],
        "registrant.address": registrant[3],
    }


ALL_DOCUMENTS = sorted(p.name for p in SEEDS.iterdir() if p.name != "README.md")


def test_every_document_under_tests_has_expected_values():
    assert set(ALL_DOCUMENTS) == set(REGISTRATIONS) | set(PUBLISHED)
    assert len(REGISTRATIONS) >= 15


@pytest.mark.parametrize("name", ALL_DOCUMENTS)
def test_found_is_never_wrong_and_anything_else_says_why(name):
    """The importer's contract: a field reported "found" equals what an expert reads; a field it is
    unsure of or did not find is reported so, with the reason."""
    truth = _truth(name)
    result = document_import(published(name))
    for item in result.report.items:
        if item.status != "found":
            assert item.why, (name, item)
            continue
        if item.field in ("examples.valid", "examples.invalid"):
            assert item.value in truth[item.field], (name, item)
        elif item.field in truth:
            assert item.value == truth[item.field], (name, item)
    if result.report.item("grammar.abnf").status == "found":
        assert grammar_compile(result.data.grammar.abnf, result.data.grammar.rule).errors == []


@pytest.mark.parametrize(
    "name", ["rfc7302-eidr.txt", "rfc8069-ieee.txt", "rfc7207-eurosystem.txt", "rfc7254-gsma.txt", "rfc3044-issn.txt"]
)
def test_docx_with_label_and_value_in_separate_paragraphs_reads_the_same_registrant(name):
    from registry.documents import read_file

    text, fmt = read_file("registration.docx", _docx(published(name).replace("\f", "")))  # no page breaks in Word
    result = document_import(text, format=fmt)
    r = result.data.registrant
    assert (r.name, r.organisation, r.email) == REGISTRATIONS[name].registrant[:3]


def test_every_published_example_records_its_source_line():
    for name in PUBLISHED:
        result = document_import(published(name))
        source = result.source.split("\n")
        for item in result.report.items:
            if item.field.startswith("examples.") and item.value:
                first = source[item.lines[0] - 1].replace(" ", "")
                written = item.value.split(":", 3)[3] if item.value.startswith("urn:ogf:") else item.value
                assert written[:10] in first, (name, item)  # re-cast or kept as written, from its own line


def test_uuid_grammar_keeps_its_multi_line_rules_and_accepts_its_example():
    result = document_import(published("rfc4122-uuid-kramdown.md"))
    abnf = result.data.grammar.abnf
    assert abnf.split("\n")[:2] == [
        'UUID                   = time-low "-" time-mid "-"',
        '                         time-high-and-version "-"',
    ]
    compiled = grammar_compile(abnf, result.data.grammar.rule)
    assert compiled.ok and not compiled.errors
    hexdigit = compiled.parsed.rules["hexdigit"]
    assert (hexdigit.line, hexdigit.end_line) == (12, 15)  # continuation lines kept with their rule
    from registry.grammar import parse_urn

    assert result.data.examples.valid == ["urn:ogf:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"]  # re-cast
    assert compiled.check(parse_urn(result.data.examples.valid[0])) == []
    assert result.report.item("grammar.abnf").lines[:2] == [36, 37]


def test_templates_and_other_namespaces_are_left_out_and_reported():
    result = document_import(published("whip-ietf-subnamespace.md"))
    assert result.data.examples.valid == []
    left_out = {(item["text"], item["line"]) for item in result.report.left_out}
    assert ("urn:ietf:params:whip:{type}:{name}:{other", 27) in left_out
    assert ("urn:ietf:params:whip:ext", 53) in left_out


def test_bnf_instead_of_abnf_is_named_as_the_cause():
    result = document_import(published("mrn-iala.md"))
    assert any("use BNF ('<a> ::= b'), not ABNF" in note and "40" in note for note in result.notes)


def test_registrant_uncertainties_are_reported():
    items = {i.field: i for i in document_import(published("adi-trustframe.md")).report.items}
    assert items["registrant.name"].status == "uncertain" and "role title" in items["registrant.name"].why
    assert items["registrant.address"].why == "given as N/A or TBD"
    items = {i.field: i for i in document_import(seed("001")).report.items}
    assert items["registrant.address"].lines == [53, 54, 55]
    assert items["grammar.abnf"].status == "uncertain"
    assert items["grammar.abnf"].why.startswith(
        "The grammar on source lines 65-79 was printed in columns by text extraction; 7 rule(s) were rejoined"
    )
    assert "'MM', 'DD', 'alphanum', 'other', 'hex' but does not define them" in items["grammar.abnf"].why
    assert "separate columns" in items["registrant.address"].why


# --- formats ----------------------------------------------------------------------------------


def _docx(text: str) -> bytes:
    return make_docx(text)


def test_pdf_of_a_registration_imports_like_its_text():
    from registry.documents import read_file

    from .pdfmaker import make_pdf

    for columns in (1, 2):
        text, fmt = read_file("uuid.pdf", make_pdf(published("rfc4122-uuid-kramdown.md"), columns=columns))
        result = document_import(text, format=fmt)
        assert fmt == "pdf" and result.report.format == "pdf"
        assert result.data.examples.valid == UUID_EXAMPLE
        assert result.report.item("grammar.rules").value.split(", ") == UUID_RULES
        assert result.data.registrant.organisation == JTC1[1]


def test_docx_of_a_registration_imports_like_its_text():
    from registry.documents import read_file

    text, fmt = read_file("urn-5.docx", _docx(seed("003")))
    result = document_import(text, format=fmt)
    assert fmt == "docx" and result.data.snid == "urn-5"
    assert result.data.examples.valid == PUBLISHED["urn-5-registration.txt"][1][0]
    assert result.data.registrant.name == "B. Fallenstein"
    assert result.report.item("grammar.rules").value.split(", ") == PUBLISHED["urn-5-registration.txt"][2]


@pytest.mark.django_db
def test_import_page_reads_pdf_and_docx_uploads(client):
    from .pdfmaker import make_pdf

    client.force_login(user_factory())
    for name, content in [
        ("adi.pdf", make_pdf(published("adi-trustframe.md"))),
        ("adi.docx", _docx(published("adi-trustframe.md"))),
    ]:
        upload = io.BytesIO(content)
        upload.name = name
        response = client.post("/proposals/import/", {"file": upload})
        assert response.status_code == 200
        assert response.context["form"]["snid"].value() == "adi"
        assert (
            "urn:ogf:adi:DmJFiNCt6qKBqL5TX9cofWkVA27wDQp4eXfaJh13XUwa"
            in response.context["form"]["examples_valid"].value()
        )


def test_file_that_is_not_what_it_claims_is_refused():
    from registry.documents import DocumentError, read_file

    for name, raw, message in [
        ("a.pdf", b"%!PS-Adobe", "is called a PDF but is not one"),
        ("a.docx", _zip({"hello.txt": b"x"}), "is not a .docx file"),
        ("a.txt", b"\x00\x01\x02binary", "holds binary data"),
        ("a.md", b"%PDF-1.4 ...", "holds binary data (pdf)"),
        ("a.odt", b"text", "is not a format the registry reads"),
    ]:
        with pytest.raises(DocumentError, match=re.escape(message)):
            read_file(name, raw)


def test_text_files_in_utf16_and_cp1252_are_read():
    from registry.documents import read_file

    text = "Namespace ID: caf\u00e9\n"
    assert read_file("a.txt", text.encode("utf-16"))[0] == text
    assert read_file("a.txt", text.encode("cp1252"))[0] == text
    assert read_file("a.md", b"\xef\xbb\xbf" + text.encode())[0] == text  # UTF-8 byte-order mark dropped


def _zip(files: dict[str, bytes]) -> bytes:
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return out.getvalue()


# --- examples -----------------------------------------------------------------------------------

EXAMPLES_DOC = """Namespace ID:
   demo

Examples:
   The following URNs are valid:
      urn:demo:doc(2023)
      urn:demo:x;ver=1
      urn:demo:x;svn=4
      urn:demo:it's*here,ok
      "urn:demo:quoted" and (urn:demo:in-parens).
      urn:demo:a-very-long-identifier-that-wraps-
      after-the-hyphen
      urn:demo:wrapped:
      part-two
   Templates such as urn:demo:{prefix} and urn:demo:<id> are not examples.
   examples urn:demo:inline:1
"""


def test_examples_are_exact_to_the_character():
    result = document_import(EXAMPLES_DOC)
    assert result.data.examples.valid == [
        "urn:ogf:demo:doc(2023)",
        "urn:ogf:demo:x;ver=1",
        "urn:ogf:demo:x;svn=4",
        "urn:ogf:demo:it's*here,ok",
        "urn:ogf:demo:quoted",
        "urn:ogf:demo:in-parens",
        "urn:ogf:demo:a-very-long-identifier-that-wraps-after-the-hyphen",
        "urn:ogf:demo:wrapped:part-two",
        "urn:ogf:demo:inline:1",
    ]
    wrapped = [i for i in result.report.items if i.value == "urn:ogf:demo:wrapped:part-two"][0]
    assert wrapped.lines == [13, 14] and "joined across lines 13-14: line 13 breaks it after ':'" in wrapped.why
    assert {item["text"][:14] for item in result.report.left_out} == {"urn:demo:{pref", "urn:demo:<id> "}
    assert "examples" in result.mapped and result.unmapped == []


# --- grammar -----------------------------------------------------------------------------------


def test_every_abnf_block_and_indentation_is_read():
    text = (
        "Namespace ID: demo\n\nDeclaration of syntactic structure:\n\n"
        '      x-URN = "urn:demo:" part\n          *( ":" part )\n\n   The parts:\n\n'
        "        part = 1*( ALPHA /\n  DIGIT )\n\nExamples:\n   urn:demo:a:b\n"
    )
    result = document_import(text)
    assert result.report.item("grammar.rules").value == "x-URN, part"
    assert result.data.grammar.rule == "x-URN"
    assert grammar_compile(result.data.grammar.abnf).errors == []
    assert any("indentation of the ABNF on source lines 10-11 was normalised" in n for n in result.notes)


def test_broken_abnf_names_the_real_cause_with_source_line_and_column():
    text = 'Declaration of syntactic structure:\n\n   NSS = part ":"\n   part = 1*( ALPHA / DIGIT\n'
    result = document_import(text)
    problem = result.report.item("grammar.abnf")
    assert problem.status == "uncertain"
    assert "source line 4, column" in problem.why and "in rule 'part'" in problem.why


def test_grammar_for_another_nid_is_offered_rebased():
    text = (
        "Namespace ID: imei\n\nDeclaration of syntactic structure:\n\n"
        '   imei-urn = "urn" ":" "gsma" ":" "imei:" imeival\n   imeival = 14DIGIT\n\n'
        "Examples:\n   urn:gsma:imei:35209900176148\n"
    )
    result = document_import(text)
    assert result.data.grammar.abnf.startswith('imei-urn = "urn:ogf:imei:" "imei:" imeival')
    change = [n for n in result.notes if "was replaced by" in n][0]
    assert change == (
        'In rule \'imei-urn\' the prefix "urn" ":" "gsma" ":" (namespace urn:gsma:) was replaced by '
        '"urn:ogf:imei:", so the grammar describes urn:ogf:imei: URNs.'
    )
    assert result.report.item("grammar.abnf").status == "uncertain"
    compiled = grammar_compile(result.data.grammar.abnf, result.data.grammar.rule)
    from registry.grammar import parse_urn

    assert compiled.check(parse_urn("urn:ogf:imei:imei:35209900176148")) == []


def test_prose_values_are_recognised():
    text = 'Declaration of syntactic structure:\n\n   NSS = 1*<URN chars> ":" <local part>\n'
    notes = document_import(text).notes
    assert "Rule 'NSS' uses the prose value <URN chars>: read as RFC 2141's URN characters." in notes
    assert any("<local part>: the registry cannot execute it" in n for n in notes)


# --- headings, version, document type -------------------------------------------------------------


def test_reworded_headings_are_mapped_with_a_confidence_and_reported():
    text = (
        "Namespace ID: demo\n\nIdentifier assignment process:\n   By the demo group.\n\n"
        "Notes on uniqueness and persistence of identifiers:\n   Never reused.\n\n"
        "Scope:\n   Demo things.\n   Introduction: how the scope came about.\n   urn:demo:scope:1\n"
    )
    result = document_import(text)
    assert result.data.sections["identifier_assignment"] == "By the demo group."
    headings = {h["title"]: h for h in result.report.headings}
    assert headings["Identifier assignment process"]["confidence"] == 0.7
    assert headings["Notes on uniqueness and persistence of identifiers"]["confidence"] == 0.5
    assert result.report.item("sections.uniqueness").status == "uncertain"
    assert "Introduction: how the scope came about." in result.data.sections["scope"]
    assert result.data.examples.valid == ["urn:ogf:demo:scope:1"]


def test_version_strings_are_not_truncated():
    result = document_import("Registration Information:\n   Version: 2.1\n   Date: 2020-02-30\n")
    item = result.report.item("version")
    assert (result.data.version, item.status, item.value) == (1, "uncertain", "2.1")
    assert result.report.item("registration_date").status == "uncertain"


def test_document_type_from_rfc_category_is_uncertain():
    result = document_import("Network Working Group\nCategory: Informational\n\nNamespace ID: demo\n")
    assert result.data.document.type == "Informational"
    assert result.report.item("document.type").status == "found"
    result = document_import("Category: Standards Track\n\nNamespace ID: demo\n")
    assert (result.data.document.type, result.report.item("document.type").status) == ("Recommendation", "uncertain")


# --- linear time on hostile text ---------------------------------------------------------------


# Each case at its full size n: a quadratic scan takes minutes on it. What is compared is how the
# work grows from n/4 to n, measured in one run (CPU time of this process), not seconds against a
# fixed limit a slower machine could miss: linear work grows about 4-fold, quadratic 16-fold.
HOSTILE_TEXTS = {
    "document-spaces": lambda n: "Document: a" + " " * int(n * 100_000) + "b",
    "name-letters": lambda n: "Name: " + "x" * int(n * 100_000),
    "urn-repeated": lambda n: "urn:" * int(n * 50_000),
    "urn-nid-repeated": lambda n: "urn:x:" * int(n * 30_000),
    "urn-spaced": lambda n: "urn:x:a " * int(n * 30_000),
    "parens": lambda n: "Declaration of syntactic structure:\n" + "a = " + "(" * int(n * 5_000) + "\n",
    "formal-spaces": lambda n: "Formal syntax:\n" + "    " * int(n * 30_000) + "x\n",
    "list-spaces": lambda n: "The following URNs are valid:\n" + "     " * int(n * 20_000) + "\n",
    "closing-parens": lambda n: ("Examples:\n" + "urn:x:a)" + ")" * int(n * 3_000) + "\n") * 20,
    "latex-wrapped-strike": lambda n: "\\section{x}\n" + ("}\\\\" + " " * 3_000 + "\n") * int(n * 30),
    "address-lines": lambda n: (
        "Declared registrant of the namespace:\n   Address: a\n" + "      b\n" * int(n * 100_000)
    ),
    "column-labels": lambda n: (
        "Declared registrant of the namespace:\n"
        + "   Name:\n   Address:\n" * int(n * 30_000)
        + "   x\n" * int(n * 30_000)
    ),
    "quoted-urns-in-rules": lambda n: ("x = " + '"urn:x:a" / ' * 300 + "\n") * int(n * 50),
    "line-final-hyphens": lambda n: "Scope:\n" + "   a market-\n   based x-\n" * int(n * 35_000),
    "value-left-open": lambda n: "Declared registrant of the namespace:\n   Name: (\n" + "   x (\n" * int(n * 30_000),
    "unlabelled-left-open": lambda n: "Declared registrant of the namespace:\n   A (\n" + "   b (\n" * int(n * 30_000),
    "urns-wrapped-every-line": lambda n: "Examples:\n" + "urn:x:ab12\n34 c\n" * int(n * 20_000),
    "urns-wrapped-with-grammar": lambda n: (
        "Syntax:\n   NSS = 1*ALPHA 1*DIGIT\nExamples:\n" + "urn:x:ab12\n34\n" * int(n * 20_000)
    ),
}


def _cpu_seconds(text):
    import time

    started = time.process_time()
    document_import(text)
    return time.process_time() - started


@pytest.mark.parametrize("case", list(HOSTILE_TEXTS))
def test_hostile_text_is_read_in_linear_time(case):
    make = HOSTILE_TEXTS[case]
    small, large = make(0.25), make(1)
    # Interleaved, and the least of three of each: another process on the machine only ever adds
    # time (one run of the same text has been seen to take twice as long as the next).
    quarters, fulls = [], []
    for _ in range(3):
        quarters.append(_cpu_seconds(small))
        fulls.append(_cpu_seconds(large))
    quarter, full = min(quarters), min(fulls)
    # 10 leaves room over the 4 of linear work and stays far below the 16 of quadratic (at n, a
    # quadratic scan takes minutes); the constant absorbs timer noise where both take milliseconds.
    assert full < 10 * quarter + 0.25, f"{case}: {quarters} s at n/4, {fulls} s at n"


def test_document_size_is_bounded():
    from registry.documents import MAX_DOCUMENT, DocumentError

    with pytest.raises(DocumentError, match="the limit is 1,000,000"):
        document_import("x" * (MAX_DOCUMENT + 1))


def test_examples_beyond_the_proposal_limit_are_cut_and_said_so():
    from registry.interchange import MAX_EXAMPLES

    text = "Namespace ID: demo\n\nExamples:\n" + "".join(f"   urn:demo:{n}\n" for n in range(MAX_EXAMPLES + 5))
    result = document_import(text)
    assert len(result.data.examples.valid) == MAX_EXAMPLES
    assert f"The document gives {MAX_EXAMPLES + 5:,} example URNs" in " ".join(result.notes)


# --- nothing dropped silently: a property over reshaped documents ---------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from registry.documents.headings import heading as _heading  # noqa: E402
from registry.grammar.ir import to_abnf  # noqa: E402
from registry.grammar.parse import parse_grammar  # noqa: E402

PROPERTY_SEEDS = [
    "urn-5-registration.txt",
    "rfc4122-uuid-kramdown.md",
    "rfc4122bis-uuid-rfc8141-template.md",
    "adi-trustframe.md",
    "rfc7207-eurosystem.txt",
    "rfc8069-ieee.txt",
    "rfc7254-gsma.txt",
    "rfc5031-service.txt",
]
_WRAP_AFTER = ":-./"


def _blocks(text: str) -> list[list[str]]:
    """The document cut before each line that is a template heading."""
    blocks: list[list[str]] = [[]]
    for line in text.split("\n"):
        found = _heading(line)
        if found is not None and found.key and found.indent <= 3 and not found.rest.startswith("urn"):
            blocks.append([])
        blocks[-1].append(line)
    return [b for b in blocks if b]


def _rules(abnf: str) -> dict[str, str]:
    return {rule.name: to_abnf(rule.expr) for rule in parse_grammar(abnf).rules.values()} if abnf.strip() else {}


def _reported(text: str, result) -> bool:
    said = " ".join(result.notes) + " ".join(str(i) for i in result.report.left_out)
    said += " ".join(item.why for item in result.report.items)
    return text in said


@functools.cache
def _original(name: str):
    return document_import(published(name)).data


@st.composite
def reshaped(draw):
    name = draw(st.sampled_from(PROPERTY_SEEDS))
    blocks = _blocks(published(name))
    order = draw(st.permutations(range(len(blocks))))
    lines: list[str] = []
    for index in order:
        lines.extend(blocks[index])
        lines.append("")
    out: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped.lower().startswith("urn:") and " " not in stripped and draw(st.booleans()):
            # wrap an example URN after one of the characters a URN is wrapped at
            cuts = [i + 1 for i, c in enumerate(stripped[:-1]) if c in _WRAP_AFTER and i > 8]
            if cuts:
                cut = draw(st.sampled_from(cuts))
                indent = line[: len(line) - len(line.lstrip())]
                out += [indent + stripped[:cut], indent + stripped[cut:]]
                continue
        if draw(st.integers(0, 4)) == 0:
            line += " " * draw(st.integers(1, 4)) + ("\t" if draw(st.booleans()) else "")
        out.append(line)
        if not stripped and draw(st.integers(0, 3)) == 0:
            out += [""] * draw(st.integers(1, 3))
    return name, "\n".join(out)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reshaped())
def test_reshaped_documents_lose_no_example_or_rule_silently(case):
    name, text = case
    original = _original(name)
    result = document_import(text)
    examples = result.data.examples.valid + result.data.examples.invalid
    for urn in original.examples.valid + original.examples.invalid:
        assert urn in examples or _reported(urn.rsplit(":", 1)[-1], result), (urn, examples)
    before, after = _rules(original.grammar.abnf), _rules(result.data.grammar.abnf)
    for rule, definition in before.items():
        assert after.get(rule) == definition or _reported(rule, result), (rule, definition, after.get(rule))
    assert result.data.snid == original.snid
    truth = _truth(name)
    for key in ("name", "organisation", "email"):  # reshaping never turns a registrant value wrong and "found"
        item = result.report.item(f"registrant.{key}")
        assert item.status != "found" or item.value == truth[f"registrant.{key}"], (name, item)


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (
            "   Jane Doe\n   Technical Director\n   Example Research Institute\n   c/o Department of Physics\n"
            "   1 Example Road\n   Example City 12345\n   Germany\n   EMail: jane@example.org\n",
            (
                "Jane Doe",
                "Example Research Institute",
                "jane@example.org",
                "c/o Department of Physics\n1 Example Road\nExample City 12345\nGermany",
            ),
        ),
        (
            "   Name: Jane Doe\n   Affiliation: Example Research Institute\n   E-mail: jane@example.org\n"
            "   Address: 1 Example Road\n            Example City 12345\n            Germany\n",
            (
                "Jane Doe",
                "Example Research Institute",
                "jane@example.org",
                "1 Example Road\nExample City 12345\nGermany",
            ),
        ),
        (
            "   Organization: Example Forum\n   Contact: Jane Doe <jane@example.org>\n",
            ("Jane Doe", "Example Forum", "jane@example.org", ""),
        ),
    ],
    ids=["author-block-with-role-and-c/o", "labelled-with-affiliation", "contact-with-address-in-brackets"],
)
def test_registrant_shapes(block, expected):
    result = document_import("Namespace ID: demo\n\nDeclared registrant of the namespace:\n" + block)
    r = result.data.registrant
    assert (r.name, r.organisation, r.email, r.address) == expected
    if "Technical Director" in block:
        assert any("'Technical Director'" in note for note in result.notes)


# --- the registrant's shapes, one at a time --------------------------------------------------------

REGISTRANT_SHAPES = [
    (
        "label-glued",
        "   Registering organization:  IETF\n\n   Designated contact:  A. Person\n\n"
        "   Designated contact email:  a@example.org\n",
        ("A. Person", "IETF", "a@example.org"),
        (),
    ),
    (
        "title-below-name",
        "   Name: A. Person\n   Title: Software Architect\n   Email: a@example.org\n",
        ("A. Person", "", "a@example.org"),
        (),
    ),
    (
        "nested-blocks",
        "   -  Registering organization:\n      Name: Example Bank (member of ESCB)\n      Address:\n"
        "      1 Example Street\n\n   -  Designated contact person:\n      Name: A. Person\n"
        "      Email: a@example.org\n",
        ("A. Person", "Example Bank (member of ESCB)", "a@example.org"),
        (),
    ),
    (
        "label-alone-above-value",
        "      Name:\n\n         Example Registry Association\n\n      Address:\n\n"
        "         1 Example Road\n\n      Contact:\n\n         URL: http://example.org/contact/\n"
        "         Email: info@example.org\n",
        ("", "Example Registry Association", "info@example.org"),
        (),
    ),
    (
        "contact-with-honorific-and-role",
        "      Name:    Example Agency\n      Address: 1 Example Road\n\n"
        "      Contact: Mr. A. Person, Managing Director\n",
        ("A. Person", "Example Agency", ""),
        (),
    ),
    (
        "attn",
        "      Commission for Example Information (Secretariat)\n      c/o Example Survey\n      Example Town\n"
        "      Attn. A. Person (a@example.org)\n",
        ("A. Person", "Commission for Example Information (Secretariat)", "a@example.org"),
        ("organisation",),
    ),
    (
        "unlabelled-person-then-role",
        "    Registering organization:\n\n      Name:\n        Example Institute\n\n"
        "      Designated contact person:\n        A. Person\n        Role: Manager, Example Registry\n"
        "        Email: a@example.org\n",
        ("A. Person", "Example Institute", "a@example.org"),
        (),
    ),
    (
        "two-contacts-and-acronym",
        "      Standards Organization: Example Partnership Project 2\n      (EPP2)\n\n"
        "      Contact:\n\n      A. Person, Example Administrator,\n      a@example.org\n\n"
        "      B. Other, Example Chair, b@example.org\n      c/o Example Association\n      1 Example Road\n",
        ("A. Person", "Example Partnership Project 2 (EPP2)", "a@example.org"),
        ("name", "organisation"),
    ),
    (
        "two-labels-on-one-line",
        "   Name: A. Person Title: Software Architect\n   E-mail: a@example.org\n",
        ("A. Person", "", "a@example.org"),
        ("name",),
    ),
]


@pytest.mark.parametrize(
    ("block", "expected", "uncertain"), [s[1:] for s in REGISTRANT_SHAPES], ids=[s[0] for s in REGISTRANT_SHAPES]
)
def test_registrant_shape_is_read_and_only_certain_values_are_found(block, expected, uncertain):
    result = document_import("Namespace ID: demo\n\nDeclared registrant of the namespace:\n\n" + block)
    r = result.data.registrant
    assert (r.name, r.organisation, r.email) == expected
    for key in ("name", "organisation", "email"):
        item = result.report.item(f"registrant.{key}")
        assert (item.status == "uncertain") == (key in uncertain), item
        assert ":" not in item.value.replace("http:", "")  # a value never holds another field's label


def test_several_contacts_keep_the_first_and_show_the_others():
    result = document_import(published("rfc8464-3gpp2.txt"))
    assert result.data.registrant.name == "John Derr"
    assert any("additional contact, 'Gary Pellegrino' (line 20)" in note for note in result.notes)
    name = result.report.item("registrant.name")
    # The line below "Contact:" ends with a comma: it runs on to the e-mail line, so it is assembled.
    assert name.status == "uncertain" and name.lines == [17, 18] and "assembled from lines 17-18" in name.why
    assert any("role title 'MEID Global Hexadecimal Administrator' (line 17)" in note for note in result.notes)


def test_uncertain_reading_shows_the_other_one():
    items = {i.field: i for i in document_import(published("rfc5134-epc.txt")).report.items}
    assert items["registrant.organisation"].why == (
        "cut out of a longer text; the other reading is 'EPCglobal, Inc. is a subsidiary of GS1'"
    )
    items = {i.field: i for i in document_import(published("rfc3541-web3d.txt")).report.items}
    assert "the other reading is 'contact@web3d.org' (line 15)" in items["registrant.email"].why


def test_docx_paragraphs_of_labels_and_values_are_not_shifted():
    from registry.documents import read_file

    lines = (
        "Namespace ID:",
        "demo",
        "Declared registrant of the namespace:",
        "Name:",
        "Example Forum",
        "Address:",
        "1 Example Road",
        "Contact:",
        "A. Person",
        "E-mail:",
        "a@example.org",
    )
    text, fmt = read_file("demo.docx", _docx("\n".join(lines)))
    r = document_import(text, format=fmt).data.registrant
    assert (r.name, r.organisation, r.email, r.address) == (
        "A. Person",
        "Example Forum",
        "a@example.org",
        "1 Example Road",
    )


# --- examples, headings and grammars that cannot work ----------------------------------------------


def test_grammar_literals_are_not_examples():
    result = document_import(published("rfc5134-epc.txt"))
    assert result.data.examples.valid == ["urn:ogf:epc:id:sgtin:900100.0003456.1234567"]
    assert {
        "text": "urn:epc:id:sgtin",
        "line": 59,
        "why": "a literal of the grammar, not an example",
    } in result.report.left_out


def test_low_confidence_heading_does_not_swallow_unknown_headings_or_their_examples():
    text = (
        "   Namespace Identifier:  demo\n\n   Version:  1\n\n   Syntax:  Any string.\n\n"
        "   Revision Information:  N/A\n\n   Trademark notice:\n\n      None.\n\n"
        "   Sample identifiers:\n\n      urn:demo:first:1\n"
    )
    result = document_import(text)
    assert result.data.examples.valid == ["urn:ogf:demo:first:1"]
    headings = {h["title"]: h for h in result.report.headings}
    assert headings["Revision Information"]["section"] == "changes"
    assert headings["Trademark notice"]["section"] == "" and headings["Sample identifiers"]["section"] == ""
    unplaced = [i for i in result.report.items if i.field == "unmapped"]
    assert [(i.label, i.value, i.lines, i.status) for i in unplaced] == [
        ("Unplaced text: Trademark notice", "None.", [9, 11], "uncertain"),
        ("Unplaced text: Sample identifiers", "urn:demo:first:1", [13, 15], "uncertain"),
    ]


def test_a_heading_only_spelled_like_a_known_one_is_uncertain():
    found = _heading("   Registrtion Informaton:")  # OCR damage: near-exact, certain
    assert found.key == "version" and found.confidence >= 0.9
    found = _heading("Reservation Information:")  # 0.86 like "Registration Information": not the same words
    assert found.key == "version" and found.confidence < 0.85


def test_rules_used_but_not_defined_are_named_with_where_they_come_from():
    result = document_import(published("rfc8464-3gpp2.txt"))
    item = result.report.item("grammar.abnf")
    assert item.status == "uncertain"
    assert (
        "The grammar uses rule(s) 'pchar', 'pct-encoded' but does not define them, so it cannot be run as it "
        "stands; pchar, pct-encoded are defined in RFC 3986? add them to the grammar."
    ) in item.why


def test_nid_in_a_rule_of_its_own_is_rebased_when_it_is_one_string():
    result = document_import(published("rfc7254-gsma.txt"))
    abnf = result.data.grammar.abnf
    assert 'gsma-NID              = "ogf:gsma"' in abnf
    assert "takes its NID from rule 'gsma-NID'" in result.report.item("grammar.abnf").why
    compiled = grammar_compile(abnf, result.data.grammar.rule)
    from registry.grammar import parse_urn

    assert compiled.errors == [] and compiled.check(parse_urn("urn:ogf:gsma:imei:35-209900-176148-1")) == []


def test_nid_in_a_rule_that_is_not_one_string_is_uncertain_with_the_reason():
    text = (
        'Namespace ID: demo\n\nDeclaration of syntactic structure:\n\n   x-urn = "urn:" x-nid ":" x-nss\n'
        '   x-nid = "demo" / "demo2"\n   x-nss = 1*ALPHA\n'
    )
    item = document_import(text).report.item("grammar.abnf")
    assert item.status == "uncertain"
    assert 'takes its NID from rule \'x-nid\', whose definition ("demo" / "demo2") is not a single string' in item.why


@pytest.mark.parametrize(
    "name", ["rfc2648-ietf.txt", "rfc4246-isan.txt", "rfc7207-eurosystem.txt", "rfc8069-ieee.txt", "rfc5138-cgi.txt"]
)
def test_found_is_never_wrong_in_a_pdf_made_from_the_document_either(name):
    from registry.documents import read_file

    from .pdfmaker import make_pdf

    truth = _truth(name)
    text, fmt = read_file("registration.pdf", make_pdf(published(name).replace("\f", "")))
    result = document_import(text, format=fmt)
    checked = 0
    for item in result.report.items:
        if item.status != "found":
            assert item.why, (name, item)
        elif item.field in ("examples.valid", "examples.invalid"):
            assert item.value in truth[item.field], (name, item)
        elif item.field in truth:
            assert item.value == truth[item.field], (name, item)
            checked += 1
    assert checked >= 3  # the SNID and at least two registrant fields are read from the PDF too


def test_date_is_a_heading_only_at_the_headings_indentation():
    text = (
        "   Namespace Identifier:  demo\n\n   Version:  1\n\n   Date:  2018-06-10\n\n   Revision Information:\n\n"
        "      Version 1 of the registration.\n      Date: 2018-06-10\n      Nothing changed.\n"
    )
    result = document_import(text)
    assert result.report.item("registration_date").value == "2018-06-10"
    assert result.data.sections["changes"] == ("Version 1 of the registration.\nDate: 2018-06-10\nNothing changed.")


@pytest.mark.django_db
def test_import_page_shows_uncertain_readings_additional_contacts_and_unplaced_text(client):
    client.force_login(user_factory())
    upload = io.BytesIO(published("rfc8464-3gpp2.txt").encode())
    upload.name = "rfc8464.txt"
    page = client.post("/proposals/import/", {"file": upload}).content.decode()
    assert "An additional contact, &#x27;Gary Pellegrino&#x27; (line 20)" in page
    assert "pchar, pct-encoded are defined in RFC 3986? add them to the grammar" in page
    assert "assembled from lines 17-18; check where it ends" in page
    assert "Unplaced text: Interoperability" in page
    assert Proposal.objects.count() == 0


@pytest.mark.django_db
def test_import_review_says_where_unplaced_text_goes_and_counts_the_grammars_rules(client):
    from registry.gfd191 import UNPLACED_LABEL

    client.force_login(user_factory())
    upload = io.BytesIO(published("rfc8464-3gpp2.txt").encode())
    upload.name = "rfc8464.txt"
    response = client.post("/proposals/import/", {"file": upload})
    page = response.content.decode()
    assert f"Text that matched no section (kept apart as “{UNPLACED_LABEL}”)" in page
    assert "section 8" not in page
    rules = len([n for n in response.context["result"].data.grammar.abnf.splitlines() if re.match(r"[A-Za-z]", n)])
    assert rules >= 3 and f"The grammar&#x27;s {rules} rules, with their lines" in page


def test_prose_sections_hold_only_their_own_text():
    result = document_import(seed("001"))
    assert result.data.sections["scope"] == "Global"  # not "Global\n4.": the "4." is the next heading's number
    assert any("The section number '4.' on line 152 stands alone above a heading" in n for n in result.notes)
    assert "encoding" not in result.data.sections  # "There are no additional characters reserved."
    reserved = result.report.item("sections.reserved_use")
    assert (reserved.value, reserved.status) == ("There are no additional characters reserved.", "uncertain")
    assert "the other reading is 2.3 Encoding" in reserved.why


def test_several_headings_for_one_section_keep_their_titles_in_its_text():
    result = document_import(published("rfc7207-eurosystem.txt"))
    reserved = result.data.sections["reserved_use"]
    assert reserved.startswith("No special consideration.")
    assert "Usage of query part:\nThere is no support for query instructions" in reserved
    assert "Usage of fragment part:\nThe fragment part of URI references" in reserved
    headings = {h["title"]: h["section"] for h in result.report.headings}
    assert headings["Usage of query part"] == headings["Usage of fragment part"] == "reserved_use"


def test_grammar_left_in_prose_is_fenced_and_never_rendered_as_emphasis():
    from registry.markdown import render_markdown

    result = document_import(seed("000"))
    prose = result.data.sections["syntactic_structure"]
    assert prose.startswith("```abnf\nNSS            = ProviderId")
    html = str(render_markdown(prose))
    assert "<em>" not in html and '1*(label ".") toplabel' in html
    assert html.count("<pre><code") == 1 and "<p>ProviderId is the IMG sender" in html


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["md", "txt"])
def test_registered_document_carries_resolvers_in_force_and_their_health(client, fmt):
    from django.utils import timezone

    from registry.resolution.health import ProbeResult, record
    from registry.resolution.models import Resolver

    declared = [
        {
            "name": "main",
            "template": "https://data.example.org/{DOMAIN}/{INDEX}",
            "returns": "landing",
            "media_types": [],
            "primary": True,
        }
    ]
    proposal = proposal_factory(state="approved", resolvers=declared)
    record(
        Resolver.objects.current().get(),
        ProbeResult(False, "https://data.example.org/x/1", 503, 40, "HTTP 503"),
        now=timezone.now(),
    )
    text = client.get(f"/urn/example/1/registration.{fmt}").content.decode()
    start = text.index("3.2. Process for Identifier Resolution")
    resolution = text[start : text.index("4. ", start)]
    assert "Resolvers in force and their health" in resolution
    assert "    main | https://data.example.org/{DOMAIN}/{INDEX} | failing | " in resolution
    assert "UTC, HTTP 503" in resolution
    back = document_import(text, format="markdown" if fmt == "md" else "text")
    assert back.data.resolvers == declared  # the declared resolvers, read back
    assert back.data.sections.get("resolution", "") == (proposal.sections or {}).get("resolution", "")
    assert any("health" in note and "left out" in note for note in back.report.notes)


def test_a_heading_spelled_like_a_known_title_but_meaning_another_section_is_read_by_its_words(monkeypatch):
    from registry.documents import headings

    assert headings.heading("Registrant Information").key == "registrant"
    # Without that title in the table, spelling alone (0.91 like "Registration Information", a
    # version heading) would decide; the word "registrant" says otherwise, and is not certain.
    monkeypatch.setattr(
        headings,
        "KNOWN",
        {title: key for title, key in headings.KNOWN.items() if title != headings.normal("Registrant Information")},
    )
    found = headings.heading("Registrant Information")
    assert (found.key, found.confidence) == ("registrant", 0.7)
    assert "spelled like" in found.why and "registrant" in found.why
    assert headings.heading("Registration Informaton").key == "version"  # a misspelling is still read
