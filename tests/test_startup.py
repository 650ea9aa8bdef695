"""A command starts at once: what ``manage.py`` imports and opens before it does its work.

Start-up is held by counting, not by timing the machine: each command runs in a fresh
interpreter (``PROBE``), which reports the modules it imported, whether it opened a database
connection and whether it made a template engine; the tests name the modules a command has no
use for and must not load (the grammar compiler and its ``abnf`` cross-check, the bounded
worker's process pool, the log's JSON schemas, the URL configuration with every view and the
API, Markdown, the document readers). ``benchmarks/bench_startup.py`` times the same commands.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Runs ``manage.py <args>`` in this interpreter and prints, as the last line of its output, what
#: start-up and the command left behind.
PROBE = """
import contextlib, io, json, os, sys
sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "registry.settings")
from django.core.management import execute_from_command_line
code = 0
with contextlib.redirect_stdout(io.StringIO()):
    try:
        execute_from_command_line(["manage.py", *sys.argv[1:]])
    except SystemExit as exc:
        code = exc.code or 0
from django.db import connections
opened = any(connections[alias].connection is not None for alias in connections)
templates = bool(sys.modules.get("django.template") and sys.modules["django.template"].engines._engines)
print(json.dumps({"modules": sorted(sys.modules), "database": opened, "templates": templates, "code": code}))
"""

#: Loaded by no command that does not use them.
HEAVY = (
    "abnf",  # the grammar cross-check's reference parser
    "jsonschema",  # the log's leaf schemas
    "pebble",  # the bounded worker's process pool
    "railroad",  # grammar diagrams
    "markdown_it",
    "nh3",
    "pdfminer",
    "docx",
    "registry.grammar.compiler",
    "registry.grammar.analysis",
    "registry.grammar.diagrams",
    "registry.sandbox",
    "registry.resolution.services",
    "registry.resolving.review",
    "registry.urls",  # the URL configuration: every view, the API, its schema generator
    "registry.views",
    "registry.api",
    "drf_spectacular.openapi",
)
#: Not loaded by ``help``: the name rules' Unicode data (PRECIS, the confusables table), loaded with the
#: first account saved or name looked up.
NAME_RULES = ("registry.accounts.names", "registry.accounts.lookalike", "precis_i18n", "confusable_homoglyphs")
#: The name rules' Unicode data alone: loaded by no command until a name is checked or looked up.
NAME_DATA = ("precis_i18n", "confusable_homoglyphs")


def probe(*args: str, database: Path | None = None) -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "registry.settings"}
    env.pop("REDIS_URL", None)
    if database is not None:
        env["DATABASE_URL"] = f"sqlite:///{database}"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def loaded(report: dict, names=HEAVY) -> list[str]:
    modules = set(report["modules"])
    return [name for name in names if name in modules]


def test_startup_help_imports_nothing_heavy_and_touches_no_database_or_template():
    report = probe("help")
    assert report["code"] == 0
    assert loaded(report) == [] and loaded(report, NAME_RULES) == []
    assert not report["database"]
    assert not report["templates"]


def test_startup_help_imports_few_of_the_registrys_modules():
    """Beyond the models and what ``ready`` registers, the registry's own modules wait for their use."""
    ours = [name for name in probe("help")["modules"] if name == "registry" or name.startswith("registry.")]
    assert len(ours) <= 40, ours


@pytest.fixture(scope="module")
def demo_database(tmp_path_factory) -> Path:
    """A scratch SQLite database with the demo registrations (the commands run in processes of their own)."""
    database = tmp_path_factory.mktemp("startup") / "db.sqlite3"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "registry.settings", "DATABASE_URL": f"sqlite:///{database}"}
    env.pop("REDIS_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True)
    load = "from registry import demo; a = demo.demo_accounts(); demo.demo_load(a['applicant'][0], a['editor'][0])"
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", load], cwd=ROOT, env=env, check=True, capture_output=True
    )
    return database


def test_startup_validate_urn_of_a_registered_snid_loads_only_the_lookup(demo_database):
    """A benign URN of a registered SNID: the stored validator (proven cheap) is matched in the process;
    no compiler, no worker, no URL configuration (the answer's page link is written out, not reversed)."""
    report = probe(
        "validate_urn", "--snid", "example", "urn:ogf:example:cluster:2009:example.net:42", database=demo_database
    )
    assert report["code"] == 0
    # The stored validator's class lives with the compiler (its analysis finds error positions);
    # compiling (the cross-check, ``abnf``) is not loaded.
    assert (
        loaded(report, [n for n in HEAVY if n not in ("registry.grammar.compiler", "registry.grammar.analysis")]) == []
    )
    assert not report["templates"]


def test_startup_check_proposal_loads_no_url_configuration_or_schemas(demo_database):
    """The checklist needs the grammar engine (it is what it checks) and the bounded worker, not the site."""
    proposal = str(ROOT / "fixtures" / "proposals" / "example.json")
    report = probe("check_proposal", proposal, database=demo_database)
    assert report["code"] in (0, 1)  # 1: a check fails (the demo SNID is registered already)
    site = ("registry.urls", "registry.views", "registry.api", "drf_spectacular.openapi", "jsonschema")
    assert loaded(report, site) == []
    assert loaded(report, NAME_DATA) == []  # no --submitter: no name is looked up
    assert not report["templates"]


def test_startup_import_document_dry_run_loads_no_services_or_site(demo_database):
    """A report on a document needs the importer (in the bounded worker and here), not the proposals'
    services, the checklist or the site."""
    document = str(ROOT / "tests" / "seeds" / "urn-5-registration.txt")
    report = probe("import_document", document, "--dry-run", database=demo_database)
    assert report["code"] == 0
    site = ("registry.urls", "registry.views", "registry.api", "registry.services", "registry.checklist", "jsonschema")
    assert loaded(report, site) == []
    assert not report["templates"]
