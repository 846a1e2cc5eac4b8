"""Fixtures of the console's browser tests: one headless Chromium per test module."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium driven by Playwright (the tests that use it skip without Playwright)."""
    playwright_api = pytest.importorskip("playwright.sync_api", reason="installed by `make test`")
    from tests.app.console.test_console_browser import chromium_path

    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        yield launched
        launched.close()
