"""Our log checked by the reference implementation: Go's golang.org/x/mod/sumdb/note and sumdb/tlog.

The Go program (go/tlogcheck.go, GOPATH mode with Debian's golang-golang-x-mod-dev) verifies the
signed checkpoint with the published verifier key, recomputes the tree hash from the leaves,
checks our inclusion and consistency proofs and compares them with the ones it makes itself,
and reads our C2SP hash tiles over HTTP through tlog.TileHashReader, which authenticates every
tile against the signed root before proving each entry from them.
"""

import base64
import datetime as dt
import io
import json
import subprocess
import urllib.request
from pathlib import Path

import pytest
from django.db import transaction
from django.utils import timezone

from registry import services
from registry.logcore.tiles import bundle_entries, tiles_for
from registry.transparency.log import log_tree

from ..factories import proposal_factory, user_factory
from .conftest import go_program

PROGRAM = Path(__file__).parent / "go" / "tlogcheck.go"


@pytest.fixture(scope="session")
def tlogcheck(tmp_path_factory):
    return go_program(tmp_path_factory, PROGRAM)


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


def _check(binary, request: dict) -> dict:
    result = subprocess.run([str(binary)], input=json.dumps(request), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def grown_site(transactional_db, live_server):
    """A log of 306 entries (three versions, each with its first steward, and 300 reservations): one full
    tile at level 0 and partial ones at levels 0 and 1."""
    applicant, editor = user_factory("alice"), user_factory("erin", editor=True)
    for name in ("alpha", "beta"):
        proposal_factory(applicant, state="approved", editor=editor, snid=name)
    until = timezone.localdate() + dt.timedelta(days=5)
    with transaction.atomic():  # one commit, not 300
        for i in range(300):
            services.namespace_reserve(f"held{i}", editor, until=until, reason="r", reserved_for=applicant)
    proposal_factory(applicant, state="approved", editor=editor, snid="gamma")
    return live_server


def _request(site) -> dict:
    base = site.url + "/log/"
    note = _get(base + "checkpoint").decode()
    size = int(note.split("\n")[1])
    leaves = []
    for ref in tiles_for(size, None):
        leaves += bundle_entries(_get(base + ref.path()))
    tree, _ = log_tree()
    b64 = lambda raw: base64.b64encode(raw).decode()  # noqa: E731
    inclusions = []
    for snid in ("alpha", "beta", "gamma"):
        answer = json.loads(_get(f"{site.url}/api/snids/{snid}/versions/1/proof"))
        inclusions.append(
            {
                "index": answer["index"],
                "size": answer["tree_size"],
                "root": answer["root_hash"],
                "proof": answer["proof"],
            }
        )
    for index, at in ((0, 1), (1, 2), (5, 257), (255, 256), (256, 300), (260, size), (size - 1, size)):
        inclusions.append(
            {
                "index": index,
                "size": at,
                "root": b64(tree.root(at)),
                "proof": [b64(h) for h in tree.inclusion_proof(index, at)],
            }
        )
    consistency = []
    for first, second in ((1, 2), (2, 3), (3, 7), (8, 256), (100, 257), (256, size), (257, size), (size, size)):
        answer = json.loads(_get(f"{site.url}/api/log/consistency/?first={first}&second={second}"))
        consistency.append(
            {
                "first": first,
                "second": second,
                "first_root": answer["first_root"],
                "second_root": answer["second_root"],
                "proof": answer["proof"],
            }
        )
    return {
        "verifier_key": _get(base + "key").decode().strip(),
        "checkpoint": note,
        "log_url": base,
        "leaves": [b64(leaf) for leaf in leaves],
        "inclusions": inclusions,
        "consistency": consistency,
    }


def test_go_verifies_checkpoint_proofs_and_tiles(tlogcheck, grown_site):
    request = _request(grown_site)
    report = _check(tlogcheck, request)
    assert report["signature_error"] == ""
    assert report["size"] == 306 and report["size"] == len(request["leaves"])
    assert report["leaves_tree_hash"] == report["root"]
    assert report["inclusion_errors"] == [""] * len(request["inclusions"])
    assert all(report["proofs_as_go"])
    assert report["consistency_errors"] == [""] * len(request["consistency"])
    assert all(report["consistency_as_go"])
    assert report["tiles_error"] == "" and report["tiles_tree_hash"] == report["root"]
    assert "tile/0/000" in report["tiles_fetched"] and "tile/0/001.p/50" in report["tiles_fetched"]
    assert "tile/1/000.p/1" in report["tiles_fetched"]


def test_go_refuses_a_changed_checkpoint_and_bent_proofs(tlogcheck, grown_site):
    request = _request(grown_site)
    text, _, signature = request["checkpoint"].partition("\n\n")
    origin, size, root = text.split("\n")[:3]
    forged = dict(request, checkpoint=f"{origin}\n{int(size) + 1}\n{root}\n\n{signature}")
    assert "invalid signature" in _check(tlogcheck, forged)["signature_error"]
    bent = json.loads(json.dumps(request))
    bent["inclusions"][0]["proof"][0] = base64.b64encode(bytes(32)).decode()
    bent["consistency"][2]["proof"][-1] = base64.b64encode(bytes(32)).decode()
    report = _check(tlogcheck, bent)
    assert report["inclusion_errors"][0] != "" and report["consistency_errors"][2] != ""
    assert report["inclusion_errors"][1:] == [""] * (len(request["inclusions"]) - 1)


# --- a static mirror, followed by Go's tlog over a plain static web server ---------------------------

MIRROR_PROGRAM = Path(__file__).parent / "go" / "mirrorcheck.go"


@pytest.fixture(scope="session")
def mirrorcheck(tmp_path_factory):
    return go_program(tmp_path_factory, MIRROR_PROGRAM)


@pytest.fixture
def static_server():
    """Python's http.server on the loopback, serving a directory as plain files."""
    import functools
    import http.server
    import threading

    servers = []

    def serve(directory: Path) -> str:
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(directory))
        handler.log_message = lambda *args: None
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield serve
    for server in servers:
        server.shutdown()


def _follow(binary, base: str, mirror: Path) -> dict:
    files = sorted(str(p.relative_to(mirror / "log")) for p in (mirror / "log" / "tile").rglob("*") if p.is_file())
    return _check(binary, {"base": base, "files": files})


def test_go_follows_a_verified_mirror_served_as_static_files(mirrorcheck, grown_site, static_server, tmp_path):
    from registry import verify

    mirror = tmp_path / "mirror"
    out = io.StringIO()
    assert verify.main([grown_site.url, "--state", str(tmp_path / "s.json"), "--mirror", str(mirror)], out=out) == 0, (
        out.getvalue()
    )
    for path in (
        "log/checkpoint",
        "log/key",
        "log/tile/0/000",
        "log/tile/0/001.p/50",
        "log/tile/1/000.p/1",
        "log/tile/entries/000",
        "log/tile/entries/001.p/50",
        "urn/registry.json",
        "urn/registry-full.json",
    ):
        assert (mirror / path).is_file(), path
    base = static_server(mirror)
    report = _follow(mirrorcheck, base, mirror)
    assert report["error"] == "", report
    assert report["size"] == 306 and report["entries_proved"] == 306
    assert report["tiles_tree_hash"] == report["root"]
    assert report["non_canonical"] is None  # every tile file has the one name Go gives it
    assert {"tile/0/000", "tile/0/001.p/50", "tile/1/000.p/1"} <= set(report["tiles_fetched"])
    # The static copy is itself a site the verifier checks over HTTP.
    out = io.StringIO()
    assert verify.main([base, "--state", str(tmp_path / "t.json")], out=out) == 0, out.getvalue()
    # A changed entry in the copy is caught by Go against the signed root.
    bundle = mirror / "log/tile/entries/000"
    bundle.write_bytes(bundle.read_bytes().replace(b'"renewal":false', b'"renewal":true ', 1))
    assert "entry " in _follow(mirrorcheck, base, mirror)["error"]
