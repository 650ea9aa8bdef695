"""What a reader's browser downloads: the public pages' weight on a first visit, and on the next page.

The server as deployed (granian, production settings, static files collected with the
production storage, so WhiteNoise serves hashed names with far-future caching
and gzip for CSS and JS), Debian's Chromium through Playwright, an empty cache
for each page. The figures are the bytes that crossed the wire, headers
included (``transferSize`` of the Resource Timing entries, the page itself
included), by kind; "next page" is what a second page (`/urn/fdc/`) costs after
the first, everything cacheable then in the cache. The fonts are the WOFF2 files the page's
text needed (static/registry/fonts.css: each script's file is fetched only if
the page shows one of its characters).

Run alone: ``python -m benchmarks.bench_weight --write`` (rewrites its section of
docs/performance.md; ``python -m benchmarks.run`` keeps that section as it is).
Needs /usr/bin/chromium and the playwright package.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import servers

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "performance.md"
SECTION = re.compile(r"<!-- weight:start -->.*?<!-- weight:end -->", re.S)
PORT = int(os.environ.get("BENCH_WEIGHT_PORT", "8720"))
CHROMIUM = os.environ.get("REGISTRY_CHROMIUM", "/usr/bin/chromium")
PAGES = [
    "/urn/",
    "/urn/example/",
    "/urn/search/?urn=urn:ogf:example:cluster:2009:example.net:42",
    "/urn/search/?q=grid",
    "/accounts/signup/",
    "/help/",
]
NEXT = "/urn/fdc/"
KINDS = ("html", "css", "js", "font", "other")

ENTRIES = """
async () => {
  await document.fonts.ready;
  const entries = [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")];
  return entries.map(e => ({name: e.name, size: e.transferSize, type: e.initiatorType}));
}
"""


def _kind(entry: dict) -> str:
    path = entry["name"].split("?", 1)[0]
    if entry["type"] == "navigation":
        return "html"
    for kind, suffixes in (("css", (".css",)), ("js", (".js",)), ("font", (".woff2", ".woff"))):
        if path.endswith(suffixes):
            return kind
    return "other"


def _prepare(scratch: Path) -> dict:
    """The demo registry in a database of its own, and the static files collected as in production."""
    database = scratch / "weight.sqlite3"
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    env.update(
        DJANGO_SETTINGS_MODULE="benchmarks.settings",
        BENCH_PRODUCTION_STATIC="1",
        DATABASE_URL=f"sqlite:///{database}",
        DJANGO_STATIC_ROOT=str(scratch / "static"),
    )
    script = (
        "import django; django.setup(); from django.core.management import call_command; "
        "call_command('migrate', interactive=False, verbosity=0); from registry import demo; "
        "a = demo.demo_accounts(); demo.demo_load(a['applicant'][0], a['editor'][0])"
    )
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, check=True)
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    return env


def measure() -> list[dict]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="registry-weight-") as scratch:
        env = _prepare(Path(scratch))
        server = servers.Server(
            "ours",
            servers.ours_command(),
            PORT,
            "/bench/floor/",
            env={**env, "BIND": f"127.0.0.1:{PORT}", "WEB_CONCURRENCY": "1"},
        )
        rows = []
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
                )
                for path in PAGES:
                    context = browser.new_context(base_url=f"http://127.0.0.1:{PORT}")
                    page = context.new_page()
                    page.goto(path, wait_until="networkidle")
                    first = page.evaluate(ENTRIES)
                    page.goto(NEXT, wait_until="networkidle")
                    following = page.evaluate(ENTRIES)
                    context.close()
                    sizes = {kind: sum(e["size"] for e in first if _kind(e) == kind) for kind in KINDS}
                    fonts = sorted({e["name"].rsplit("/", 1)[1] for e in first if _kind(e) == "font"})
                    rows.append(
                        {
                            "path": path,
                            **sizes,
                            "total": sum(sizes.values()),
                            "fonts": fonts,
                            "next": sum(e["size"] for e in following),
                        }
                    )
                browser.close()
        finally:
            server.stop()
    return rows


def report() -> str:
    rows = measure()
    kib = lambda n: f"{n / 1024:.1f}"  # noqa: E731
    lines = [
        "<!-- weight:start -->",
        "## Page weight (`benchmarks/bench_weight.py`)",
        "",
        __doc__.split("\n\n", 1)[1].split("\n\nRun alone")[0].replace("\n", " ").strip(),
        "",
        "| page | HTML KiB | CSS KiB | JS KiB | fonts KiB | other KiB | first visit KiB | next page KiB |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| `{r['path']}` | {kib(r['html'])} | {kib(r['css'])} | {kib(r['js'])} | {kib(r['font'])} | "
            f"{kib(r['other'])} | {kib(r['total'])} | {kib(r['next'])} |"
        )
    files = sorted({name for r in rows for name in r["fonts"]})
    sizes = {
        name: (ROOT / "static" / "registry" / "fonts" / re.sub(r"\.[0-9a-f]{12}\.", ".", name)).stat().st_size
        for name in files
    }
    lines += [
        "",
        "Font files fetched by these pages: "
        + ", ".join(f"`{re.sub(r'[.][0-9a-f]{12}[.]', '.', name)}` ({kib(size)} KiB)" for name, size in sizes.items())
        + ".",
        "The two upright Latin files are preloaded by every page; the italic one is fetched by pages with italic "
        "text (the railroad diagrams' notes, emphasis in a registration). Latin Extended, Cyrillic and Greek "
        "files are fetched only by a page showing those letters. Before the site served its fonts these pages "
        "weighed 9–11 KiB on a first visit (`/urn/example/` 44 KiB) with the same method: the fonts are most of a "
        "first visit now, and nothing of the next page that needs no other file.",
        "<!-- weight:end -->",
    ]
    return "\n".join(lines)


def main() -> None:
    section = report()
    print(section)
    if "--write" in sys.argv[1:]:
        text = OUT.read_text()
        OUT.write_text(
            SECTION.sub(lambda _: section, text) if SECTION.search(text) else text.rstrip() + "\n\n" + section + "\n"
        )


if __name__ == "__main__":
    main()
