"""A review end to end in headless Chromium (Debian's, through Selenium), with real clicks and keys: an export of a
private run waits; the compliance officer, in the viewer, flags a name the redactor missed; the export is refused
until the name is masked and the text approved; the audit log shows each step.

The officer is another person than whoever asked for the export: their viewer runs as another Unix user (a user
namespace, `unshare --user --map-user`), which is where `current_actor()` reads identity from. A screenshot of
the review page is saved under .cache/test-screenshots/ (and to docs/screenshots/ with SAVE_DOC_SCREENSHOTS=1).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from typing import Any

import pytest
from support.appliance import Appliance
from support.report_viewer import screenshot, serving, wait_for
from support.review import MISSED, request_review, under_review

from medhelm_local.store.keys import Kek

OTHER_USER = ("unshare", "--user", "--map-user=4242", "--map-group=4242")


def _other_user_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    done = subprocess.run([*OTHER_USER, "true"], capture_output=True)
    return done.returncode == 0


def _shows(driver: Any, css: str, text: str, timeout: float = 15) -> bool:
    """Wait until the element at `css` holds `text`: a click's next page may still be loading, and the element
    found on the page before it goes stale."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if any(text in e.text for e in driver.find_elements(By.CSS_SELECTOR, css)):
                return True
        except StaleElementReferenceException:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{css!r} never showed {text!r}; page: {driver.page_source[:800]}")


def _export(app: Appliance, to: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return app.cli("export", "ward", "--to", str(app.root / to), "--role", "compliance_officer", *extra)


def test_an_officer_flags_a_missed_name_and_the_export_waits_until_it_is_fixed_and_approved(
        browser: Any, appliance: Appliance, kek: Kek) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    if not _other_user_works():
        pytest.skip("user namespaces are not available here (unshare --user): the officer needs another identity")
    app = under_review(appliance, kek)
    waiting = _export(app, "first")
    assert waiting.returncode == 5 and "waits for a review" in waiting.stderr, waiting.stderr
    review_id = request_review(app)
    env = {**app.env, "MEDHELM_CONFIG": str(app.config)}
    with serving("--store", str(app.store), "--port", "0", env=env, prefix=OTHER_USER) as viewer:
        browser.get(viewer.link)
        browser.get(f"{viewer.base}review")
        assert "uid 4242" in wait_for(browser, "#actor").text
        wait_for(browser, f"a[href='/review/{review_id}']").click()
        wait_for(browser, "mark.redaction")
        marks = browser.find_elements(By.CSS_SELECTOR, "pre.text mark.redaction")
        shown = [(m.get_attribute("title"), m.get_attribute("textContent")) for m in marks]  # scrolled away too
        assert {text for _, text in shown} >= {"[NAME]", "[MRN]", "[PHONE]"}
        assert all(text == f"[{kind}]" for kind, text in shown), shown
        section = next(s for s in browser.find_elements(By.CSS_SELECTOR, "section.value") if MISSED in s.text)
        browser.execute_script("arguments[0].scrollIntoView()", section)
        screenshot(browser, "review-page")
        # The officer types the missed name into that value's box and presses Enter (the form's submit).
        box = section.find_element(By.CSS_SELECTOR, "input.missed")
        box.send_keys(MISSED)
        box.send_keys(Keys.ENTER)
        flagged = wait_for(browser, "mark.flagged")
        assert flagged.text == MISSED and _shows(browser, "#done", "flagged")
        assert not browser.find_element(By.ID, "approve").is_enabled()
        assert "missed identifier(s) flagged" in browser.find_element(By.ID, "blocked").text

        refused = _export(app, "second", "--review", review_id)
        assert refused.returncode == 5 and "is flagged, not approved" in refused.stderr, refused.stderr
        assert not (app.root / "second").exists()

        browser.find_element(By.ID, "send-back").click()
        assert _shows(browser, "#status", "sent back")
        fixed = app.cli("review", "resubmit", review_id, "--mask-flagged")
        assert fixed.returncode == 0, fixed.stderr

        browser.get(f"{viewer.base}review/{review_id}")
        assert _shows(browser, "#status", "pending") and MISSED not in browser.page_source
        assert "Round 2" in browser.find_element(By.TAG_NAME, "body").text
        browser.find_element(By.ID, "approve").click()
        assert _shows(browser, "#status", "approved")

    done = _export(app, "bundle", "--review", review_id)
    assert done.returncode == 0, done.stderr
    bundle = app.root / "bundle"
    assert all(MISSED.encode() not in p.read_bytes() for p in bundle.iterdir())
    manifest = json.loads((bundle / "MANIFEST.json").read_text())
    assert manifest["review"]["approved_by"] == "uid 4242" and manifest["created_by"]["user"] != "uid 4242"
    assert app.cli("verify", str(bundle), "--public-key", str(app.public_key)).returncode == 0
    steps = [(r["kind"], r["actor"]) for r in app.audit_records()
             if r["kind"].startswith(("review.", "export.refused", "export.allowed"))]
    me = manifest["created_by"]["user"]
    assert steps == [("export.refused", me), ("review.requested", me), ("review.flagged", "uid 4242"),
                     ("export.refused", me), ("review.sent_back", "uid 4242"), ("review.resubmitted", me),
                     ("review.approved", "uid 4242"), ("export.allowed", me)]
    assert app.cli("audit", "verify").returncode == 0
