"""Documents in and out: importing the seed registrations, exporting GFD.191 documents."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from registry.documents import UNMAPPED_MARK, document_export, document_import
from registry.gfd191 import PROSE_KEYS, SECTIONS
from registry.grammar import grammar_compile
from registry.models import Proposal

from .factories import data_factory, proposal_factory, user_factory

SEEDS = Path(__file__).resolve().parent / "seeds"
SEED_FILES = {"000": "img-registration.txt", "001": "rfc4198-fdc.txt", "002": "rfc3085-newsml-ocr.txt",
              "003": "urn-5-registration.txt", "004": "gfd191.tex"}
ALL_SECTIONS = {s.key for s in SECTIONS}
RFC3406 = {"snid", "version", "registrant", "syntactic_structure", "ancillary_documentation", "uniqueness",
           "immutability", "identifier_assignment", "resolution", "lexical_equivalence", "encoding",
           "validation_mechanism", "scope"}

# What an expert would assign: section keys found, SNID, whether the grammar parses
# (only where the source grammar is intact), example URNs (valid, invalid).
EXPECTED = {
    "000": {"sections": {"syntactic_structure", "ancillary_documentation", "uniqueness", "immutability",
                         "identifier_assignment", "resolution", "lexical_equivalence", "encoding",
                         "validation_mechanism", "scope"},
            "snid": "", "grammar": "parses", "rules": 12, "examples": (0, 0)},
    "001": {"sections": RFC3406 | {"examples"}, "snid": "fdc", "grammar": "damaged", "examples": (3, 0)},
    "002": {"sections": RFC3406 - {"version", "registrant"} | {"examples"}, "snid": "newsm",
            "grammar": "damaged", "examples": (2, 0)},
    "003": {"sections": RFC3406 | {"changes"}, "snid": "urn-5", "grammar": "parses", "rules": 5,
            "examples": (3, 0)},
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


def test_rfc_examples_are_recast_to_urn_ogf_and_said_so():
    result = document_import(seed("003"))
    assert result.data.examples.valid[2] == "urn:ogf:urn-5:Od4rB2QNOLt1e5wITWSJ+9U2Ve+Zon6N3d:17"
    assert any("re-cast as urn:ogf:urn-5:" in note for note in result.notes)
    assert result.data.registrant.name == "B. Fallenstein"
    assert result.data.registrant.address.endswith("Finland")


def test_ocr_damaged_examples_are_recovered():
    result = document_import(seed("002"))
    assert result.data.examples.valid[0] == "urn:ogf:newsm:iptc.org:20001006:NewsM_v1.0:1"


def test_unmapped_text_is_kept_in_a_marked_place():
    result = document_import(seed("001"))
    assert UNMAPPED_MARK in result.data.sections["changes"]
    assert "Security Considerations" in result.data.sections["changes"]
    assert "Security Considerations" in result.unmapped


def test_nothing_is_silently_dropped():
    text = "Preface that fits nowhere.\n\nScope:\n   Grid clusters.\n\nAcknowledgments\n\nThanks to all.\n"
    result = document_import(text)
    assert result.data.sections["scope"] == "Grid clusters."
    assert "Preface that fits nowhere." in result.data.sections["changes"]
    assert "Thanks to all." in result.data.sections["changes"]


def test_page_furniture_and_hyphenation_are_cleaned():
    text = ("Scope:\n   Identifiers for grid resour-\n   ces and clusters.\n"
            "Tessman                      Informational                     [Page 3]\n"
            "RFC 4198           URN Namespace for Federated Content      November 2005\n"
            "   More scope text.\n")
    scope = document_import(text).data.sections["scope"]
    assert "resources" in scope and "[Page" not in scope and "RFC 4198" not in scope


def test_latex_subsubsections_are_recognised():
    text = ("\\subsubsection*{1.1. Namespace Identifier}\n“\\texttt{urn:ogf:demo:}”\n"
            "\\subsubsection*{4.1. Scope}\nOnly \\emph{demo} resources. It \\MUST{} be small.\n")
    result = document_import(text)
    assert result.data.snid == "demo"
    assert result.data.sections["scope"] == "Only *demo* resources. It MUST be small."


@pytest.mark.parametrize("name", ["example", "fdc", "img", "newsml", "urn-5"])
@pytest.mark.parametrize("markdown", [True, False], ids=["markdown", "text"])
def test_export_then_import_gives_back_the_same_sections(name, markdown):
    original = data_factory(name)
    exported = document_export(original, markdown=markdown)
    back = document_import(exported).data
    assert {k: v.strip() for k, v in back.sections.items()} == {
        k: v.strip() for k, v in original.sections.items()}
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
@pytest.mark.parametrize(("who", "status"), [("anonymous", 404), ("submitter", 200), ("other", 404),
                                             ("editor", 200)])
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
