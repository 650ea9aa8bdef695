"""Log-in with a limit on failed attempts, for the site and the admin alike."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.views import LoginView
from django.core.cache import cache


def _client(request) -> str:
    return request.META.get("REMOTE_ADDR", "unknown")


class RateLimitedLoginView(LoginView):
    """After LOGIN_FAILURE_LIMIT failed attempts for one account, or ten times that from one
    address, within LOGIN_FAILURE_WINDOW seconds, further attempts are refused (429)."""

    def _keys(self):
        username = (self.request.POST.get("username") or "").strip().lower()[:150]
        return [f"login-fail:user:{username}", f"login-fail:addr:{_client(self.request)}"]

    def _blocked(self) -> bool:
        user_key, addr_key = self._keys()
        limit = settings.LOGIN_FAILURE_LIMIT
        return cache.get(user_key, 0) >= limit or cache.get(addr_key, 0) >= limit * 10

    def post(self, request, *args, **kwargs):
        if self._blocked():
            form = self.get_form()
            form.errors.clear()
            form.add_error(None, "Too many failed log-in attempts. Wait a quarter of an hour, or reset "
                                 "your password.")
            response = self.render_to_response(self.get_context_data(form=form))
            response.status_code = 429
            response["Retry-After"] = str(settings.LOGIN_FAILURE_WINDOW)
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        for key in self._keys():
            cache.add(key, 0, settings.LOGIN_FAILURE_WINDOW)
            try:
                cache.incr(key)
            except ValueError:
                cache.set(key, 1, settings.LOGIN_FAILURE_WINDOW)
        return super().form_invalid(form)

    def form_valid(self, form):
        cache.delete(self._keys()[0])
        return super().form_valid(form)
