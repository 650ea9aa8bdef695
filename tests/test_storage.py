"""registry/storage.py: storage faults are told apart from other errors and answered 503 with
Retry-After, in words, as a page or as JSON under /api/."""

import json

import pytest
from django.db import IntegrityError, OperationalError

from registry.storage import StorageFaultMiddleware, storage_fault


@pytest.mark.parametrize(("error", "words"), [
    (OperationalError("database or disk is full"), "storage is full"),
    (OperationalError('could not extend file "base/16384/2619": No space left on device'), "storage is full"),
    (OperationalError("database is locked"), "busy for too long"),
    (OperationalError("server closed the connection unexpectedly"), "could not reach its database"),
])
def test_storage_faults_are_said_in_words(error, words):
    assert words in storage_fault(error)


def test_other_database_errors_are_not_storage_faults():
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
