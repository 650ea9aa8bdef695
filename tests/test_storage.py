"""registry/storage.py: storage faults are told apart from other errors and answered 503 with
Retry-After, in words, as a page or as JSON under /api/."""

import json
from contextlib import contextmanager

import pytest
from django.db import IntegrityError, OperationalError

from registry.storage import StorageFaultMiddleware, storage_fault

from .conftest import database_lost
from .factories import proposal_factory, user_factory


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (OperationalError("database or disk is full"), "storage is full"),
        (OperationalError('could not extend file "base/16384/2619": No space left on device'), "storage is full"),
        (OperationalError("database is locked"), "busy for too long"),
        (OperationalError("server closed the connection unexpectedly"), "could not reach its database"),
    ],
)
def test_storage_faults_are_said_in_words(error, words):
    assert words in storage_fault(error)


def test_a_lost_database_says_nothing_was_saved_only_to_a_request_that_saves():
    lost = OperationalError('connection to server at "db" failed: Connection refused')
    assert storage_fault(lost) == (
        "The registry could not reach its database, so nothing was saved. Please try again in a moment."
    )
    assert storage_fault(lost, reading=True) == (
        "The registry could not reach its database. Please try again in a moment."
    )


def _from_driver(driver_error: Exception) -> OperationalError:
    """As Django raises it: its OperationalError, caused by the driver's."""
    try:
        try:
            raise driver_error
        except Exception as exc:
            raise OperationalError(str(exc)) from exc
    except OperationalError as wrapped:
        return wrapped


@pytest.mark.parametrize(
    "message",
    [
        # What psycopg says while PostgreSQL stops ("fast" mode) or starts again: seen as a 500 in
        # tests/faults/test_postgres_lost.py when only the words of a refused connection were known.
        'connection failed: connection to server at "127.0.0.1", port 5432 failed: FATAL:  the database system '
        "is shutting down",
        'connection failed: connection to server at "db", port 5432 failed: FATAL:  the database system is starting up',
        'connection failed: connection to server at "db", port 5432 failed: FATAL:  the database system is in '
        "recovery mode",
        'connection failed: connection to server at "db" (10.0.0.5), port 5432 failed: timeout expired',
        "consuming input failed: no connection to the server",
    ],
)
def test_a_database_refusing_or_dropping_connections_is_a_lost_database(message):
    import psycopg

    assert "could not reach its database" in storage_fault(_from_driver(psycopg.OperationalError(message)))


@pytest.mark.parametrize("sqlstate", ["57P01", "57P02", "57P03", "08006", "08003"])
def test_a_lost_server_is_known_by_its_sqlstate_whatever_its_words(sqlstate):
    import psycopg.errors

    error = _from_driver(psycopg.errors.lookup(sqlstate)("words this registry has never seen"))
    assert "could not reach its database" in storage_fault(error, reading=True)


def test_other_database_errors_are_not_storage_faults():
    import psycopg.errors

    # A cancelled statement (57014) is of class 57 but not a lost server.
    assert storage_fault(_from_driver(psycopg.errors.lookup("57014")("canceling statement"))) is None
    assert storage_fault(IntegrityError("approved proposals are immutable")) is None
    assert storage_fault(OperationalError("no such table: registry_thing")) is None
    assert storage_fault(ValueError("database is locked")) is None


@pytest.mark.django_db
def test_a_storage_fault_in_a_view_is_a_503_page_or_json(rf):
    middleware = StorageFaultMiddleware(lambda request: None)
    page = middleware.process_exception(rf.post("/proposals/new/"), OperationalError("database or disk is full"))
    assert (page.status_code, page["Retry-After"]) == (503, "30")
    assert b"storage is full" in page.content and b"<html" in page.content
    api = middleware.process_exception(rf.post("/api/proposals/"), OperationalError("database is locked"))
    assert api.status_code == 503 and "busy for too long" in json.loads(api.content)["detail"]
    assert middleware.process_exception(rf.get("/urn/"), IntegrityError("x")) is None


# --- the database lost before a view runs (the session, the account) ------------------------------


@pytest.fixture
def signed_in():
    """A client signed in as a draft's applicant, keeping the 500 page for the test to see."""
    from django.test import Client

    proposal = proposal_factory()
    client = Client(raise_request_exception=False)
    client.force_login(proposal.submitter)
    return client, proposal


@pytest.mark.django_db
def test_a_page_whose_session_cannot_be_read_is_a_503_drawn_without_the_session(signed_in):
    client, proposal = signed_in
    with database_lost():
        response = client.get(f"/proposals/{proposal.pk}/")
    page = response.content.decode()
    assert (response.status_code, response["Retry-After"]) == (503, "30")
    assert "<title>Not available just now — urn:ogf registry</title>" in page
    assert "The registry could not reach its database. Please try again in a moment." in page
    assert f'<a href="/proposals/{proposal.pk}/">Try again</a>' in page
    assert proposal.submitter.username not in page and "Log in</a> if you have an account" not in page
    assert ">Log in</a>" not in page and ">Sign up</a>" not in page  # who is signed in is not known


@pytest.mark.django_db
def test_a_save_refused_in_a_middleware_is_a_503_that_says_how_to_keep_the_text(signed_in):
    client, proposal = signed_in
    with database_lost():  # the fair-share limit reads the account before the view runs
        response = client.post(f"/proposals/{proposal.pk}/edit/", {"title": "Typed", "intent": "save"})
    page = response.content.decode()
    assert (response.status_code, response["Retry-After"]) == (503, "30")
    assert "<title>Not saved — urn:ogf registry</title>" in page
    assert "could not reach its database, so nothing was saved" in page
    assert "Go back to your form (your browser keeps what you typed) and send it again then." in page


@pytest.mark.django_db
def test_an_api_request_whose_session_cannot_be_read_is_a_json_503(signed_in):
    client, _ = signed_in
    with database_lost():
        response = client.get("/api/proposals/")
    assert (response.status_code, response["Retry-After"]) == (503, "30")
    assert json.loads(response.content) == {
        "detail": "The registry could not reach its database. Please try again in a moment."
    }


def test_other_errors_outside_a_view_keep_the_sites_500(rf):
    from registry.views.errors import server_error

    for error in (ValueError("a bug"), IntegrityError("approved proposals are immutable")):
        try:
            raise error
        except Exception:  # noqa: BLE001 - Django calls handler500 while handling the exception
            response = server_error(rf.get("/proposals/"))
        assert response.status_code == 500


# --- a save that storage refused keeps what was typed ----------------------------------------------


@contextmanager
def full_disk_on(statement: str):
    """The database refuses statements starting with ``statement`` (e.g. ``INSERT INTO
    "registry_proposal"``) as SQLite does on a full disk (Django's execute_wrapper: every other
    statement runs as usual)."""
    from django.db import connection

    def refuse(execute, sql, params, many, context):
        if sql.lstrip().upper().startswith(statement.upper()):
            raise OperationalError("database or disk is full")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(refuse):
        yield


@pytest.mark.django_db
def test_a_new_proposal_refused_by_storage_shows_its_form_again(client):
    from registry.models import Proposal

    user = user_factory()
    client.force_login(user)
    with full_disk_on('INSERT INTO "registry_proposal"'):
        response = client.post("/proposals/new/", {"start": "blank", "snid": "typed-on-full-disk"})
    page = response.content.decode()
    assert (response.status_code, response["Retry-After"]) == (503, "30")
    assert "storage is full, so nothing could be saved" in page and 'value="typed-on-full-disk"' in page
    assert not Proposal.objects.filter(submitter=user).exists()


@pytest.mark.django_db
def test_an_import_create_refused_by_storage_shows_the_review_again(client):
    import io

    from registry.models import Proposal

    user = user_factory()
    client.force_login(user)
    upload = io.BytesIO(b"1. Namespace Identifier\n\nThe SNID is typed-import.\n\nurn:ogf:typed-import:a\n")
    upload.name = "registration.txt"
    form = client.post("/proposals/import/", {"file": upload}).context["form"]
    fields = {name: ("" if form[name].value() is None else form[name].value()) for name in form.fields}
    fields.update(title="Corrected on a full disk", confirmed="on")
    with full_disk_on('INSERT INTO "registry_proposal"'):
        response = client.post("/proposals/import/create/", fields)
    page = response.content.decode()
    assert (response.status_code, response["Retry-After"]) == (503, "30")
    assert "storage is full" in page and 'value="Corrected on a full disk"' in page and "Create draft" in page
    assert not Proposal.objects.filter(submitter=user).exists()


@pytest.mark.django_db
def test_an_edit_refused_by_storage_shows_the_form_again_with_the_typed_text(client):
    from registry.forms import ProposalForm
    from registry.models import Proposal

    proposal = proposal_factory()
    client.force_login(proposal.submitter)
    form = {k: v for k, v in ProposalForm.initial_from(proposal.to_data()).items() if v is not None}
    form.update(section_scope="Typed on a full disk.", intent="save")
    with full_disk_on('UPDATE "registry_proposal"'):
        response = client.post(f"/proposals/{proposal.pk}/edit/", form)
    assert (response.status_code, response["Retry-After"]) == (503, "30")
    assert "Typed on a full disk." in response.content.decode()
    assert Proposal.objects.get(pk=proposal.pk).sections.get("scope") != "Typed on a full disk."


@pytest.mark.django_db
def test_a_session_that_cannot_be_saved_for_a_lost_database_is_a_storage_fault_not_a_400():
    from django.conf import settings
    from django.contrib.sessions.backends.base import UpdateError
    from django.contrib.sessions.models import Session
    from django.utils.module_loading import import_string

    store = import_string(f"{settings.SESSION_ENGINE}.SessionStore")
    session = store()
    session["step"] = 1
    session.create()
    session["step"] = 2
    with database_lost(), pytest.raises(OperationalError) as lost:  # Django's own store: UpdateError, a 400
        session.save()
    assert "could not reach its database" in storage_fault(lost.value, reading=True)

    # A session deleted meanwhile (a log-out in another tab) is still Django's "session interrupted".
    Session.objects.filter(session_key=session.session_key).delete()
    with pytest.raises(UpdateError):
        session.save()
