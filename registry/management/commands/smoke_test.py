import json
import urllib.error
import urllib.request

from django.core.management.base import BaseCommand, CommandError

CHECKS = [
    ("/urn/", "text/html", None),
    ("/urn/registry.json", "application/json", lambda body: "snids" in json.loads(body)),
    ("/api/snids/", "application/json", lambda body: "results" in json.loads(body)),
    (
        "/api/lookup/?urn=urn:ogf:example:cluster:2009:example.net:42",
        "application/json",
        lambda body: {"valid", "normalized"} <= set(json.loads(body)),
    ),
    ("/api/schema/", "application/vnd.oai.openapi", None),
    ("/static/registry/site.css", "text/css", None),
    # The checkpoint the log's signer published (503 while no signer has run).
    ("/log/checkpoint", "text/plain", lambda body: body.count(b"\n") >= 5),
]


class Command(BaseCommand):
    help = "Check a running deployment answers its public pages, API and static files (exit 1 if not)."

    def add_arguments(self, parser):
        parser.add_argument("url", help="base URL, e.g. https://urn.example.org")
        parser.add_argument("--timeout", type=float, default=10)

    def handle(self, url, timeout=10, **options):
        base, failures = url.rstrip("/"), []
        for path, kind, check in CHECKS:
            try:
                with urllib.request.urlopen(base + path, timeout=timeout) as response:  # noqa: S310
                    body = response.read()
                    content_type = response.headers.get("Content-Type", "")
                    ok = response.status == 200 and content_type.startswith(kind) and (check is None or check(body))
                    detail = f"{response.status} {content_type}"
            except (urllib.error.URLError, OSError, ValueError) as exc:
                ok, detail = False, str(getattr(exc, "reason", exc))
            self.stdout.write(f"{'ok  ' if ok else 'FAIL'} {path}  ({detail})")
            if not ok:
                failures.append(path)
        if failures:
            raise CommandError(f"{len(failures)} of {len(CHECKS)} checks failed.")
        self.stdout.write(f"All {len(CHECKS)} checks passed.")
