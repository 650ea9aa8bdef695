"""Shared fixtures, and the policy for tests that need an outside program.

Such tests call ``require_external(name, available, reason)``: where the program
is missing they skip with a clear reason, so ``pytest`` passes anywhere. Names
listed in ``REGISTRY_REQUIRE_EXTERNAL`` (comma-separated, set by ``.ci/run``)
fail instead of skipping, so CI never silently skips them; the SQLite pass
requires Chromium and Go, the PostgreSQL pass PostgreSQL (its browser tests ran in the SQLite pass).
"""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import connection

from registry.lookup import registry_invalidate
from registry.transparency.log import log_cache_clear

from .factories import proposal_factory, user_factory

#: Workers per core for ``-n auto``. Most of the suite's time is spent waiting — on Chromium, on a
#: server a test started, on the database, on a bounded job's process — and with one worker per core
#: a 2-core run used 46% of its CPU time; with two per core the cores are busy until the last tests.
WORKERS_PER_CORE = 2


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject.toml): two workers per core (``WORKERS_PER_CORE``)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return WORKERS_PER_CORE * (cores or 1)


def pytest_addoption(parser):
    parser.addoption(
        "--reverse",
        action="store_true",
        help="run the tests in the reverse of their collected order (serial ones still last): a test that "
        "passes only after another one set something up, or fails only after another left something behind, "
        "shows (.ci/run's PostgreSQL pass runs this way)",
    )
    parser.addoption(
        "--database-tests-only",
        action="store_true",
        help="run only the tests that can reach the suite's database (DATABASE_URL): pytest-django refuses "
        "every other test any access to it, so on a second database they would run again unchanged "
        "(.ci/run's PostgreSQL pass; the SQLite pass runs everything)",
    )


#: Fixtures through which a test reaches the suite's database (pytest-django's, and ours that read its vendor).
DATABASE_FIXTURES = frozenset(
    {
        "_django_db_helper",
        "db",
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "live_server",
        "postgres",
    }
)


def reaches_database(item) -> bool:
    """Whether ``item`` may touch the suite's database: a ``django_db`` mark or a database fixture. Any
    other test is refused database access by pytest-django ("Database access not allowed"); the
    servers the drills start are given databases of their own (a scratch SQLite file, their own
    PostgreSQL cluster) or, where they share the suite's, the test asks for it through these."""
    if item.get_closest_marker("django_db") is not None:
        return True
    return not DATABASE_FIXTURES.isdisjoint(getattr(item, "fixturenames", ()))


def pytest_collection_modifyitems(config, items):
    """Tests marked ``serial`` go last, together, so they wait for the other workers once; long ones first
    (``runs_long``); ``--reverse`` turns the order within each of these groups around;
    ``--database-tests-only`` keeps only the tests that can reach the database."""
    if config.getoption("--database-tests-only", default=False):
        elsewhere = [item for item in items if not reaches_database(item)]
        if elsewhere:
            config.hook.pytest_deselected(items=elsewhere)
            items[:] = [item for item in items if reaches_database(item)]
    if config.getoption("--reverse", default=False):
        items.reverse()
    items.sort(key=lambda item: (item.get_closest_marker("serial") is not None, not runs_long(item)))


BROWSER_TESTS = Path(__file__).resolve().parent / "browser"


def runs_long(item) -> bool:
    """Browser tests (a Chromium session each, up to ~45 s) and tests marked ``long``: started first, so
    the workers are not left with one of them each at the end while the other cores idle."""
    return item.get_closest_marker("long") is not None or BROWSER_TESTS in item.path.parents


@pytest.fixture(autouse=True)
def run_alone_when_serial(request, tmp_path_factory):
    """Under pytest-xdist, a test marked ``serial`` runs alone.

    Such tests measure time or load the machine on purpose (a flood, six clients resolving while
    a page must answer within a second): beside another worker's test they would measure that
    test (a verdict measured in CPU time moved with such a load beside a loaded PostgreSQL pass).
    Every test holds a shared lock while it runs; a serial test takes it exclusively, which waits
    for the tests running elsewhere. The turnstile lets a waiting serial test in before the other
    workers' next tests, so it never waits behind a stream of them. Locks live in the run's
    common temporary directory (each worker's own is beneath it); a lone run takes none.
    """
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield
        return
    shared = tmp_path_factory.getbasetemp().parent
    serial = request.node.get_closest_marker("serial") is not None
    with open(shared / "serial.turnstile", "a") as turnstile, open(shared / "serial.lock", "a") as lock:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        if serial:
            fcntl.flock(lock, fcntl.LOCK_EX)
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        else:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
            fcntl.flock(lock, fcntl.LOCK_SH)
        yield  # closing the files releases the locks


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Real hashing costs a quarter of a second a user; tests make hundreds of users."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def log_signer_state(settings, tmp_path_factory):
    """Each test's log signer keeps its record apart, and its app server its floor (the databases are per
    test, so are the logs)."""
    settings.REGISTRY_LOG_STATE_DIR = str(tmp_path_factory.mktemp("log-state"))
    settings.REGISTRY_LOG_SERVED_FILE = str(Path(settings.REGISTRY_LOG_STATE_DIR) / "served.json")
    return settings.REGISTRY_LOG_STATE_DIR


@pytest.fixture(autouse=True)
def fresh_registry_index():
    """Each test starts with no in-memory registry index nor log tree (databases are per test)."""
    registry_invalidate()
    log_cache_clear()
    yield
    registry_invalidate()
    log_cache_clear()


@pytest.fixture(autouse=True)
def views_never_shadow_what_every_template_is_given():
    """No view's context hides what the context processors give every page: ``user`` (the
    visitor, whom the header names), ``request``, ``perms``, ``messages``, ``csrf_token``.

    A view that passed ``{"user": account}`` made its page's header say "Log out <account>"
    to a visitor who had not signed in. Checked on every page any test renders (Django's
    test instrumentation announces each template with its context), so a new view that
    shadows one fails whichever test draws it.
    """
    from django.conf import settings
    from django.test.signals import template_rendered

    found: list[str] = []
    ours = str(settings.BASE_DIR / "templates")

    def check(sender, template, context, **kwargs):
        given = getattr(context, "_processors_index", None)
        if given is None or getattr(context, "_shadowing_checked", False):
            return
        context._shadowing_checked = True  # the first template of a render: the view's own context
        if not str(getattr(template.origin, "name", "")).startswith(ours):
            return  # a library's page or message (allauth's, the admin's), rendered as it chooses
        # RequestContext keeps the processors' answers at ``given`` and an empty dict after it;
        # what the view passed is pushed after those (django.template.context.make_context).
        from_view = set().union(*context.dicts[given + 2 :]) if len(context.dicts) > given + 2 else set()
        hidden = sorted(from_view & set(context.dicts[given]))
        if hidden:
            found.append(f"{template.name}: the view's context hides {', '.join(hidden)}")

    template_rendered.connect(check, dispatch_uid="views_never_shadow")
    yield
    template_rendered.disconnect(dispatch_uid="views_never_shadow")
    assert found == [], "\n".join(dict.fromkeys(found))


def require_external(name: str, available: bool, reason: str) -> None:
    if available:
        return
    message = f"needs {name}: {reason}"
    required = {n.strip().lower() for n in os.environ.get("REGISTRY_REQUIRE_EXTERNAL", "").split(",")}
    if name.lower() in required:
        pytest.fail(f"{message} (REGISTRY_REQUIRE_EXTERNAL names {name}: not skipping)")
    pytest.skip(message)


@contextmanager
def database_lost():
    """Every statement fails as it does once the connection to PostgreSQL is lost (Django's
    execute_wrapper; tests/faults/test_postgres_lost.py stops a real server)."""
    from django.db import OperationalError

    def refuse(execute, sql, params, many, context):
        raise OperationalError("server closed the connection unexpectedly")

    with connection.execute_wrapper(refuse):
        yield


@pytest.fixture
def postgres():
    """Skip (or fail in CI) unless the tests run on PostgreSQL."""
    require_external(
        "PostgreSQL",
        connection.vendor == "postgresql",
        "run with DATABASE_URL=postgres://... (see README) to include this test",
    )


@pytest.fixture
def keep_connection():
    """As the test client does: a request through a bare WSGI handler must not close the test's
    database connection (the test's transaction holds it; PostgreSQL would report a storage fault)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def applicant(db):
    return user_factory("alice")


@pytest.fixture
def other_applicant(db):
    return user_factory("bob")


@pytest.fixture
def editor(db):
    return user_factory("erin", editor=True)


@pytest.fixture
def make_proposal(db):
    return proposal_factory
