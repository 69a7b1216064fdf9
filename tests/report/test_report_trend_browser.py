"""A three-suite trend report in headless Chromium, opened from file://: the trend page, its plot, and the flags a
person should see. The screenshot goes to .cache/test-screenshots/ (and docs/screenshots/trend-report.png when
SAVE_DOC_SCREENSHOTS=1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import run_cli
from support.report_viewer import requested_urls, screenshot, serving
from support.trend_stores import SUITES, write_suites

from medhelm_local.store.keys import Kek


def test_a_three_suite_trend_opens_in_the_browser_with_its_flags(browser: Any, tmp_path: Path, kek: Kek,
                                                                 kek_file: Path) -> None:
    from selenium.webdriver.common.by import By

    results = tmp_path / "results"
    write_suites(results, kek, second_benchmark=True)
    out = tmp_path / "report"
    done = run_cli("report", "--output", str(results), "--trend", *SUITES, "--out", str(out),
                   env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert done.returncode == 0, done.stderr
    requested_urls(browser)  # the browser's own start page
    browser.get((out / "index.html").as_uri())
    browser.find_element(By.LINK_TEXT, "Trend").click()
    assert browser.current_url.endswith("/trend.html")
    text = str(browser.find_element(By.TAG_NAME, "body").text)
    assert "Trend across suites" in text and "jan → feb → mar" in text
    assert "PubMedQA" in text and "MedicationQA" in text
    assert "better" in text and "build changed: swap-v1 → swap-v2" in text
    image = browser.find_element(By.CSS_SELECTOR, "img[src$='plots/trend.svg']")
    assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image)
    browser.set_window_size(1280, 1400)
    screenshot(browser, "trend-report")
    requested = requested_urls(browser)
    assert requested and all(url.startswith("file://") for url in requested), requested
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def _main_text(browser: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(browser.find_element(By.TAG_NAME, "main").text)


def test_the_viewer_serves_the_trend_page_as_report_writes_it(browser: Any, tmp_path: Path, kek: Kek,
                                                              kek_file: Path) -> None:
    from selenium.webdriver.common.by import By

    results = tmp_path / "results"
    write_suites(results, kek, second_benchmark=True)
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    out = tmp_path / "report"
    done = run_cli("report", "--output", str(results), "--trend", *SUITES, "--out", str(out), env=env)
    assert done.returncode == 0, done.stderr
    browser.get((out / "trend.html").as_uri())
    written = _main_text(browser)
    assert "jan → feb → mar" in written and "build changed: swap-v1 → swap-v2" in written
    with serving("--output", str(results), "--trend", *SUITES, "--port", "0", env=env) as viewer:
        browser.get(viewer.link)
        browser.find_element(By.LINK_TEXT, "Trend").click()
        assert browser.current_url == viewer.base + "trend.html"
        assert _main_text(browser) == written  # the same page, served from the live stores
        image = browser.find_element(By.CSS_SELECTOR, "img[src$='plots/trend.svg']")
        assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image)
        status, headers, body = viewer.authorised("trend.csv")
        assert status == 200 and headers["content-type"].startswith("text/csv")
        assert body == (out / "trend.csv").read_bytes()
        assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    with serving("--output", str(results), "mar", "--port", "0", env=env) as plain:
        assert plain.authorised("trend.html")[0] == 404
        assert b">Trend</a>" not in plain.authorised("index.html")[2]


def test_serve_trend_needs_two_suites(tmp_path: Path, kek: Kek, kek_file: Path) -> None:
    results = tmp_path / "results"
    write_suites(results, kek)
    done = run_cli("serve", "--output", str(results), "--trend", "jan", "--port", "0",
                   env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert done.returncode != 0 and "a trend needs two suites or more" in done.stderr
    assert "Traceback" not in done.stderr
