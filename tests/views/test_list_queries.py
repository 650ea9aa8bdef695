"""List pages and exports run the same number of queries whatever the registry's size."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from benchmarks.data import populate
from registry.lookup import registry_invalidate

LISTS = ["/urn/", "/urn/?page=2&sort=-date", "/urn/?q=bench1", "/api/snids/", "/api/snids/?page=2",
         "/urn/registry.json", "/urn/registry.csv", "/urn/registry.xml", "/urn/feed.atom"]


def fresh_get(client, path):
    cache.clear()
    registry_invalidate()
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
