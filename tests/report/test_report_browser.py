"""The report in a real browser: Debian's Chromium, headless, through Selenium and its chromedriver.

The static report is opened from file:// and every request the browser makes is read from its
performance log: none may leave file://. The viewer's pages load in the same browser after the token
link. Screenshots are saved under .cache/test-screenshots/ for a person to look at.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, run_cli
from support.report_store import FakeRun, Rating, write_store
from support.report_viewer import requested_urls, serving

from medhelm_local.store.keys import Kek

SHOTS = REPO / ".cache" / "test-screenshots"
JUDGED = "medication_qa-local_big-ward"


def _slices(i: int) -> dict[str, str]:
    return {"age_band": ("18-39", "40-64", "65+")[i % 3], "sex": "FM"[i % 2]}


@pytest.fixture
def store(tmp_path: Path, kek: Kek) -> Path:
    path = tmp_path / "results" / "ward.duckdb"
    write_store(path, kek, "ward", [
        FakeRun("local/big", "pubmed_qa", 230, accuracy=0.8, failed=3, seed=1, slices=_slices),
        FakeRun("local/small", "pubmed_qa", 230, accuracy=0.5, seed=2, slices=_slices),
        FakeRun("local/big", "medication_qa", 40, values=[0.5] * 40, seed=3,
                prompt=lambda i: f"What should I know about drug {i}? <script>alert(1)</script>",
                ratings=lambda i: [Rating("judge-a", {"accuracy": 4, "clarity": 5}, f"Explains drug {i} well."),
                                   Rating("judge-b", None, error_type="unparseable")]),
        FakeRun("local/small", "medication_qa", 40, values=[0.25] * 40, seed=4)])
    return path


def _wait_for(driver: Any, css: str, timeout: float = 15) -> list[Any]:
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = driver.find_elements(By.CSS_SELECTOR, css)
        if found:
            return list(found)
        time.sleep(0.1)
    page = driver.find_element(By.TAG_NAME, "body").text[:500]
    raise AssertionError(f"nothing matched {css!r} within {timeout} s; page text: {page}")


def _shot(driver: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / f"{name}.png"))
    assert (SHOTS / f"{name}.png").stat().st_size > 10_000


def _text(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.TAG_NAME, "body").text)


def test_the_static_report_renders_from_file_with_no_request_leaving_it(browser: Any, store: Path,
                                                                        kek_file: Path) -> None:
    from selenium.webdriver.common.by import By

    out = store.parent.parent / "report"
    done = run_cli("report", "--store", str(store), "--out", str(out), env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert done.returncode == 0, done.stderr
    requested_urls(browser)  # the browser's own start page, before anything of ours
    requested: list[str] = []
    browser.get((out / "index.html").as_uri())
    text = _text(browser)
    assert "Leaderboard" in text and "local/big" in text and "PubMedQA" in text and "Mean win rate" in text
    assert text.index("local/big") < text.index("local/small")
    _shot(browser, "report-leaderboard")
    requested += requested_urls(browser)

    browser.get((out / "taxonomy.html").as_uri())
    heat = _text(browser)
    assert "Clinical Decision Support" in heat and "Conducting Literature Research" in heat
    image = browser.find_element(By.CSS_SELECTOR, "img[src$='plots/heatmap.svg']")
    assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image)
    _shot(browser, "report-taxonomy")
    requested += requested_urls(browser)

    browser.get((out / "benchmarks" / "pubmed_qa.html").as_uri())
    sliced = _text(browser)
    assert "local/big · by age_band" in sliced and "65+" in sliced and "Largest gap: " in sliced  # the slice table
    image = browser.find_element(By.CSS_SELECTOR, "img[src$='plots/slices-pubmed_qa.svg']")
    assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image)
    _shot(browser, "report-slices")
    requested += requested_urls(browser)

    browser.get((out / "runs" / f"{JUDGED}.html").as_uri())
    cards = _wait_for(browser, "article.instance")
    assert len(cards) == 40
    first = cards[0].text
    assert "What should I know about drug 0? <script>alert(1)</script>" in first  # shown as text, never run
    assert "Explains drug 0 well." in first and "unparseable" in first and "answer 0" in first
    assert browser.execute_script("return document.querySelectorAll('article script').length") == 0
    _shot(browser, "report-instances")
    requested += requested_urls(browser)

    browser.get((out / "runs" / "pubmed_qa-local_big-ward.html").as_uri())
    assert _wait_for(browser, "article.instance")[0].text.startswith("#1")
    browser.find_element(By.CSS_SELECTOR, "button[data-go='next']").click()
    _wait_for(browser, "article.instance")
    deadline = time.monotonic() + 10
    while "#101" not in _text(browser) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "#101" in _text(browser) and "page 2 of 3" in _text(browser)
    browser.find_element(By.CSS_SELECTOR, "input[data-go='failed']").click()
    deadline = time.monotonic() + 10
    while "request failed: timeout" not in _text(browser) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(browser.find_elements(By.CSS_SELECTOR, "article.instance")) == 3
    requested += requested_urls(browser)

    assert requested and all(url.startswith("file://") for url in requested), [
        u for u in requested if not u.startswith("file://")]
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_the_viewer_pages_load_in_the_browser_after_the_token_link(browser: Any, store: Path, kek_file: Path) -> None:
    from selenium.webdriver.common.by import By

    with serving("--store", str(store), "--port", "0", env={"MEDHELM_KEK_FILE": str(kek_file)}) as viewer:
        requested_urls(browser)  # the browser's own start page
        browser.get(viewer.base)
        assert "needs its access token" in _text(browser)
        browser.get(viewer.link)
        assert browser.current_url == viewer.base  # the token is gone from the address bar
        assert "Leaderboard" in _text(browser) and "local/small" in _text(browser)
        browser.get(viewer.base + "compare")  # an older path: redirected to compare.html
        assert "Paired comparisons" in _text(browser) and "local/small" in _text(browser)
        browser.get(viewer.base + f"runs/{JUDGED}.html")  # the static report's path
        cards = _wait_for(browser, "article.instance")
        assert "Explains drug 0 well." in cards[0].text
        _shot(browser, "viewer-instances")
        browser.get(viewer.base + "taxonomy")
        image = browser.find_element(By.CSS_SELECTOR, "img[src='/plots/heatmap.svg']")
        assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image)
        origin = viewer.base.rstrip("/")
        urls = requested_urls(browser)
        assert urls and all(u.startswith(origin) for u in urls), [u for u in urls if not u.startswith(origin)]
        severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE" and "401" not in e["message"]]
        assert severe == []  # no CSP violation, no failed script
