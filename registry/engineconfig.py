"""What the engines (no Django) read from the running app, handed over without importing them.

The bounded worker (registry/sandbox.py) reads its budget from Django's settings, and the grammar
compiler keeps compiled grammars in Django's cache; neither imports Django. The app's ``ready``
sets the two sources here — a module that imports nothing — and each engine consults them when it
needs them, so no command pays at start-up for the process pool's library or the grammar compiler
it may never use (``manage.py help``: tests/test_startup.py). Until ``ready`` (and outside
Django: scripts, benchmarks) both are None and the engines' defaults hold.
"""

from __future__ import annotations

from collections.abc import Callable

#: (setting's name, default) -> its value: Django's settings once the app is ready.
settings_reader: Callable[[str, object], object] | None = None
#: () -> the cache shared by the registry's processes (get/set): Django's cache once the app is ready.
shared_cache_source: Callable[[], object] | None = None
