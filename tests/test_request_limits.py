"""The request limits the API documents are the real ones, at every layer the project configures."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.exceptions import RequestDataTooBig
from django.test import RequestFactory

from registry import serve
from registry.api.errors import bad_request

from .ports import free_port

ROOT = Path(__file__).resolve().parent.parent


def _get(port: int, path: str) -> tuple[int, str, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    conn.request("GET", path)
    response = conn.getresponse()
    return response.status, response.getheader("Content-Type", ""), response.read().decode()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The deployed server (registry/serve.py: granian) in production mode on a scratch SQLite database."""
    database = tmp_path_factory.mktemp("server") / "db.sqlite3"
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "benchmarks.settings",
        "DATABASE_URL": f"sqlite:///{database}",
        "BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "1",
    }
    env.pop("REDIS_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True)
    process = subprocess.Popen(
        serve.command(), cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if _get(port, "/bench/floor/")[0] == 200:
                break
        except OSError:
            time.sleep(0.3)
    else:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail("the server did not start")
    yield port
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)


def test_server_request_line_takes_a_4096_character_urn():
    request_line = len("GET /api/lookup/?urn=") + 4096 + len(" HTTP/1.1")
    assert serve.config({})["limit_request_line"] >= request_line


@pytest.mark.long
def test_a_4096_character_lookup_is_answered_through_the_server(server):
    urn = "urn:ogf:example:" + "a" * (4096 - len("urn:ogf:example:"))
    status, content_type, body = _get(server, f"/api/lookup/?urn={urn}")
    assert status == 200 and content_type.startswith("application/json")
    assert json.loads(body)["urn"] == urn


def test_a_request_line_past_the_servers_limit_is_a_json_414(server):
    status, content_type, body = _get(server, "/api/lookup/?urn=urn:ogf:example:" + "a" * 9000)
    assert status == 414 and content_type == "application/json"
    assert "POST /api/validate/" in json.loads(body)["detail"]


def test_a_request_line_nginx_passes_is_still_the_applications_json_414(server):
    """Up to 16 KB pass docs/nginx.conf; the server's buffer takes them, so the refusal is the JSON one."""
    status, content_type, body = _get(server, "/urn:ogf:example:" + "a" * 16_000)
    assert status == 414 and content_type == "application/json"
    assert "POST /api/validate/" in json.loads(body)["detail"]


def test_django_refusing_a_body_is_json_for_the_api():
    request = RequestFactory().post("/api/validate/")
    response = bad_request(request, RequestDataTooBig("too big"))
    assert response.status_code == 413 and "larger than this endpoint accepts" in json.loads(response.content)["detail"]


def test_django_refusing_a_page_request_is_still_a_page(rf):
    response = bad_request(rf.get("/urn/"), None)
    assert response.status_code == 400 and not response["Content-Type"].startswith("application/json")


@pytest.fixture
def nginx_without_upstream():
    """docs/nginx.conf as committed, in front of a port where nothing listens."""
    import shutil

    from benchmarks.servers import start_nginx, stop_nginx
    from tests.conftest import require_external

    require_external("nginx", shutil.which("nginx") is not None, "apt-get install nginx-light to include this test")
    port = free_port()
    server, workdir = start_nginx(port, [free_port()], "/static/")
    yield port
    stop_nginx(server, workdir)


def test_nginx_answers_json_for_the_api_when_the_application_is_down(nginx_without_upstream):
    status, content_type, body = _get(nginx_without_upstream, "/api/lookup/?urn=urn:ogf:x:y")
    assert status == 503 and content_type == "application/json"
    assert "try again" in json.loads(body)["detail"]
    status, content_type, body = _get(nginx_without_upstream, "/api/snids/x/")
    assert status == 503 and content_type == "application/json"


def test_nginx_answers_json_for_a_request_line_past_its_buffer(nginx_without_upstream):
    status, content_type, body = _get(nginx_without_upstream, "/api/lookup/?urn=urn:ogf:x:" + "a" * 20_000)
    assert status == 414 and content_type == "application/json"
    assert "POST /api/validate/" in json.loads(body)["detail"]
