"""Two editors at once, on PostgreSQL with two connections: crossed deprecations queue instead of
deadlocking, and a deadlock the database still reports is tried again, then answered as a conflict."""

from __future__ import annotations

import threading

import pytest
from django.db import connections, transaction

from registry import services
from registry.models import Namespace
from registry.stewardship import services as stewardship
from registry.stewardship import writes as stewardship_writes
from registry.stewardship.models import Deprecation

from .factories import proposal_factory, user_factory

ROUNDS = 6


def _at_once(*calls):
    """Run ``calls`` in threads (each on its own database connection) released together; what each
    returned or raised, in order."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            results[index] = call()
        except Exception as exc:  # noqa: BLE001 - the test reads what each raised
            results[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


@pytest.fixture
def two_snids(transactional_db):
    steward = user_factory("steward")
    first, second = user_factory("first-editor", editor=True), user_factory("second-editor", editor=True)
    a = proposal_factory(steward, state="approved", editor=first).namespace
    b = proposal_factory(steward, state="approved", editor=first, snid="bravo").namespace
    return {"a": a, "b": b, "first": first, "second": second}


def test_crossed_deprecations_on_postgres_never_deadlock(postgres, two_snids):
    """A in favour of B and B in favour of A, by two editors at the same moment, six rounds: each round
    one deprecation stands and the other is refused as a conflict naming the reason (a cycle)."""
    a, b, first, second = (two_snids[k] for k in ("a", "b", "first", "second"))
    for _ in range(ROUNDS):
        results = _at_once(
            lambda: stewardship.snid_deprecate(
                Namespace.objects.get(pk=a.pk), first, reason="Use bravo.", successor="bravo"
            ),
            lambda: stewardship.snid_deprecate(
                Namespace.objects.get(pk=b.pk), second, reason="Use example.", successor="example"
            ),
        )
        done = [r for r in results if isinstance(r, Deprecation)]
        refused = [r for r in results if not isinstance(r, Deprecation)]
        assert len(done) == 1 and len(refused) == 1, results
        # The second to lock finds the first standing: its successor now points back to it, a cycle.
        assert isinstance(refused[0], services.Conflict) and "would close a cycle" in refused[0].message
        assert Deprecation.objects.in_force().count() == 1
        stewardship.snid_undeprecate(done[0].namespace, first, reason="Next round.")


def test_a_deadlock_the_database_reports_is_tried_again(postgres, two_snids):
    """Two services that lock the same two rows in opposite orders deadlock for real; the one PostgreSQL
    breaks off runs again and succeeds."""
    a, b = two_snids["a"], two_snids["b"]
    attempts = []
    meet = threading.Barrier(2)

    def locking(first, second):
        @stewardship_writes._retried
        @transaction.atomic
        def service():
            attempts.append(first.snid)
            Namespace.objects.select_for_update().get(pk=first.pk)
            if len(attempts) <= 2:
                meet.wait(10)  # the first tries: both hold their first row before either asks for its second
            Namespace.objects.select_for_update().get(pk=second.pk)
            return first.snid

        return service

    results = _at_once(locking(a, b), locking(b, a))
    assert sorted(results) == ["bravo", "example"], results
    # The one broken off ran again (its new try may meet the other once more: then that one runs again).
    assert len(attempts) >= 3, attempts


def test_a_deadlock_left_after_the_last_try_is_a_conflict_not_a_500(postgres, two_snids, monkeypatch):
    """With one try left, the service PostgreSQL breaks off answers Conflict (a 409 on the pages)."""
    monkeypatch.setattr(stewardship_writes, "DEADLOCK_ATTEMPTS", 1)
    a, b = two_snids["a"], two_snids["b"]
    meet = threading.Barrier(2)

    def locking(first, second):
        @stewardship_writes._retried
        @transaction.atomic
        def service():
            Namespace.objects.select_for_update().get(pk=first.pk)
            meet.wait(10)
            Namespace.objects.select_for_update().get(pk=second.pk)
            return first.snid

        return service

    results = _at_once(locking(a, b), locking(b, a))
    conflicts = [r for r in results if isinstance(r, services.Conflict)]
    assert len(conflicts) == 1 and "at the same moment" in conflicts[0].message, results
    assert [r for r in results if isinstance(r, str)] in (["example"], ["bravo"])
