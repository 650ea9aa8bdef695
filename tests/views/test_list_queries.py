"""List pages and exports run the same number of queries whatever the registry's size."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from benchmarks.data import populate
from registry.lookup import registry_invalidate
from registry.transparency.log import log_published_forget

LISTS = [
    "/urn/",
    "/urn/?page=2&sort=-date",
    "/urn/?q=bench1",
    "/api/snids/",
    "/api/snids/?page=2",
    "/urn/registry.json",
    "/urn/registry.csv",
    "/urn/registry.xml",
    "/urn/feed.atom",
]


def fresh_get(client, path):
    cache.clear()
    registry_invalidate()
    log_published_forget()  # the published checkpoint is read again, as on a worker's first request
    response = client.get(path)
    assert response.status_code == 200
    return response


@pytest.mark.django_db
@pytest.mark.parametrize("path", LISTS)
def test_list_pages_run_a_constant_number_of_queries(client, path, django_assert_num_queries):
    populate(110)
    with CaptureQueriesContext(connection) as few:
        fresh_get(client, path)
    populate(140, pending=20)
    with django_assert_num_queries(len(few)):
        fresh_get(client, path)


#: Columns no list, feed or export shows: loading them for every row is what made them slow.
HEAVY_COLUMNS = ("sections", "findings", "findings_summary", "examples_equivalent")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/urn/",
        "/urn/?page=2&sort=-date",
        "/api/snids/",
        "/api/snids/?page=2",
        "/urn/feed.atom",
        "/urn/registry.json",
        "/urn/registry.csv",
        "/urn/registry.xml",
    ],
)
def test_list_pages_read_only_the_columns_they_show(client, path):
    populate(110)
    with CaptureQueriesContext(connection) as captured:
        fresh_get(client, path)
    sql = " ".join(query["sql"] for query in captured.captured_queries)
    assert [column for column in HEAVY_COLUMNS if f'"{column}"' in sql] == []


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/urn/registry.json", "/urn/registry.csv", "/urn/registry.xml"])
def test_an_export_reads_the_registrys_last_change_once(client, path, django_assert_num_queries):
    """Stamp and index (2), last change (2), SNID count for the ETag (1), the records (1), every
    SNID's resolvers (1), the published checkpoint (1, once per worker: the log's damage header)."""
    populate(30)
    cache.clear()
    registry_invalidate()
    log_published_forget()
    with django_assert_num_queries(8):
        assert client.get(path).status_code == 200
