"""``manage.py start`` as a newcomer meets it: quiet set-up, credentials last, the app served as deployed."""

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from .ports import free_port

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.long  # each starts servers or a suite of its own: seconds apiece (tests/conftest.py)


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


@pytest.fixture
def started(tmp_path):
    """``manage.py start`` in its own process on a free port, with its own database and mail folder."""
    port = free_port()
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "REGISTRY_")) and key != "DATABASE_URL"
    }
    environment.update(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        DJANGO_STATIC_ROOT=str(tmp_path / "static"),
        REGISTRY_LOG_STATE_DIR=str(tmp_path / "log-state"),
        REGISTRY_MAIL_DIR=str(tmp_path / "mail"),
        WEB_CONCURRENCY="1",
        PYTHONUNBUFFERED="1",
    )
    output = tmp_path / "output.txt"
    with output.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "start", "--port", str(port)],
            cwd=ROOT,
            env=environment,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if _get(base + "/urn/")[0] == 200:
                break
        except OSError:
            time.sleep(0.3)
    else:
        process.kill()
        pytest.fail(f"start did not serve within the time:\n{output.read_text()}")
    yield base, output, tmp_path / "mail", process
    if process.poll() is None:
        process.kill()
        process.wait(10)


def test_start_prints_no_mail_and_the_credentials_last_and_serves_as_deployed(started):
    """What a newcomer reads, then what the browser gets: one ``start`` (migrations, static files, the demo
    data: most of a test's time) serves all three checks."""
    base, output, mail_dir, process = started
    _prints_no_mail_and_the_credentials_last(base, output, mail_dir)
    _serves_the_projects_error_pages_and_static_files(base)
    _serves_the_fonts_the_pages_preload_under_the_names_their_stylesheet_asks_for(base)


def _prints_no_mail_and_the_credentials_last(base, output, mail_dir):
    text = output.read_text()
    assert "Subject:" not in text and "[urn:ogf]" not in text
    written = int(re.search(r"(\d+) mails written to (\S+)/ ", text).group(1))
    assert written == len(list(mail_dir.iterdir())) > 0
    tail = "\n".join(text.splitlines()[-15:])
    assert "username: applicant" in tail and "password: applicant-demo-2026" in tail
    assert "username: editor" in tail and "password: editor-demo-2026" in tail
    assert f"Serving the registry at {base}/" in text and "Ctrl-C to stop" in text


def _serves_the_projects_error_pages_and_static_files(base):
    status, page = _get(base + "/proposals/999999/")
    assert status == 404
    assert "<title>Not found — urn:ogf registry</title>" in page
    assert "URLconf" not in page and "DEBUG = True" not in page
    stylesheet = re.search(r'href="(/static/registry/site\.[0-9a-f]+\.css)"', page).group(1)
    assert _get(base + stylesheet)[0] == 200
    assert _get(base + "/admin/login/")[0] in (200, 302)


def _serves_the_fonts_the_pages_preload_under_the_names_their_stylesheet_asks_for(base):
    """The manifest renames every file; a preload that named another file than fonts.css would be fetched twice."""
    page = _get(base + "/urn/")[1]
    fonts_css = re.search(r'href="(/static/registry/fonts\.[0-9a-f]+\.css)"', page).group(1)
    status, css = _get(base + fonts_css)
    assert status == 200
    faces = {"/static/registry/" + url for url in re.findall(r'url\("?(fonts/[^")]+\.woff2)"?\)', css)}
    preloaded = set(re.findall(r'<link rel="preload" href="([^"]+)" as="font"', page))
    assert len(preloaded) == 2 and preloaded <= faces and len(faces) == 12
    for url in preloaded:
        assert re.search(r"\.[0-9a-f]{12}\.woff2$", url)
        with urllib.request.urlopen(base + url, timeout=10) as response:
            assert response.headers["Content-Type"] == "font/woff2" and response.read(4) == b"wOF2"


def _signers_of(pid: int) -> list[int]:
    listed = subprocess.run(["ps", "-o", "pid=,args=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(line.split()[0]) for line in listed.splitlines() if "log_sign" in line]


def test_start_serves_the_checkpoint_of_its_own_signer_and_stops_both_on_ctrl_c(started):
    """As deployed: the web workers serve what a separate signer (log_sign --watch) signed; Ctrl-C stops
    the server (exit status 0) and its signer with it."""
    base, output, mail_dir, process = started
    status, note = _get(base + "/log/checkpoint")
    assert status == 200 and int(note.split("\n")[1]) > 0, note
    key = _get(base + "/log/key")[1].strip()
    from registry.logcore.note import Verifier, checkpoint_open

    assert checkpoint_open(note, Verifier.parse(key)).origin == key.split("+")[0]
    signers = _signers_of(process.pid)
    assert len(signers) == 1
    process.send_signal(signal.SIGINT)
    assert process.wait(30) == 0
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and os.path.exists(f"/proc/{signers[0]}"):
        time.sleep(0.2)
    assert not os.path.exists(f"/proc/{signers[0]}"), "the signer outlived the server"
