from django.conf import settings
from rest_framework.throttling import AnonRateThrottle

from ..middleware import client_address


class AnonymousRateThrottle(AnonRateThrottle):
    """Per-address limit for anonymous requests, read from ``REGISTRY_ANON_RATE`` at request
    time (``"off"`` disables it); the answer past it is 429 with ``Retry-After``.

    The address is the one client address of the request (REGISTRY_TRUSTED_PROXIES): a
    rotating X-Forwarded-For counts only when a trusted proxy wrote it."""

    def get_rate(self):
        rate = getattr(settings, "REGISTRY_ANON_RATE", "")
        return None if not rate or rate == "off" else rate

    def get_ident(self, request):
        return client_address(request)

    def allow_request(self, request, view):
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)
