from rest_framework.negotiation import BaseContentNegotiation


class JSONOnly(BaseContentNegotiation):
    """The public endpoints only speak JSON: skip parsing Accept headers on every request
    (content negotiation was the largest part of a lookup's time)."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        renderer = renderers[0]
        return renderer, renderer.media_type
