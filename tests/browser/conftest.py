"""Browser tests: Playwright driving Debian's Chromium against the live test server.

They need /usr/bin/chromium and the playwright package; where either is missing
they skip with that reason (CI installs both and refuses the skip). With
REGISTRY_SCREENSHOTS=DIR set they save screenshots of the key pages there
(docs/screenshots/ holds the ones shown in the README).
"""

import os
import shutil
from pathlib import Path

import pytest

from ..conftest import require_external

CHROMIUM = os.environ.get("REGISTRY_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="session")
def chromium():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    require_external(
        "Chromium",
        sync_playwright is not None and Path(CHROMIUM).exists(),
        f"install Debian's chromium package ({CHROMIUM}) and the playwright package",
    )
    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests make
    # between browser steps are ordinary synchronous code.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def new_page(chromium, live_server):
    contexts = []

    def make():
        context = chromium.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def screenshot(tmp_path):
    target = Path(os.environ.get("REGISTRY_SCREENSHOTS") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)

    def take(page, name, full_page=False):
        path = target / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take


def login(page, username, password):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


__all__ = ["login", "shutil"]
