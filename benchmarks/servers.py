"""Servers and load for the HTTP benchmarks: ours as deployed (granian), the same under gunicorn,
Bioregistry as it ships, nginx, wrk.

Every server is started in its own session and stopped by its process group,
so a benchmark never leaves anything running.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKERS = 2
#: Where Bioregistry is installed (a virtualenv of its own: it pins other libraries than ours).
BIOREGISTRY_VENV = os.environ.get("BIOREGISTRY_VENV", "")
BIOREGISTRY_PATH = "/api/reference/chebi:24867"


def wait_until_up(port: int, path: str, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", path)
            if conn.getresponse().status < 500:
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"the server on port {port} did not answer {path} within {seconds:.0f} s")


class Server:
    def __init__(self, name: str, command: list[str], port: int, probe: str, *, env=None, cwd=None):
        self.name, self.command, self.port = name, command, port
        self.process = subprocess.Popen(
            command,
            cwd=cwd or ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            wait_until_up(port, probe)
        except RuntimeError:
            self.stop()
            raise

    def worker_pids(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        return [int(pid) for pid in out.split()]

    def stop(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=20)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def ours_command() -> list[str]:
    """The site as deployed: granian (registry/serve.py)."""
    from registry import serve

    return serve.command()


def start_ours(port: int, env: dict) -> Server:
    env = {**env, "BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": str(WORKERS)}
    return Server("ours", ours_command(), port, "/bench/floor/", env=env)


def granian_version() -> str:
    import granian

    return granian.__version__


def gunicorn_command() -> list[str]:
    """The same application under gunicorn as it was deployed before granian (benchmarks/gunicorn_conf.py):
    the same worker processes, the same threads each, the same warm-up."""
    return [sys.executable, "-m", "gunicorn", "-c", "python:benchmarks.gunicorn_conf", "registry.wsgi:application"]


def gunicorn_missing() -> str | None:
    """Why gunicorn cannot be run here, or None."""
    try:
        import gunicorn  # noqa: F401
    except ImportError:
        return "gunicorn is not installed (`pip install -r requirements-bench.txt`; docs/performance.md, “Reproduce”)"
    return None


def gunicorn_version() -> str:
    import gunicorn

    return gunicorn.__version__


def start_gunicorn(port: int, env: dict) -> Server:
    env = {**env, "BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": str(WORKERS)}
    return Server("ours (gunicorn)", gunicorn_command(), port, "/bench/floor/", env=env)


def bioregistry_command(port: int) -> list[str]:
    return [
        str(Path(BIOREGISTRY_VENV) / "bin" / "gunicorn"),
        "bioregistry.app.wsgi:app",
        "-k",
        "uvicorn_worker.UvicornWorker",
        "-w",
        str(WORKERS),
        "-b",
        f"127.0.0.1:{port}",
    ]


def bioregistry_missing() -> str | None:
    """Why Bioregistry cannot be run here, or None."""
    if not BIOREGISTRY_VENV:
        return "BIOREGISTRY_VENV is not set (see docs/performance.md, “Reproduce”)"
    if not (Path(BIOREGISTRY_VENV) / "bin" / "gunicorn").exists():
        return f"no gunicorn in BIOREGISTRY_VENV={BIOREGISTRY_VENV}"
    return None


def start_bioregistry(port: int) -> Server:
    # its own working directory: nothing of ours on its path
    return Server(
        "bioregistry",
        bioregistry_command(port),
        port,
        BIOREGISTRY_PATH,
        env={k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "PYTHON"))},
        cwd=tempfile.gettempdir(),
    )


def bioregistry_versions() -> str:
    out = subprocess.run(
        [str(Path(BIOREGISTRY_VENV) / "bin" / "python"), "-m", "pip", "freeze"], capture_output=True, text=True
    ).stdout
    wanted = ("bioregistry", "gunicorn", "uvicorn", "uvicorn-worker", "fastapi", "uvloop", "httptools")
    return ", ".join(line for line in out.splitlines() if line.split("==")[0].lower() in wanted)


# --- nginx ---------------------------------------------------------------------------------------

NGINX_CONF = ROOT / "docs" / "nginx.conf"


def nginx_conf(port: int, upstreams: list[int], workdir: Path) -> str:
    """docs/nginx.conf as committed, with this run's ports and paths, inside a minimal main config."""
    site = NGINX_CONF.read_text()
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    site = re.sub(r"(?m)^(\s*)server 127\.0\.0\.1:800\d[^;]*;\n", "", site)
    servers = "".join(f"    server 127.0.0.1:{p} max_fails=0;\n" for p in upstreams)
    site = site.replace("upstream registry {\n", "upstream registry {\n" + servers)
    site = site.replace("/var/cache/nginx/registry", str(workdir / "cache"))
    site = site.replace("/srv/registry/staticfiles/", str(ROOT / "static") + "/")
    return (
        f"worker_processes auto;\ndaemon off;\npid {workdir}/nginx.pid;\n"
        f"error_log {workdir}/error.log warn;\n{'user root;' if os.geteuid() == 0 else ''}\n"
        "events { worker_connections 1024; }\n"
        f"http {{\n  include /etc/nginx/mime.types;\n  access_log off;\n"
        f"  client_body_temp_path {workdir}/body;\n  proxy_temp_path {workdir}/proxy;\n"
        f"  fastcgi_temp_path {workdir}/fcgi;\n  uwsgi_temp_path {workdir}/uwsgi;\n"
        f"  scgi_temp_path {workdir}/scgi;\n{site}\n}}\n"
    )


def start_nginx(port: int, upstreams: list[int], probe: str) -> tuple[Server, Path]:
    workdir = Path(tempfile.mkdtemp(prefix="registry-nginx-"))
    (workdir / "nginx.conf").write_text(nginx_conf(port, upstreams, workdir))
    check = subprocess.run(
        ["nginx", "-t", "-p", str(workdir), "-c", str(workdir / "nginx.conf")], capture_output=True, text=True
    )
    if check.returncode != 0:
        raise RuntimeError(f"nginx refused docs/nginx.conf: {check.stderr.strip()}")
    return Server("nginx", ["nginx", "-p", str(workdir), "-c", str(workdir / "nginx.conf")], port, probe), workdir


def nginx_version() -> str:
    return subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip().split("/")[-1]


def stop_nginx(server: Server, workdir: Path) -> None:
    server.stop()
    shutil.rmtree(workdir, ignore_errors=True)


# --- load ----------------------------------------------------------------------------------------

WRK = ["wrk", "-t2", "-c32", f"-d{os.environ.get('BENCH_SECONDS', '8')}s", "--latency"]
WARM_UP = ["wrk", "-t2", "-c32", "-d2s"]


def warm_up(url: str, *, script: Path | None = None) -> None:
    """Load ``url`` for two seconds, unmeasured: the rounds then see every server in its steady state."""
    command = WARM_UP + (["-s", str(script)] if script else []) + [url]
    subprocess.run(command, capture_output=True, check=True)


def wrk_version() -> str:
    out = subprocess.run(["wrk", "-v"], capture_output=True, text=True)
    return (out.stdout + out.stderr).split()[1]


def _ms(value: str) -> float:
    number, unit = re.match(r"([\d.]+)(us|ms|s)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(url: str, *, script: Path | None = None, args: list[str] = WRK) -> dict:
    command = args + (["-s", str(script)] if script else []) + [url]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    errors = sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    errors += int(m.group(1)) if (m := re.search(r"Non-2xx or 3xx responses: (\d+)", out)) else 0
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": _ms(re.search(r"(?m)^\s+50%\s+(\S+)", out).group(1)),
        "p99": _ms(re.search(r"(?m)^\s+99%\s+(\S+)", out).group(1)),
        "errors": errors,
    }


def summary(runs: list[dict]) -> dict:
    """Medians over rounds, the spread of req/s, and every error of every round."""
    rps = [r["rps"] for r in runs]
    return {
        "rps": statistics.median(rps),
        "min": min(rps),
        "max": max(rps),
        "p50": statistics.median(r["p50"] for r in runs),
        "p99": statistics.median(r["p99"] for r in runs),
        "p99_worst": max(r["p99"] for r in runs),
        "errors": sum(r["errors"] for r in runs),
        "runs": rps,
    }


def rss_kib(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total
