"""The server process's own environment kept out of requests.

granian builds each request's environ on a copy of ``os.environ``, so without this every request
would carry the process's variables (``DATABASE_URL``, the secret key) into Django, its error
reports and its logs. Applied by registry/wsgi.py to what reaches Django (the hot paths read none
of these keys); kept apart from the launcher (registry/serve.py), which loads registry/wsgi.py.
"""

from __future__ import annotations

import os

#: The environ keys a WSGI server sets itself (PEP 3333 and CGI): never taken for the process's own.
CGI_KEYS = frozenset(
    {
        "REQUEST_METHOD",
        "SCRIPT_NAME",
        "PATH_INFO",
        "QUERY_STRING",
        "CONTENT_TYPE",
        "CONTENT_LENGTH",
        "SERVER_NAME",
        "SERVER_PORT",
        "SERVER_PROTOCOL",
        "SERVER_SOFTWARE",
        "GATEWAY_INTERFACE",
        "REMOTE_ADDR",
        "REMOTE_HOST",
        "REMOTE_PORT",
        "RAW_URI",
        "REQUEST_URI",
    }
)


def without_process_environment(application):
    """``application`` (Django) without the server process's own environment variables in its requests.

    granian builds each request's environ on a copy of ``os.environ``; a key that is neither a
    CGI variable nor a WSGI one is the process's, not the request's. An ``HTTP_*`` variable of
    the process (``HTTP_PROXY``) goes too: a request header of that name would be taken for it.
    Only the requests that reach Django pay for this; the hot paths read none of these keys.
    """
    process_keys = tuple(key for key in os.environ if key not in CGI_KEYS and not key.startswith("wsgi."))

    def application_without_process_environment(environ, start_response):
        for key in process_keys:
            environ.pop(key, None)
        return application(environ, start_response)

    return application_without_process_environment
