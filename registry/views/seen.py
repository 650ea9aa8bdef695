"""What a confirmation page showed, as a token its form sends back.

A decision must rest on exactly what the person saw: the confirmation page (GET, or the review's
first POST) puts a token of the facts it showed in its form, and the acting POST is carried out only
when the same facts give the same token again. A POST that skipped the page (no token), or one made
after the facts moved on (another editor recorded a judgement, a reservation was renewed meanwhile),
changes nothing: the page is shown again with what is true now.

The token is an HMAC of the facts under the site's secret key and the person's id, so it cannot be
made up without seeing the page, and one person's page does not act for another.
"""

from __future__ import annotations

import json

from django.utils.crypto import constant_time_compare, salted_hmac

_SALT = "registry.views.seen"


def seen_token(user, *facts) -> str:
    """The token for ``facts`` (anything JSON can write, with str() for the rest) shown to ``user``."""
    payload = json.dumps([getattr(user, "pk", None), *facts], sort_keys=True, default=str)
    return salted_hmac(_SALT, payload, algorithm="sha256").hexdigest()


def seen_matches(token: str, user, *facts) -> bool:
    """Whether ``token`` is the one a page showing ``facts`` to ``user`` gave."""
    return bool(token) and constant_time_compare(token, seen_token(user, *facts))
