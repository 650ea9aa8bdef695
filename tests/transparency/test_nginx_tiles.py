"""docs/nginx.conf in front of the application: tiles pass through, entry bundles are gzipped for clients
that ask (C2SP tlog-tiles: they SHOULD be compressed), hash tiles are not, and the bytes are the log's."""

import gzip
import http.client
import shutil
from urllib.parse import urlsplit

import pytest

from registry.logcore.merkle import leaf_hash
from registry.logcore.tiles import bundle_entries

from ..conftest import require_external
from ..factories import proposal_factory, user_factory
from ..ports import free_port


def _get(port: int, path: str, **headers) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    response.body = response.read()
    return response


@pytest.fixture
def nginx(transactional_db, live_server):
    from benchmarks.servers import start_nginx, stop_nginx

    require_external("nginx", shutil.which("nginx") is not None, "apt-get install nginx-light to include this test")
    applicant, editor = user_factory("alice"), user_factory("erin", editor=True)
    for name in ("alpha", "beta", "gamma"):
        proposal_factory(applicant, state="approved", editor=editor, snid=name)
    port = free_port()
    server, workdir = start_nginx(port, [urlsplit(live_server.url).port], "/log/checkpoint")
    yield port
    stop_nginx(server, workdir)


def test_nginx_gzips_entry_bundles_for_clients_that_accept_it(nginx):
    plain = _get(nginx, "/log/tile/entries/000.p/3")
    assert plain.status == 200 and plain.getheader("Content-Encoding") is None
    assert len(bundle_entries(plain.body)) == 3
    packed = _get(nginx, "/log/tile/entries/000.p/3", **{"Accept-Encoding": "gzip"})
    assert packed.status == 200 and packed.getheader("Content-Encoding") == "gzip"
    assert "Accept-Encoding" in packed.getheader("Vary", "")
    assert gzip.decompress(packed.body) == plain.body and len(packed.body) < len(plain.body)
    assert packed.getheader("Cache-Control") == "public, max-age=60"
    refused = _get(nginx, "/log/tile/entries/000.p/3", **{"Accept-Encoding": "gzip;q=0"})
    assert refused.getheader("Content-Encoding") is None and refused.body == plain.body


def test_nginx_serves_hash_tiles_as_they_are(nginx):
    bundle = bundle_entries(_get(nginx, "/log/tile/entries/000.p/3").body)
    tile = _get(nginx, "/log/tile/0/000.p/3", **{"Accept-Encoding": "gzip"})
    assert tile.status == 200 and tile.getheader("Content-Encoding") is None
    assert tile.body == b"".join(leaf_hash(leaf) for leaf in bundle)
    assert _get(nginx, "/log/tile/00/000.p/3").status == 404  # one name per tile, through nginx too
