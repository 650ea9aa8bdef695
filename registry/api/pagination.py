"""Page links of API lists, absolute on the configured site (``settings.SITE_URL``).

DRF builds its ``next``/``previous`` links from the request's scheme and Host header.
Every other absolute URL the API gives comes from the site URL (serializers.absolute),
and the registry's SNID list is cached for everyone (views.SnidList): a link built from
one client's Host would be served to all the others.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.pagination import PageNumberPagination
from rest_framework.utils.urls import remove_query_param, replace_query_param


class SitePageNumberPagination(PageNumberPagination):
    def _here(self) -> str:
        return settings.SITE_URL + self.request.get_full_path()

    def get_next_link(self):
        if not self.page.has_next():
            return None
        return replace_query_param(self._here(), self.page_query_param, self.page.next_page_number())

    def get_previous_link(self):
        if not self.page.has_previous():
            return None
        number = self.page.previous_page_number()
        if number == 1:
            return remove_query_param(self._here(), self.page_query_param)
        return replace_query_param(self._here(), self.page_query_param, number)
