"""Backup and restore: export_registry --format backup, then import_registry."""

import datetime as dt
import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from rest_framework.authtoken.models import Token

from registry import demo, services
from registry.models import Comment, Judgement, Namespace, Proposal, ProposalEvent, ReservationRequest

from .factories import proposal_factory, user_factory

REGISTRY = (Namespace, Proposal, ProposalEvent, Comment, Judgement, ReservationRequest)


def backup() -> str:
    out = io.StringIO()
    call_command("export_registry", "--format", "backup", stdout=out)
    return out.getvalue()


def counts() -> tuple:
    return tuple(model.objects.count() for model in REGISTRY)


def empty_the_database():
    """A fresh, migrated database: what a restore starts from (the editors group is there)."""
    call_command("flush", interactive=False)


def records(text: str) -> list:
    return json.loads(text)["records"]


def restore(path, *args) -> str:
    out = io.StringIO()
    call_command("import_registry", str(path), *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def registry_with_everything(db):
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    editor, applicant = accounts["editor"][0], accounts["applicant"][0]
    until = dt.date.today() + dt.timedelta(days=200)
    services.namespace_reserve("nsi", editor, until=until, reason="NSI WG")
    pending = Proposal.objects.get(snid="img")
    services.comment_add(pending, editor, "Give the registrant.", section="registrant")
    services.judgement_set(pending, editor, "scope", ok=True, note="Grid metadata.")
    services.reservation_request_create("glue", applicant, reason="GLUE 3")
    token = Token.objects.create(user=applicant)
    return {"until": until, "token": token.key}


@pytest.mark.django_db(transaction=True)
def test_backup_restores_an_identical_registry(tmp_path, registry_with_everything):
    before = backup()
    expected = counts()
    path = tmp_path / "backup.json"
    path.write_text(before, encoding="utf-8")

    empty_the_database()
    assert counts() == (0, 0, 0, 0, 0, 0)
    out = restore(path)

    assert counts() == expected
    assert records(backup()) == records(before)
    assert Namespace.objects.get(snid="nsi").reserved_until == registry_with_everything["until"]
    assert get_user_model().objects.get(username="editor").has_perm("registry.review_proposal")
    assert Token.objects.get(key=registry_with_everything["token"]).user.username == "applicant"
    assert "Restored 3 SNIDs" in out and "1 API tokens" in out


@pytest.mark.django_db(transaction=True)
def test_restore_never_touches_an_account_it_does_not_restore(tmp_path, registry_with_everything):
    path = tmp_path / "backup.json"
    path.write_text(backup(), encoding="utf-8")
    empty_the_database()
    operator = get_user_model().objects.create_superuser("operator", "op@example.org", "pw-for-tests-1")
    restore(path)
    operator.refresh_from_db()
    assert (operator.username, operator.is_superuser, operator.check_password("pw-for-tests-1")) == (
        "operator",
        True,
        True,
    )
    assert get_user_model().objects.filter(username="editor").exists()


@pytest.mark.django_db(transaction=True)
def test_restore_refuses_accounts_that_exist_unless_replace(tmp_path, registry_with_everything):
    path = tmp_path / "backup.json"
    path.write_text(backup(), encoding="utf-8")
    empty_the_database()
    user_factory("editor", password="operator-chose-this-1")
    with pytest.raises(CommandError, match=r"backup's usernames already exist here \(editor\)"):
        restore(path)
    assert counts() == (0, 0, 0, 0, 0, 0)
    restore(path, "--replace")
    assert not get_user_model().objects.get(username="editor").check_password("operator-chose-this-1")


@pytest.mark.django_db(transaction=True)
def test_restore_refuses_accounts_with_the_backups_user_names_in_another_case(tmp_path, registry_with_everything):
    """User names are one name whatever their case: "EDITOR" here and the backup's "editor" cannot both be,
    and replacing one by the other would be a guess. Nothing is restored; the message names both."""
    origins = dict(get_user_model().objects.values_list("username", "account__origin"))
    path = tmp_path / "backup.json"
    path.write_text(backup(), encoding="utf-8")
    empty_the_database()
    user_factory("EDITOR")
    for args in ((), ("--replace",)):
        with pytest.raises(CommandError, match=r"in another case: EDITOR \(the backup's editor\)"):
            restore(path, *args)
    assert counts() == (0, 0, 0, 0, 0, 0) and get_user_model().objects.count() == 1
    get_user_model().objects.all().delete()
    restore(path)  # how each account came to be is in the backup: a sign-up stays one, nothing else becomes one
    assert dict(get_user_model().objects.values_list("username", "account__origin")) == origins


@pytest.mark.django_db
def test_restore_refuses_a_database_with_data(tmp_path):
    proposal_factory(state="approved")
    path = tmp_path / "backup.json"
    path.write_text(backup(), encoding="utf-8")
    with pytest.raises(CommandError, match="already holds registry data .*nothing was restored"):
        restore(path)


@pytest.mark.django_db(transaction=True)
def test_restore_with_replace_replaces_the_registry(tmp_path, registry_with_everything):
    path = tmp_path / "backup.json"
    path.write_text(backup(), encoding="utf-8")
    expected = counts()
    proposal_factory(user_factory("latecomer"), snid="later", state="submitted")
    restore(path, "--replace")
    assert counts() == expected and not Proposal.objects.filter(snid="later").exists()
    assert get_user_model().objects.filter(username="latecomer").exists()  # not in the backup: untouched


@pytest.mark.django_db
@pytest.mark.parametrize(
    "content, message",
    [
        ("[]", "not a registry backup"),
        ("", "not valid JSON"),
        ('{"format": "urn-ogf-registry-backup", "version": 1}', "does not match its schema"),
    ],
)
def test_restore_refuses_what_is_not_a_backup(tmp_path, content, message):
    path = tmp_path / "backup.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError, match=message):
        restore(path)
    assert counts() == (0, 0, 0, 0, 0, 0)


@pytest.mark.django_db
def test_restore_refuses_a_backup_that_empties_nothing_but_holds_nothing(tmp_path):
    from registry.management.commands._backup import backup_document, render

    path = tmp_path / "backup.json"
    path.write_text(render(backup_document()), encoding="utf-8")  # an empty registry, no accounts
    with pytest.raises(CommandError, match="nothing to restore"):
        restore(path)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("where", ["grammar", "signature", "whitespace", "created_at"])
def test_a_changed_byte_is_refused_and_nothing_is_written(tmp_path, registry_with_everything, where):
    text = backup()
    data = bytearray(text.encode("utf-8"))
    if where == "grammar":
        start = text.index('"grammar_abnf": "') + len('"grammar_abnf": "')
        position = next(i for i in range(start, len(text)) if text[i].isalpha())  # a grammar's letter
    elif where == "signature":
        position = text.index('"hmac_sha256": "') + len('"hmac_sha256": "')
    elif where == "whitespace":
        position = text.index('\n "records"') + 1
    else:
        position = text.index('"created_at": "') + len('"created_at": "') + 3
    data[position] = {ord("0"): ord("1"), ord(" "): ord("\t")}.get(data[position], ord("0"))
    path = tmp_path / "backup.json"
    path.write_bytes(bytes(data))
    empty_the_database()
    with pytest.raises(CommandError, match="signature|bytes differ|schema"):
        restore(path)
    assert counts() == (0, 0, 0, 0, 0, 0)
    assert not get_user_model().objects.filter(username="editor").exists()


@pytest.mark.django_db
def test_the_backup_schema_checks_each_record(tmp_path, make_proposal):
    from registry.management.commands._backup import backup_document, render, sign

    make_proposal(state="approved")
    document = backup_document()
    proposal = next(r for r in document["records"] if r["model"] == "registry.proposal")
    proposal["fields"]["state"] = 7
    sign(document)
    path = tmp_path / "backup.json"
    path.write_text(render(document), encoding="utf-8")
    with pytest.raises(CommandError, match=r"schema at records/\d+/fields/state: 7 is not of type 'string'"):
        restore(path)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("microsecond", [0, 500, 999_999])
def test_backup_keeps_times_to_the_microsecond(tmp_path, microsecond):
    """Times whose microseconds are below 1,000 made the round trip differ in about one run of ten."""
    proposal = proposal_factory(user_factory("writer"), state="submitted")
    at = dt.datetime(2026, 11, 22, 10, 30, 0, microsecond, tzinfo=dt.UTC)
    Comment.objects.create(proposal=proposal, author=proposal.submitter, text="timed", created_at=at)
    before = backup()
    path = tmp_path / "backup.json"
    path.write_text(before, encoding="utf-8")
    empty_the_database()
    restore(path)
    assert Comment.objects.get(text="timed").created_at == at
    assert records(backup()) == records(before)


# --- signed backups -----------------------------------------------------------------------------


def _forged(text: str, editor_name: str) -> str:
    """The attack an unkeyed digest allowed: an approved grammar and its owner changed, and the
    digest the file carries recomputed by whoever changed them (without the key)."""
    import hashlib

    from registry.management.commands._backup import _canonical, render

    document = json.loads(text)
    approved = next(
        r for r in document["records"] if r["model"] == "registry.proposal" and r["fields"]["state"] == "approved"
    )
    approved["fields"]["grammar_abnf"] = "nss = 1*%x00-7F\n"
    approved["fields"]["submitter"] = [editor_name]
    document["hmac_sha256"] = hashlib.sha256(_canonical(document)).hexdigest()  # no key to do better
    return render(document)


@pytest.mark.django_db(transaction=True)
def test_a_forged_backup_with_its_digest_recomputed_is_refused(tmp_path, settings):
    settings.REGISTRY_BACKUP_KEY = "k" * 64
    editor = user_factory("mallory")
    proposal_factory(user_factory("owner"), state="approved")
    path = tmp_path / "backup.json"
    path.write_text(_forged(backup(), editor.username), encoding="utf-8")
    empty_the_database()
    with pytest.raises(CommandError, match="does not match its HMAC-SHA256 signature"):
        restore(path)
    assert counts() == (0, 0, 0, 0, 0, 0)


@pytest.mark.django_db(transaction=True)
def test_a_backup_restores_only_with_the_key_it_was_signed_with(tmp_path, settings):
    settings.REGISTRY_BACKUP_KEY = "a" * 64
    proposal_factory(user_factory("owner"), state="approved")
    path = tmp_path / "backup.json"
    path.write_text(backup(), encoding="utf-8")
    empty_the_database()
    settings.REGISTRY_BACKUP_KEY = "b" * 64
    with pytest.raises(CommandError, match="signed with another key"):
        restore(path)
    assert counts() == (0, 0, 0, 0, 0, 0)
    settings.REGISTRY_BACKUP_KEY = "a" * 64
    restore(path)
    assert Namespace.objects.count() == 1


@pytest.mark.django_db
def test_the_backup_key_comes_from_a_file_outside_the_backup(tmp_path, settings):
    from registry.management.commands._backup import backup_key

    settings.REGISTRY_BACKUP_KEY = ""
    settings.REGISTRY_BACKUP_KEY_FILE = str(tmp_path / "missing")
    with pytest.raises(CommandError, match="Cannot read the backup key file"):
        backup()
    (tmp_path / "key").write_text("short\n")
    settings.REGISTRY_BACKUP_KEY_FILE = str(tmp_path / "key")
    with pytest.raises(CommandError, match="shorter than 32 characters"):
        backup()
    (tmp_path / "key").write_text("z" * 40 + "\n")
    assert backup_key() == b"z" * 40
    assert "hmac_sha256" in json.loads(backup())
    settings.REGISTRY_BACKUP_KEY_FILE = ""
    with pytest.raises(CommandError, match="No backup key is configured"):
        backup()


@pytest.mark.django_db
def test_an_unsigned_backup_of_the_first_version_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "backup.json"
    path.write_text(
        json.dumps(
            {"format": "urn-ogf-registry-backup", "version": 1, "created_at": "", "sha256": "0" * 64, "records": []}
        ),
        encoding="utf-8",
    )
    with pytest.raises(CommandError, match="unkeyed digest that anyone could recompute"):
        restore(path)


@pytest.mark.django_db(transaction=True)
def test_an_snids_life_after_approval_survives_a_restore(tmp_path, registry_with_everything):
    """Stewards, the decided change and its overlay, the history and the deprecation are backed up."""
    from registry.lookup import lookup_urn, registry_invalidate
    from registry.stewardship.models import ChangeRequest, Deprecation, RegistrantOverlay, Steward, StewardshipEvent

    life = (Steward, ChangeRequest, StewardshipEvent, RegistrantOverlay, Deprecation)
    before = [sorted(model.objects.values_list("pk", flat=True)) for model in life]
    assert all(before)
    path = tmp_path / "backup.json"
    path.write_text(backup(), encoding="utf-8")
    restore(path, "--replace")
    assert [sorted(model.objects.values_list("pk", flat=True)) for model in life] == before
    registry_invalidate()
    fdc = Proposal.objects.get(snid="fdc")
    assert lookup_urn(fdc.examples_valid[0])["registration"]["status"] == "deprecated"


@pytest.mark.django_db(transaction=True)
def test_restore_measures_the_validators_it_restored(tmp_path, registry_with_everything):
    from registry.models import ValidatorCost

    path = tmp_path / "backup.json"
    path.write_text(backup(), encoding="utf-8")
    approved = Proposal.objects.filter(state="approved", validator__isnull=False).count()
    empty_the_database()
    out = restore(path)

    # Without the figures no validator is proven cheap: every lookup would go to the bounded worker.
    assert ValidatorCost.objects.count() == approved > 0
    assert "0 validators over the" in out


@pytest.mark.django_db(transaction=True)
def test_restore_with_no_measure_leaves_the_validators_unmeasured(tmp_path, registry_with_everything):
    from registry.models import ValidatorCost

    path = tmp_path / "backup.json"
    path.write_text(backup(), encoding="utf-8")
    empty_the_database()
    restore(path, "--no-measure")
    assert ValidatorCost.objects.count() == 0
