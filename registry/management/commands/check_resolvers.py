from django.core.management.base import BaseCommand

from ...resolution import health


class Command(BaseCommand):
    help = (
        "Probe every registered SNID's resolvers with its valid examples and record the result "
        "(run it from a timer: docs/resolution.md). A resolver is 'down' only after "
        "REGISTRY_RESOLVER_DOWN_AFTER failed runs spanning REGISTRY_RESOLVER_DOWN_SECONDS."
    )

    def add_arguments(self, parser):
        parser.add_argument("--cap", type=int, default=None, help="At most this many probes in this run.")

    def handle(self, cap=None, **options):
        seen = health.run(cap=cap)
        for resolver, result in seen:
            resolver.refresh_from_db(fields=["status"])
            what = f"HTTP {result.http_code}" if result.http_code else result.error
            self.stdout.write(
                f"urn:ogf:{resolver.namespace.snid}: {resolver.name}: {resolver.status} ({what}, {result.url})"
            )
        self.stdout.write(f"{len(seen)} resolver{'s' if len(seen) != 1 else ''} checked.")
