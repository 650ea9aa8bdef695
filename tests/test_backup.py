"""Backup and restore: export_registry --format backup, then import_registry into an empty database."""

import datetime as dt
import io
import json

import pytest
from django.core.management import CommandError, call_command

from registry import demo, services
from registry.models import Namespace, Proposal, ProposalEvent

from .factories import user_factory


def backup() -> str:
    out = io.StringIO()
    call_command("export_registry", "--format", "backup", stdout=out)
    return out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_backup_restores_an_identical_registry(tmp_path):
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    editor = accounts["editor"][0]
    services.namespace_reserve("nsi", editor, until=dt.date(2099, 1, 1), reason="NSI WG")
    pending = Proposal.objects.get(snid="img")
    services.comment_add(pending, editor, "Give the registrant.", section="registrant")
    services.judgement_set(pending, editor, "scope", ok=True, note="Grid metadata.")
    services.reservation_request_create("glue", accounts["applicant"][0], reason="GLUE 3")
    before = backup()
    counts = (Namespace.objects.count(), Proposal.objects.count(), ProposalEvent.objects.count())
    path = tmp_path / "backup.json"
    path.write_text(before)

    call_command("flush", interactive=False)  # an empty database (post_migrate restores permissions)
    assert Proposal.objects.count() == 0
    out = io.StringIO()
    call_command("import_registry", str(path), stdout=out)

    assert (Namespace.objects.count(), Proposal.objects.count(), ProposalEvent.objects.count()) == counts
    assert json.loads(backup()) == json.loads(before)
    assert Namespace.objects.get(snid="nsi").reserved_until == dt.date(2099, 1, 1)
    assert editor.__class__.objects.get(username="editor").has_perm("registry.review_proposal")
    assert "Restored 3 SNIDs" in out.getvalue()


@pytest.mark.django_db
def test_restore_refuses_a_database_with_data(tmp_path):
    user_factory()
    from .factories import proposal_factory
    proposal_factory(state="approved")
    path = tmp_path / "backup.json"
    path.write_text(backup())
    with pytest.raises(CommandError, match="already holds registry data"):
        call_command("import_registry", str(path))
