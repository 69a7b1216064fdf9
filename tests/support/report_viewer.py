"""`medhelm-local serve` in a subprocess, as a user starts it, and headless Chromium to look at what it serves.

Chromium is Debian's `chromium` with its `chromium-driver`, driven through Selenium with the driver given
by path (Selenium Manager, which would download a driver, never runs), a fresh profile, and the flags that
stop it from contacting Google's services on its own.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLI = Path(sys.executable).parent / "medhelm-local"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


@dataclass
class Viewer:
    """A running viewer: its base URL, its token, the link it printed, and its process."""

    base: str
    token: str
    link: str
    process: subprocess.Popen[str]

    def get(self, path: str, headers: dict[str, str] | None = None, method: str = "GET"
            ) -> tuple[int, dict[str, str], bytes]:
        """One request on a fresh connection (no redirects followed): status, headers, body."""
        request = urllib.request.Request(self.base + path.lstrip("/"), headers=headers or {}, method=method)
        opener = urllib.request.build_opener(_NoRedirect)
        try:
            with opener.open(request, timeout=30) as response:
                return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()

    def authorised(self, path: str) -> tuple[int, dict[str, str], bytes]:
        """A request bearing the token."""
        return self.get(path, {"Authorization": f"Bearer {self.token}"})


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


@contextmanager
def serving(*args: str, env: dict[str, str], prefix: tuple[str, ...] = ()) -> Iterator[Viewer]:
    """Start `medhelm-local serve ARGS` (after `prefix`, e.g. `unshare` to run it as another user) and yield it
    once it prints its link; stop it afterwards."""
    process = subprocess.Popen([*prefix, str(CLI), "serve", *args], env={**os.environ, **env, "COLUMNS": "200"},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        found = None
        while found is None:
            line = process.stdout.readline() if process.stdout else ""
            if not line and process.poll() is not None:
                errors = process.stderr.read() if process.stderr else ""
                raise RuntimeError(f"serve exited {process.returncode}: {errors}")
            found = re.search(r"(http://\S+/)\?token=(\S+)", line)
            if time.monotonic() > deadline:
                raise RuntimeError("serve printed no link within 60 s")
        yield Viewer(found.group(1), found.group(2), found.group(0), process)
    finally:
        process.terminate()
        process.wait(timeout=30)


def chromium(profile: Path) -> Any:
    """A headless Chromium (Selenium WebDriver) with performance logging on, or a skip if none is installed."""
    import pytest

    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("Debian's chromium and chromium-driver are not installed (.ci/run installs them: "
                    "apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-default-apps", "--disable-extensions", "--no-first-run", "--no-default-browser-check",
                 "--disable-domain-reliability", "--disable-client-side-phishing-detection",
                 "--metrics-recording-only", "--window-size=1400,1000", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))


def requested_urls(driver: Any) -> list[str]:
    """Every URL the browser asked for since the last call (from its performance log)."""
    import json

    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


SHOTS = Path(__file__).resolve().parents[2] / ".cache" / "test-screenshots"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def wait_for(driver: Any, css: str, timeout: float = 15) -> Any:
    """The first element matching `css`, once the page has one; AssertionError with the page's start if none."""
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = driver.find_elements(By.CSS_SELECTOR, css)
        if found:
            return found[0]
        time.sleep(0.1)
    raise AssertionError(f"nothing matched {css!r}; page: {driver.page_source[:800]}")


def screenshot(driver: Any, name: str) -> Path:
    """Save the page as `.cache/test-screenshots/NAME.png` (not blank), and as docs/screenshots/NAME.png when
    SAVE_DOC_SCREENSHOTS=1 (how the documentation's pictures are refreshed)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    target = SHOTS / f"{name}.png"
    driver.save_screenshot(str(target))
    assert target.stat().st_size > 10_000
    if os.environ.get("SAVE_DOC_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(target, DOCS / f"{name}.png")
    return target
