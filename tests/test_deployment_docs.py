"""docs/deployment.md, followed to the letter on a fresh machine.

The block marked ``<!-- deployment-steps -->`` runs, as one shell script, in a copy of the
checkout (its tracked files only: no development key, secret or database) with every path under
a temporary directory; then the two systemd units of the page run as their ``ExecStart`` with
their ``EnvironmentFile``. Two lines are replaced, and only these: the venv is the one running
the tests (this machine cannot download packages), and ``pip install`` checks it holds the
requirements without installing anything. The test stands in for the TLS proxy: it serves plain
HTTP on the loopback (``DJANGO_SECURE_SSL_REDIRECT=0``).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from registry.logcore.note import Verifier, checkpoint_open

from .ports import free_port

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "deployment.md"
VENV_BIN = Path(sys.executable).parent
REPLACED = {
    "python3.11 -m venv venv && . venv/bin/activate": f". {VENV_BIN}/activate",
    "pip install -r requirements.txt": "pip install --no-index --dry-run -q -r requirements.txt",
}


def _steps() -> str:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"<!-- deployment-steps -->\n```sh\n(.*?)```", text, re.S)
    assert block, "docs/deployment.md has no block marked <!-- deployment-steps -->"
    script = block.group(1)
    for line, replacement in REPLACED.items():
        assert line in script, f"the documented step {line!r} is gone: update this test"
        script = script.replace(line, replacement)
    return script


def _units() -> dict[str, dict[str, str]]:
    units = {}
    for block in re.findall(r"```ini\n(# (/etc/systemd/system/\S+)\n.*?)```", DOC.read_text(encoding="utf-8"), re.S):
        body, path = block
        units[Path(path).name] = dict(re.findall(r"^(\w+)=(.*)$", body, re.M))
    assert set(units) == {"urn-registry-signer.service", "urn-registry-web.service"}, units
    return units


def _clean_environment() -> dict[str, str]:
    return {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "REGISTRY_", "WEB_", "VIRTUAL_ENV")) and key != "DATABASE_URL"
    }


def _environment_file(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if line and not line.startswith("#"))


def _fresh_checkout(target: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in files.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    for name in ("registry/transparency/signer.py",):  # the copy is of the working tree, as it stands
        assert (target / name).is_file()


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=15) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _service(unit: dict, prefix: Path, checkout: Path, extra: dict, log: Path) -> subprocess.Popen:
    """Run a unit as systemd would: its ExecStart, in its WorkingDirectory, with its EnvironmentFile."""
    command = unit["ExecStart"].replace("/srv/registry/venv/bin/", f"{VENV_BIN}/").split()
    assert unit["WorkingDirectory"] == "/srv/registry"
    environment = {**_clean_environment(), **_environment_file(prefix / unit["EnvironmentFile"].lstrip("/")), **extra}
    with log.open("w") as sink:
        return subprocess.Popen(command, cwd=checkout, env=environment, stdout=sink, stderr=subprocess.STDOUT)


@pytest.mark.long
def test_deployment_steps_run_in_order_on_a_fresh_machine(tmp_path):
    checkout, prefix = tmp_path / "srv" / "registry", tmp_path / "root"
    checkout.mkdir(parents=True)
    _fresh_checkout(checkout)
    database = f"sqlite:///{tmp_path / 'registry.sqlite3'}"
    environment = {
        **_clean_environment(),
        "PREFIX": str(prefix),
        "SITE_HOST": "127.0.0.1",
        "OWNER_DATABASE_URL": database,
        "APP_DATABASE_URL": database,
    }
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", _steps()],
        cwd=checkout,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Verifier key (publish it): 127.0.0.1/log+" in done.stdout
    assert "Signed the checkpoint of size 0." in done.stdout
    assert (checkout / "staticfiles" / "staticfiles.json").is_file()
    conf = prefix / "etc" / "urn-registry"
    assert {p.name for p in conf.iterdir()} == {"log.key", "log.key.pub", "web.env", "signer.env"}
    web_env = _environment_file(conf / "web.env")
    assert not any(name.startswith("REGISTRY_LOG_KEY") for name in web_env)  # the web never holds the key
    assert (conf / "log.key").stat().st_mode & 0o777 == 0o600

    units, port = _units(), free_port()
    processes = [
        _service(units["urn-registry-signer.service"], prefix, checkout, {}, tmp_path / "signer.log"),
        _service(
            units["urn-registry-web.service"],
            prefix,
            checkout,
            {
                "BIND": f"127.0.0.1:{port}",
                "DJANGO_SECURE_SSL_REDIRECT": "0",
                "WEB_CONCURRENCY": "1",
                "WEB_WARM_PAGES": "0",
            },
            tmp_path / "web.log",
        ),
    ]
    try:
        base, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 180
        while time.monotonic() < deadline:
            assert all(p.poll() is None for p in processes), (tmp_path / "web.log").read_text()
            try:
                if _get(base + "/urn/")[0] == 200:
                    break
            except OSError:
                time.sleep(0.3)
        verifier = Verifier.parse((conf / "log.key.pub").read_text())
        status, note = _get(base + "/log/checkpoint")
        assert status == 200 and checkpoint_open(note, verifier).size == 0, note
        # A public change, then the running signer's checkpoint of it, served by the app server.
        run = {**_clean_environment(), **web_env}
        reserved = subprocess.run(
            [
                sys.executable,
                "manage.py",
                "shell",
                "-c",
                "import datetime as dt; from django.contrib.auth.models import User; from registry import services; "
                "from django.utils import timezone; editor = User.objects.create_superuser('first-editor', 'e@x.org', "
                "'pw-pw-pw-pw-12'); services.namespace_reserve('held', editor, until=timezone.localdate() + "
                "dt.timedelta(days=5), reason='r')",
            ],
            cwd=checkout,
            env=run,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert reserved.returncode == 0, reserved.stderr
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and checkpoint_open(_get(base + "/log/checkpoint")[1], verifier).size < 1:
            time.sleep(0.5)
        assert checkpoint_open(_get(base + "/log/checkpoint")[1], verifier).size == 1
        smoke = subprocess.run(
            [sys.executable, "manage.py", "smoke_test", base],
            cwd=checkout,
            env=run,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert smoke.returncode == 0, smoke.stdout + smoke.stderr
        # With the app servers' environment nobody can sign.
        refused = subprocess.run(
            [sys.executable, "manage.py", "log_sign"],
            cwd=checkout,
            env=run,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert refused.returncode == 2 and "No log key" in refused.stderr
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
