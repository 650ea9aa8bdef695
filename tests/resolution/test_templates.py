"""Templates checked when written, expansion, hostile input, and the checklist's URLs."""

from __future__ import annotations

import pytest

from registry import interchange
from registry.checklist import run_checklist
from registry.resolving.expand import percent_encode
from registry.resolving.lines import resolvers_from_lines, resolvers_to_lines
from registry.resolving.templates import template_check
from tests.factories import demo_raw

RULES = ["DOMAIN", "INDEX"]


@pytest.mark.parametrize(
    ("template", "says"),
    [
        ("javascript:alert(1)", "must start with https://"),
        ("data:text/html,x", "must start with https://"),
        ("//evil.example/{nss}", "scheme-relative"),
        ("https://{nss}.evil.example/", "host must be written out"),
        ("https://{DOMAIN}/", "host must be written out"),
        ("https://user@evil.example/{nss}", "user information"),
        ("https://ok.example/" + "{" * 10_000, "characters long"),
        ("https://ok.example/" + "{nss}" * 10_000, "characters long"),
        ("https://ok.example/" + "{nss}" * 17, "more than 16 placeholders"),
        ("https://ok.example/{{nss}}", "must open a placeholder"),
        ("https://ok.example/{nss", "must open a placeholder"),
        ("https://ok.example/nss}", "without an opening"),
        ("https://ok.example/a\r\nSet-Cookie: x=1", "carriage return"),
        ("https://ok.example/a b", "a space"),
        ("https://ok.example/{Unknown}", "neither {nss} nor a rule"),
        ("https://[::1]/{nss}", "is an IP address literal"),
    ],
)
def test_template_refused_with_a_reason(template, says):
    checked = template_check(template, RULES)
    assert not checked.ok and says in checked.errors[0]


def test_template_http_is_a_warning_and_rule_names_any_case():
    checked = template_check("http://ok.example/{domain}/{Index}?x={NSS}", RULES)
    assert checked.ok and "http://" in checked.warnings[0]


def test_percent_encode_keeps_unreserved_and_existing_escapes():
    assert percent_encode("a:b/c?d#e %2f~") == "a%3Ab%2Fc%3Fd%23e%20%2F~"


def test_interchange_refuses_hostile_resolvers_naming_the_key():
    raw = {**demo_raw("example"), "resolvers": [{"name": "x", "template": "javascript:alert(1)"}]}
    with pytest.raises(interchange.InterchangeError) as caught:
        interchange.load(raw)
    assert caught.value.errors[0].startswith("resolvers[0].template:")
    too_many = {
        **demo_raw("example"),
        "resolvers": [{"name": f"r{i}", "template": "https://a.example/{nss}"} for i in range(11)],
    }
    with pytest.raises(interchange.InterchangeError):
        interchange.load(too_many)


def test_interchange_round_trip_and_first_is_primary():
    raw = {
        **demo_raw("example"),
        "resolvers": [
            {"name": "a", "template": "https://a.example/{INDEX}"},
            {"name": "b", "template": "https://b.example/{nss}"},
        ],
    }
    data = interchange.load(raw)
    assert [r["primary"] for r in data.resolvers] == [True, False]
    assert interchange.load(interchange.dump(data)) == data


def test_lines_round_trip():
    text = "Main | https://a.example/{nss} | metadata | application/json, text/turtle | primary"
    resolvers = resolvers_from_lines(text)
    assert resolvers == [
        {
            "name": "Main",
            "template": "https://a.example/{nss}",
            "returns": "metadata",
            "media_types": ["application/json", "text/turtle"],
            "primary": True,
        }
    ]
    assert resolvers_to_lines(resolvers) == text


def test_checklist_shows_the_url_of_every_example():
    raw = {
        **demo_raw("example"),
        "resolvers": [{"name": "main", "template": "https://data.example.org/{DOMAIN}/{INDEX}"}],
    }
    [finding] = [f for f in run_checklist(interchange.load(raw)) if f.id == "resolvers"]
    assert finding.status == "pass"
    assert "urn:ogf:example:cluster:2009:example.net:42 → https://data.example.org/example.net/42" in finding.message
    assert len(finding.item["urls"]) == 4


def test_proposal_form_takes_resolver_lines(client, applicant):
    from tests.factories import proposal_factory

    proposal = proposal_factory(applicant)
    client.force_login(applicant)
    page = client.get(f"/proposals/{proposal.pk}/edit/")
    assert b'name="resolvers"' in page.content


def test_unknown_rule_placeholder_saves_but_the_checklist_fails_it():
    raw = {**demo_raw("example"), "resolvers": [{"name": "main", "template": "https://a.example/{Nope}"}]}
    data = interchange.load(raw)  # a draft whose grammar is being reworked can still be saved
    findings = [f for f in run_checklist(data) if f.id == "resolvers"]
    assert [f.status for f in findings] == ["fail"] and "{Nope}" in findings[0].message


def test_resolvers_check_not_run_without_examples_or_a_usable_grammar():
    base = {**demo_raw("example"), "resolvers": [{"name": "main", "template": "https://a.example/{INDEX}"}]}
    no_examples = {**base, "examples": {"valid": [], "invalid": []}}
    [finding] = [f for f in run_checklist(interchange.load(no_examples)) if f.id == "resolvers"]
    assert finding.status == "not_run" and "valid examples" in finding.message
    broken = {**base, "grammar": {"abnf": "EXAMPLE-URN = (\n", "rule": ""}}
    [finding] = [f for f in run_checklist(interchange.load(broken)) if f.id == "resolvers"]
    assert finding.status == "not_run"
    nss_only = {**broken, "resolvers": [{"name": "main", "template": "https://a.example/{nss}"}]}
    [finding] = [f for f in run_checklist(interchange.load(nss_only)) if f.id == "resolvers"]
    assert finding.status == "pass"  # {nss} needs no grammar


def test_checklist_pass_does_not_claim_every_example_when_some_gave_no_url():
    raw = {
        **demo_raw("example"),
        "resolvers": [
            {"name": "a", "template": "https://a.example/{nss}"},
            {"name": "b", "template": "https://b.example/{QUERY}"},
        ],
    }
    raw["examples"]["valid"].append("urn:ogf:example:cluster:2009:example.net:42?x")
    findings = [f for f in run_checklist(interchange.load(raw)) if f.id == "resolvers"]
    assert [f.status for f in findings].count("warning") == 4  # b: no QUERY in four examples
    [passed] = [f for f in findings if f.status == "pass"]
    assert "Every template" not in passed.message
    assert passed.message.startswith("6 URLs made for 10 pairs of resolver and valid example")
    assert "b: urn:ogf:example:cluster:2009:example.net:42?x → https://b.example/%3Fx" in passed.message


def _hostile(base: str) -> list[tuple[str, str]]:
    """(template, what the refusal says) for every hostile shape, aimed at the loopback target."""
    host = base.split("//", 1)[1]
    return [
        ("javascript:fetch('" + base + "/{nss}')", "must start with https://"),
        ("//" + host + "/{nss}", "scheme-relative"),
        ("https://{nss}." + host + "/", "host must be written out"),
        ("https://x@" + host + "/{nss}", "user information"),
        ("https://" + host + "/" + "{" * 10_000, "characters long"),
        ("https://" + host + "/" + "{nss}" * 10_000, "characters long"),
        ("https://" + host + "/" + "{nss}" * 17, "more than 16 placeholders"),
        ("https://" + host + "/a\r\nSet-Cookie: x=1/{nss}", "carriage return"),
    ]


@pytest.mark.django_db(transaction=True)
def test_hostile_templates_are_refused_everywhere_nothing_stored_nothing_followed(
    client, applicant, editor, target, settings
):
    from django.core.management import call_command

    from registry.models import Proposal
    from registry.resolution.models import Resolver, ResolverCheck
    from registry.resolution.services import ResolutionError, resolvers_replace
    from tests.factories import proposal_factory
    from tests.test_hostile import edit_data

    settings.REGISTRY_RESOLVER_ALLOW_PRIVATE = "127.0.0.0/8"  # the checker could reach the target: it must not
    draft = proposal_factory(applicant)
    client.force_login(applicant)
    for template, says in _hostile(target.base):
        # the interchange format (import, API)
        raw = {**demo_raw("example"), "resolvers": [{"name": "x", "template": template}]}
        with pytest.raises(interchange.InterchangeError) as caught:
            interchange.load(raw)
        assert says in caught.value.errors[0]
        # the proposal form: the line, and what is wrong with it
        page = client.post(f"/proposals/{draft.pk}/edit/", edit_data(draft, resolvers=f"x | {template}"))
        assert page.status_code == 400
        if "\n" in template:  # a line break in a text area starts the next line, which is refused
            assert b"Line 2 (template): A resolver URL must start with https://" in page.content
        else:
            assert says.encode() in page.content and b"Line 1 (template)" in page.content
        assert Proposal.objects.get(pk=draft.pk).resolvers == []
    approved = proposal_factory(name="fdc", state="approved", editor=editor)
    for template, says in _hostile(target.base):
        with pytest.raises(ResolutionError) as caught:
            resolvers_replace(approved.snid, [{"name": "x", "template": template}], editor, "Hostile.")
        assert any(says in error for error in caught.value.errors)
    assert not Resolver.objects.exists()
    call_command("check_resolvers")
    assert target.requests == [] and not ResolverCheck.objects.exists()


#: Every way of writing an address, a loopback name or a name that means something only inside one
#: network, with what the refusal says: all refused, by the one check (templates.host_problem).
NOT_DNS_NAMES = [
    ("http://169.254.169.254/latest/meta-data/{nss}", "is an IP address"),  # dotted (cloud metadata)
    ("https://127.0.0.1:8200/{nss}", "is an IP address"),
    ("https://2130706433/{nss}", "is an IP address"),  # decimal
    ("https://0x7f.1/{nss}", "is an IP address"),  # hexadecimal, shortened
    ("https://0x7F000001/{nss}", "is an IP address"),
    ("https://0177.0.0.1/{nss}", "is an IP address"),  # octal
    ("https://127.1/{nss}", "is an IP address"),  # shortened
    ("http://0:8251/{nss}", "is an IP address"),  # `0`
    ("https://1.2.3.0x4/{nss}", "is an IP address"),
    ("https://127.0.0.1./{nss}", "is an IP address"),  # an absolute name's final dot
    ("https://[::1]/{nss}", "is an IP address literal"),  # bracketed IPv6
    ("https://[::ffff:127.0.0.1]:8443/{nss}", "is an IP address literal"),  # IPv4-mapped
    ("https://[::ffff:7f00:1]/{nss}", "is an IP address literal"),
    ("https://[fe80::1%25eth0]/{nss}", "is an IP address literal"),
    ("https://localhost/{nss}", "localhost"),
    ("https://LOCALHOST:8000/{nss}", "localhost"),
    ("https://localhost./{nss}", "localhost"),
    ("https://api.localhost/{nss}", "localhost"),  # *.localhost
    ("https://intranet/{nss}", "single-label"),
    ("https://metadata/computeMetadata/{nss}", "single-label"),
    ("https://a..example.org/{nss}", "empty label"),
    ("https://-a.example.org/{nss}", "start or end with '-'"),
    ("https://data.example.org/../admin/{nss}", "'..' segment"),
    ("https://data.example.org/id/./{nss}", "'.' segment"),
    ("https://data.example.org/%2e%2E/{nss}", "'%2e%2E' segment"),
]


@pytest.mark.parametrize(("template", "says"), NOT_DNS_NAMES)
def test_template_host_must_be_a_dns_name(template, says):
    checked = template_check(template, RULES)
    assert not checked.ok and says in checked.errors[0], checked.errors


@pytest.mark.parametrize(
    "template",
    [
        "https://data.example.org/{nss}",
        "https://a-b.c.example/{INDEX}",
        "https://xn--bcher-kva.example:8443/{nss}",
        "https://data.example.org./{nss}",
        "https://v1.api.example.org/x.{nss}/..json",
        "https://h.example/0x1/{nss}",
    ],
)
def test_template_dns_names_are_accepted(template):
    assert template_check(template, RULES).ok


@pytest.mark.django_db(transaction=True)
def test_not_dns_names_are_refused_through_form_interchange_import_change_and_document(
    client, applicant, editor, tmp_path
):
    """The form (its line and sentence), the interchange format (its key), the interchange import
    command, the editor's change (the API stewardship calls) and a document's import notes."""
    from django.core.management import call_command
    from django.core.management.base import CommandError

    from registry.documents import document_import
    from registry.documents.export import document_export
    from registry.models import Proposal
    from registry.resolution.services import resolvers_validate
    from tests.factories import proposal_factory
    from tests.test_hostile import edit_data

    draft = proposal_factory(applicant)
    approved = proposal_factory(name="fdc", state="approved", editor=editor)
    client.force_login(applicant)
    for template, says in NOT_DNS_NAMES:
        raw = {**demo_raw("example"), "resolvers": [{"name": "x", "template": template}]}
        with pytest.raises(interchange.InterchangeError) as caught:
            interchange.load(raw)
        assert caught.value.errors[0].startswith("resolvers[0].template:") and says in caught.value.errors[0]
        path = tmp_path / "proposal.json"
        path.write_text(__import__("json").dumps(raw))
        with pytest.raises(CommandError) as refused:
            call_command("import_proposal", str(path), "--submitter", applicant.username)
        assert "resolvers[0].template" in str(refused.value) and says in str(refused.value)
        page = client.post(f"/proposals/{draft.pk}/edit/", edit_data(draft, resolvers=f"x | {template}"))
        assert page.status_code == 400 and b"Line 1 (template)" in page.content
        assert says.encode() in page.content.replace(b"&#x27;", b"'")
        errors = resolvers_validate(approved.snid, [{"name": "x", "template": template}])
        assert any(says in error for error in errors), errors
        document = interchange.load(demo_raw("example"))
        document.resolvers = [
            {"name": "x", "template": template, "returns": "landing", "media_types": [], "primary": True}
        ]
        imported = document_import(document_export(document, markdown=False))
        assert imported.data.resolvers[0]["template"] == template  # read, and said to be wrong:
        assert any(note.startswith("resolvers[0].template:") and says in note for note in imported.report.notes), (
            imported.report.notes
        )
    assert Proposal.objects.get(pk=draft.pk).resolvers == []
