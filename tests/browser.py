"""A real headless browser for the kit's page tests (Debian's chromium, driven by Playwright).

`.ci/run` installs chromium when it is missing; the `page` fixture opens a
fresh tab on it. Pages are checked by what they show (visible text, a click
that changes the view, a screenshot that is not blank), not only their HTML.
"""

from __future__ import annotations

import shutil
import tempfile

import pytest

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        pytest.fail("chromium is not installed: run .ci/run (it installs it) or "
                    "`apt-get install -y chromium`")
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory(prefix="spielbaum-chromium-") as profile, \
            sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=path, headless=True, args=CHROMIUM_ARGS)
        yield context
        context.close()


@pytest.fixture
def page(browser):
    tab = browser.new_page()
    yield tab
    tab.close()
