"""Documents in and out: importing the seed registrations, exporting GFD.191 documents."""

import io
import json
import re

import pytest
from django.core.management import CommandError, call_command

from registry.documents import UNMAPPED_MARK, document_export, document_import
from registry.gfd191 import PROSE_KEYS, SECTIONS
from registry.grammar import grammar_compile
from registry.models import Proposal

from .docxmaker import make_docx
from .factories import data_factory, proposal_factory, user_factory
from .published_rfcs import JTC1, PUBLISHED, SEED_FILES, SEEDS, UUID_EXAMPLE, UUID_RULES, published, seed

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
