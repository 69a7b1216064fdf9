"""Two clinicians rate the same answers in headless Chromium (Debian's, through Selenium and its chromedriver),
with real clicks and keys, in the real viewer; then `judge validate` prints the table from the store.

Neither rater sees the model's name, the judges or the other's ratings; a rater's session cannot open the
report; a form without its CSRF token is refused; a revoked rater is refused. A screenshot of the rating
page is saved under .cache/test-screenshots/ (and to docs/screenshots/ when SAVE_DOC_SCREENSHOTS=1).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from support.raters import JUDGE, MODEL, add_rater, jury_store
from support.report_viewer import Viewer, chromium, screenshot, serving, wait_for

from medhelm_local.store.keys import Kek

N = 6


@pytest.fixture
def browsers(tmp_path: Path) -> Iterator[list[Any]]:
    drivers: list[Any] = []
    try:
        drivers.extend(chromium(tmp_path / f"profile-{n}") for n in range(2))
        yield drivers
    finally:
        for driver in drivers:
            driver.quit()


def _text(driver: Any) -> str:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    for _ in range(50):  # a page still replacing the last one
        try:
            return str(driver.find_element(By.TAG_NAME, "body").text)
        except StaleElementReferenceException:
            time.sleep(0.1)
    raise AssertionError("the page never settled")


def _left(driver: Any, old: Any) -> None:
    """Wait until the page that held `old` is gone (a form was sent and the next page is loading)."""
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 15).until(expected_conditions.staleness_of(old))


def _instance(driver: Any) -> int:
    found = re.search(r"Patient question (\d+)", wait_for(driver, "#input").text)
    assert found is not None
    return int(found.group(1))


def _scores(i: int, shift: int) -> dict[str, int]:
    """A clinician who roughly agrees with the jury (which gave accuracy 1 + i % 5)."""
    return {"accuracy": max(1, min(5, 1 + i % 5 + shift)), "completeness": 1 + (i * 3) % 5, "clarity": 4}


def _rate_by_clicks(driver: Any, shift: int, comment: str) -> int:
    from selenium.webdriver.common.by import By

    i = _instance(driver)
    for criterion, value in _scores(i, shift).items():
        driver.find_element(By.CSS_SELECTOR, f"fieldset[data-criterion={criterion}] input[value='{value}'] + span"
                            ).click()
    driver.find_element(By.ID, "comment").send_keys(comment)
    page = driver.find_element(By.ID, "input")
    driver.find_element(By.ID, "save").click()
    _left(driver, page)
    return i


def _press(driver: Any, keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    for key in keys:
        ActionChains(driver).send_keys(key).perform()


def _rate_by_keys(driver: Any, shift: int) -> int:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    i = _instance(driver)
    page = driver.find_element(By.ID, "input")
    _press(driver, "".join(str(v) for v in _scores(i, shift).values()))
    _press(driver, Keys.ENTER)
    _left(driver, page)
    return i


def _sign_in(driver: Any, viewer: Viewer, link: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{viewer.base}rate/signin?link={link}")
    wait_for(driver, "#signin").click()
    wait_for(driver, "a.campaign")
    driver.find_element(By.CSS_SELECTOR, "a.campaign").click()


def test_two_raters_rate_the_same_answers_blind_then_validate_reads_the_store(
        browsers: list[Any], tmp_path: Path, kek: Kek, kek_file: Path) -> None:
    from selenium.webdriver.common.by import By

    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    store, run_id = jury_store(tmp_path / "results", kek, n=N)
    links = {name: add_rater(name, env) for name in ("dr_a", "dr_b")}
    done = run_cli("judge", "campaign", "ward", "--output", str(store.parent), "--run", run_id, "--raters",
                   "dr_a,dr_b", "--instances", str(N), "--overlap", "2", "--seed", "11", env=env)
    assert done.returncode == 0, done.stderr
    first, second = browsers
    seen: dict[str, str] = {"dr_a": "", "dr_b": ""}
    with serving("--store", str(store), "--port", "0", env=env) as viewer:
        # dr_a: clicks; stops after three answers, comes back through the campaign list, resumes at the fourth.
        _sign_in(first, viewer, links["dr_a"])
        wait_for(first, "#progress")
        assert "Answer 1 of 6" in _text(first)
        order_a = []
        for n in range(N):
            if n == 1:
                first.find_element(By.CSS_SELECTOR, "fieldset[data-criterion=accuracy] input[value='3'] + span").click()
                screenshot(first, "rating-page")
            if n == 3:
                first.get(f"{viewer.base}rate")
                wait_for(first, "a.campaign").click()
                assert "Answer 4 of 6 · 3 rated" in wait_for(first, "#progress").text
            seen["dr_a"] += _text(first) + first.page_source
            order_a.append(_rate_by_clicks(first, 0, f"note by dr_a on {n}"))
        assert "All answers of campaign-1 rated" in wait_for(first, "#done").text

        # dr_b: keys only; skips the first answer with S, rates the rest, then goes back to the skipped one.
        _sign_in(second, viewer, links["dr_b"])
        skipped = _instance(second)
        page = second.find_element(By.ID, "input")
        _press(second, "s")
        _left(second, page)
        order_b = []
        for _ in range(N - 1):
            seen["dr_b"] += _text(second) + second.page_source
            order_b.append(_rate_by_keys(second, 1))
        wait_for(second, "#done")
        assert "5 rated, 1 skipped" in _text(second)
        second.find_element(By.CSS_SELECTOR, "ol.queue li:first-child a").click()
        assert _instance(second) == skipped
        seen["dr_b"] += _text(second) + second.page_source
        order_b.append(_rate_by_keys(second, 1))
        wait_for(second, "#done")
        assert "6 rated, 0 skipped" in _text(second)

        assert sorted(order_a) == sorted(order_b) == list(range(N))  # the same answers, each in its own order
        for who, page in seen.items():
            other = "dr_b" if who == "dr_a" else "dr_a"
            for hidden in (MODEL, "secret-model", "secret_model", run_id, JUDGE, "note by dr_a", other):
                assert hidden not in page, f"{who} saw {hidden}"

        # A rater's session opens no report page, even typed into the address bar.
        for path in ("", "compare", f"runs/{run_id}", "report.json"):
            second.get(viewer.base + path)
            assert "rating pages only" in _text(second) and MODEL not in second.page_source

        # A form stripped of its CSRF token is refused, and nothing changes.
        second.get(f"{viewer.base}rate/ward/campaign-1/1")
        wait_for(second, "#save")
        second.execute_script("document.querySelector('input[name=csrf]').remove()")
        page = second.find_element(By.ID, "input")
        second.find_element(By.ID, "save").click()
        _left(second, page)
        assert "CSRF token is missing" in _text(second)

        # Revoked: the session ends at once, and a revoked rater's unused link signs no one in.
        unused = add_rater("dr_c", env)
        assert run_cli("raters", "revoke", "dr_b", env=env).returncode == 0
        assert run_cli("raters", "revoke", "dr_c", env=env).returncode == 0
        second.get(f"{viewer.base}rate")
        assert "Sign in with the link" in _text(second)
        second.get(f"{viewer.base}rate/signin?link={unused}")
        wait_for(second, "#signin").click()
        assert "does not work" in wait_for(second, "#refused").text

    table = run_cli("judge", "validate", "ward", "--output", str(store.parent), "--campaign", "campaign-1",
                    "--jury", "medhelm", env=env)
    assert table.returncode == 0, table.stderr
    assert "MedHELM's validation table" in table.stdout and "jury vs clinicians" in table.stdout
    assert "Clinicians: dr_a, dr_b" in table.stdout
    audit = run_cli("audit", "show", env=env).stdout
    assert audit.count("rating.recorded") == 2 * N + 1 and audit.count("rater.signed_in") == 2
