"""Management commands: start, import/export, validate_urn, check_proposal."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from registry.enums import NamespaceStatus, ProposalState
from registry.models import Namespace, Proposal

from .factories import FIXTURES, user_factory


def run(*args, stdin: str | None = None, monkeypatch=None):
    out = io.StringIO()
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = 0
    try:
        call_command(*args, stdout=out)
    except SystemExit as exc:
        code = exc.code
    return code, out.getvalue()


@pytest.mark.django_db
def test_start_on_an_empty_database_loads_demo_data_and_is_idempotent():
    code, out = run("start", "--no-serve")
    assert code == 0
    assert "Loaded 5 demonstration proposals." in out
    tail = "\n".join(out.splitlines()[-6:])  # the credentials come last
    assert "username: applicant  password: applicant-demo-2026" in tail
    assert "GFD editor  username: editor     password: editor-demo-2026" in tail
    assert "username: maintainer password: maintainer-demo-2026" in tail
    states = dict(Proposal.objects.values_list("snid", "state"))
    assert states == {
        "example": "approved",
        "fdc": "approved",
        "img": "submitted",
        "urn-5": "submitted",
        "newsml": "changes_requested",
    }
    assert all(Proposal.objects.values_list("is_demo", flat=True))
    assert sorted(Namespace.objects.registered().values_list("snid", flat=True)) == ["example", "fdc"]
    # an SNID's life after approval: two stewards and a completed contact change; a deprecated SNID
    from registry.stewardship.selectors import current_with_overlay, deprecation_of, stewards_active

    example, fdc = (Namespace.objects.select_related("current").get(snid=s) for s in ("example", "fdc"))
    assert sorted(s.user.username for s in stewards_active(example)) == ["applicant", "maintainer"]
    assert current_with_overlay(example).registrant_public_contact == "urn-registry@example.org"
    assert example.change_requests.get().state == "approved"
    assert deprecation_of(fdc).successor == example

    code, out = run("start", "--no-serve")
    assert "demo data not loaded" in out
    assert Proposal.objects.count() == 5


@pytest.mark.django_db
def test_import_export_import_round_trips(tmp_path):
    user_factory("importer")
    source = FIXTURES / "proposals" / "example.json"
    code, out = run("import_proposal", str(source), "--submitter", "importer")
    first = int(out.strip())
    code, exported = run("export_proposal", str(first))
    assert json.loads(exported) == json.loads(source.read_text())
    path = tmp_path / "again.json"
    path.write_text(exported)
    code, out = run("import_proposal", str(path), "--submitter", "importer")
    code, exported_again = run("export_proposal", out.strip())
    assert json.loads(exported_again) == json.loads(exported)


@pytest.mark.django_db
def test_import_with_approve_uses_the_services():
    user_factory("importer")
    user_factory("gfd-editor", editor=True)
    code, out = run(
        "import_proposal",
        str(FIXTURES / "proposals" / "example.json"),
        "--submitter",
        "importer",
        "--approve",
        "--editor",
        "gfd-editor",
        *[f"--judge={check}=satisfied" for check in ("scope", "snid-durable", "subdelegation", "immutability")],
    )
    proposal = Proposal.objects.get(pk=int(out.strip()))
    assert proposal.state == ProposalState.APPROVED and proposal.overridden == []
    assert [e.action for e in proposal.events.all()] == ["", "submit", "judge", "judge", "judge", "judge", "approve"]
    assert Namespace.objects.get().status == NamespaceStatus.REGISTERED


@pytest.mark.django_db
def test_import_reports_invalid_files_by_key(tmp_path):
    user_factory("importer")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"snid": "x", "version": "one"}))
    with pytest.raises(CommandError, match="version: must be a whole number"):
        call_command("import_proposal", str(path), "--submitter", "importer")
    path.write_text("{not json")
    with pytest.raises(CommandError, match="not valid JSON: .* line 1, column 2"):
        call_command("import_proposal", str(path), "--submitter", "importer")


@pytest.mark.django_db
def test_validate_urn_with_a_grammar_file(tmp_path, monkeypatch):
    grammar = tmp_path / "g.abnf"
    grammar.write_text('id = 1*DIGIT ":" ALPHA\n')
    code, out = run("validate_urn", "--grammar", str(grammar), "urn:ogf:any:12:a", "URN:OGF:Any:1:b")
    assert (code, out.count("valid    ")) == (0, 2)
    code, out = run(
        "validate_urn",
        "--grammar",
        str(grammar),
        "--json",
        stdin="urn:ogf:x:1:a\nurn:ogf:x:a:1\n",
        monkeypatch=monkeypatch,
    )
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [(r["valid"], r["normalized"]) for r in lines] == [(True, "urn:ogf:x:1:a"), (False, "urn:ogf:x:a:1")]
    assert lines[1]["errors"] == [
        "The string after 'urn:ogf:x:' does not match the grammar's rule 'id'. "
        "At character 11 ('a'): expected a digit (rule id)."
    ]


@pytest.mark.django_db
def test_validate_urn_bad_grammar_names_the_problem(tmp_path):
    grammar = tmp_path / "g.abnf"
    grammar.write_text("id = thing\n")
    with pytest.raises(CommandError, match="refers to 'thing', which is not defined") as caught:
        call_command("validate_urn", "--grammar", str(grammar), "urn:ogf:x:y")
    assert caught.value.returncode == 2


@pytest.mark.django_db
def test_validate_urn_against_a_registered_snid():
    run("start", "--no-serve")
    code, out = run(
        "validate_urn",
        "--snid",
        "EXAMPLE",
        "--json",
        "URN:OGF:Example:CLUSTER:2009:EXAMPLE.net:42",
        "urn:ogf:fdc:example.com:2002:A",
    )
    first, second = (json.loads(line) for line in out.splitlines())
    assert code == 1
    assert (first["valid"], first["normalized"]) == (True, "urn:ogf:example:cluster:2009:example.net:42")
    assert second["errors"] == ["The URN belongs to urn:ogf:fdc:, not urn:ogf:example:."]
    with pytest.raises(CommandError, match="not registered"):
        call_command("validate_urn", "--snid", "nope", "urn:ogf:nope:x")


@pytest.mark.django_db
def test_check_proposal_json_and_exit_codes(tmp_path):
    code, out = run("check_proposal", str(FIXTURES / "proposals" / "example.json"), "--json")
    report = json.loads(out)
    assert (code, report["snid"], report["summary"]["fail"]) == (0, "example", 0)
    assert set(report["findings"][0]) == {"id", "status", "message", "reference", "item"}
    code, out = run("check_proposal", str(FIXTURES / "proposals" / "urn-5.json"))
    assert code == 1 and "FAIL     examples-valid" in out
    with pytest.raises(CommandError) as caught:
        call_command("check_proposal", str(tmp_path / "missing.json"))
    assert caught.value.returncode == 2


@pytest.mark.django_db
def test_check_proposal_on_a_stored_proposal():
    run("start", "--no-serve")
    proposal = Proposal.objects.get(snid="urn-5")
    code, out = run("check_proposal", str(proposal.pk), "--json")
    assert code == 1
    assert json.loads(out)["summary"]["fail"] == 1  # its counter-example


@pytest.mark.django_db
def test_check_proposal_of_a_new_version_with_and_without_submitter(tmp_path):
    run("start", "--no-serve")  # urn:ogf:example: is registered to 'applicant'
    raw = json.loads((FIXTURES / "proposals" / "example.json").read_text(encoding="utf-8"))
    path = tmp_path / "v2.json"
    path.write_text(json.dumps({**raw, "version": 2}), encoding="utf-8")

    def unique(*extra):
        code, out = run("check_proposal", str(path), "--json", *extra)
        return [(f["status"], f["message"]) for f in json.loads(out)["findings"] if f["id"] == "snid-unique"]

    ((status, message),) = unique()
    assert status == "warning" and "someone else" not in message
    assert message.startswith("urn:ogf:example: is already registered (latest version 1).")
    assert unique("--submitter", "applicant") == [("pass", "This is a new version of an SNID you are a steward of.")]
    user_factory("stranger")
    ((status, message),) = unique("--submitter", "stranger")
    assert status == "fail" and "already registered to someone else" in message
    with pytest.raises(CommandError) as caught:
        call_command("check_proposal", str(path), "--submitter", "nobody")
    assert caught.value.returncode == 2


@pytest.mark.django_db
def test_validate_urn_against_a_registered_snid_says_where(monkeypatch):
    run("start", "--no-serve")
    code, out = run(
        "validate_urn", "--snid", "example", "urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:mark1"
    )
    assert code == 1
    assert "At character 66 ('m'): expected a digit (rule INDEX)." in out
