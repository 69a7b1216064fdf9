"""The viewer's user starts a rating campaign in headless Chromium (Debian's, through Selenium), with real clicks and
keys, and a rater signed in beside them finds it in their queue. A screenshot of the campaign page is saved under
.cache/test-screenshots/ (and to docs/screenshots/ when SAVE_DOC_SCREENSHOTS=1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support.raters import MODEL, Browser, add_rater, jury_store
from support.report_viewer import screenshot, serving, wait_for

from medhelm_local.policy.identity import current_actor
from medhelm_local.store.keys import Kek


def test_the_viewers_user_starts_a_campaign_by_clicks_and_a_rater_finds_it(
        browser: Any, tmp_path: Path, kek: Kek, kek_file: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    store, run_id = jury_store(tmp_path / "results", kek, n=12)
    links = {name: add_rater(name, env) for name in ("dr_a", "dr_b", "dr_c")}
    with serving("--store", str(store), "--port", "0", env=env) as viewer:
        browser.get(viewer.link)
        browser.get(f"{viewer.base}campaigns")
        assert wait_for(browser, "#actor").text == current_actor()
        Select(browser.find_element(By.ID, "run")).select_by_value(f"ward/{run_id}")
        for name in ("dr_a", "dr_c"):
            browser.find_element(By.CSS_SELECTOR, f"input[name=rater][value={name}]").click()
        box = browser.find_element(By.ID, "instances")
        box.send_keys("10")
        box.send_keys(Keys.ENTER)  # the form's submit, as a keyboard user sends it

        assert wait_for(browser, "#started").text == "campaign-1"
        done = browser.find_element(By.ID, "done").text
        assert "10 answers of" in done and "dr_a, dr_c" in done and "10 answers, as asked" in done
        row = browser.find_element(By.CSS_SELECTOR, "tr[data-campaign=campaign-1]")
        assert "0 of 20" in row.text and current_actor() in row.find_element(By.CSS_SELECTOR, ".by").text
        screenshot(browser, "campaign-page")

        # A form of this page without its CSRF token is refused, and starts nothing.
        browser.get(f"{viewer.base}campaigns")
        wait_for(browser, "#start")
        browser.execute_script("document.querySelector('input[name=csrf]').remove()")
        for name in ("dr_a", "dr_b"):
            browser.find_element(By.CSS_SELECTOR, f"input[name=rater][value={name}]").click()
        browser.find_element(By.ID, "start-campaign").click()
        wait_for(browser, "pre")
        assert "CSRF token is missing or wrong" in browser.find_element(By.TAG_NAME, "body").text
        browser.get(f"{viewer.base}campaigns")
        assert len(browser.find_elements(By.CSS_SELECTOR, "tr[data-campaign]")) == 1

        rater, left_out = Browser(viewer.base), Browser(viewer.base)
        assert rater.sign_in(links["dr_c"]) == 303 and left_out.sign_in(links["dr_b"]) == 303
        status, _, home = rater.request("/rate")
        assert status == 200 and "ward · campaign-1" in home and "0 of 10 done" in home and MODEL not in home
        assert "campaign-1" not in left_out.request("/rate")[2]
