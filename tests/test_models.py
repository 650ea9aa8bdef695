"""Data-model guarantees: case-insensitive SNIDs, immutability by every path."""

import pytest
from django.db import IntegrityError, transaction

from registry.enums import NamespaceStatus, ProposalState
from registry.models import ImmutableError, Namespace, Proposal, ProposalEvent


@pytest.mark.django_db
def test_snids_are_unique_case_insensitively_in_the_database():
    Namespace.objects.create(snid="Example", status=NamespaceStatus.REGISTERED)
    with pytest.raises(IntegrityError), transaction.atomic():
        Namespace.objects.create(snid="eXAMPLE", status=NamespaceStatus.RESERVED)
    assert Namespace.objects.count() == 1


@pytest.mark.django_db
def test_namespace_lookup_is_case_insensitive():
    created = Namespace.objects.create(snid="Example", status=NamespaceStatus.REGISTERED)
    assert list(Namespace.objects.by_snid("EXAMPLE")) == [created]


@pytest.mark.django_db
def test_namespaces_are_never_deleted_or_renamed():
    namespace = Namespace.objects.create(snid="keep", status=NamespaceStatus.REGISTERED)
    with pytest.raises(ImmutableError):
        namespace.delete()
    with pytest.raises(ImmutableError):
        Namespace.objects.all().delete()
    namespace.snid = "other"
    with pytest.raises(ImmutableError):
        namespace.save()
    namespace.snid = "KEEP"  # a change of case is the same SNID
    namespace.save()
    assert Namespace.objects.get().snid == "KEEP"


@pytest.mark.django_db
def test_approved_proposal_cannot_be_saved(make_proposal):
    proposal = make_proposal(state="approved")
    proposal.title = "changed"
    with pytest.raises(ImmutableError):
        proposal.save()
    fresh = Proposal.objects.get(pk=proposal.pk)
    fresh.title = "changed"
    with pytest.raises(ImmutableError):
        fresh.save()
    assert Proposal.objects.get(pk=proposal.pk).title != "changed"


@pytest.mark.django_db
def test_approved_proposal_cannot_be_updated_or_deleted_in_bulk(make_proposal):
    proposal = make_proposal(state="approved")
    with pytest.raises(ImmutableError):
        Proposal.objects.filter(pk=proposal.pk).update(title="changed")
    with pytest.raises(ImmutableError):
        Proposal.objects.filter(pk=proposal.pk).delete()
    with pytest.raises(ImmutableError):
        Proposal.objects.get(pk=proposal.pk).delete()
    assert Proposal.objects.get(pk=proposal.pk).state == ProposalState.APPROVED


@pytest.mark.django_db
def test_events_are_append_only(make_proposal):
    proposal = make_proposal(state="submitted")
    event = proposal.events.last()
    event.comment = "rewritten"
    with pytest.raises(ImmutableError):
        event.save()
    with pytest.raises(ImmutableError):
        event.delete()
    with pytest.raises(ImmutableError):
        ProposalEvent.objects.filter(pk=event.pk).update(comment="x")
    with pytest.raises(ImmutableError):
        ProposalEvent.objects.all().delete()


@pytest.mark.django_db
def test_editor_group_grants_review_permission(editor, applicant):
    assert editor.has_perm("registry.review_proposal") is True
    assert applicant.has_perm("registry.review_proposal") is False


@pytest.mark.django_db
def test_approved_proposal_loaded_with_deferred_state_is_still_immutable(make_proposal):
    proposal = make_proposal(state="approved")
    partial = Proposal.objects.only("title").get(pk=proposal.pk)
    partial.title = "changed"
    with pytest.raises(ImmutableError):
        partial.save()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE registry_proposal SET title = 'changed' WHERE state = 'approved'",
        "DELETE FROM registry_proposal WHERE state = 'approved'",
        "UPDATE registry_proposalevent SET comment = 'rewritten'",
        "DELETE FROM registry_proposalevent",
        "DELETE FROM registry_namespace",
        "UPDATE registry_namespace SET snid = 'other'",
    ],
)
def test_postgres_refuses_to_change_the_record_even_in_raw_sql(postgres, make_proposal, sql):
    from django.db import DatabaseError, connection

    make_proposal(state="approved")
    events = ProposalEvent.objects.count()  # created, submitted, four judgements, approved
    with (
        pytest.raises(DatabaseError, match="immutable|append-only|never"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert Proposal.objects.get().title != "changed" and ProposalEvent.objects.count() == events == 7


@pytest.mark.django_db
def test_postgres_still_allows_the_workflow(postgres, make_proposal):
    proposal = make_proposal(state="approved")  # submitted -> approved is an UPDATE of a non-approved row
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("UPDATE registry_namespace SET snid = 'EXAMPLE'")  # a change of case is allowed
    assert Proposal.objects.get(pk=proposal.pk).state == ProposalState.APPROVED
