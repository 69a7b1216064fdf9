"""Raters in the real viewer (`medhelm-local serve` on 127.0.0.1, real HTTP, a real encrypted store): sign-in
links work once, a rater's session reaches the rating pages only, every write needs the session's CSRF token,
revoking ends everything, and the pages are blind."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_cli
from support.raters import JUDGE, MODEL, Browser, add_rater, jury_store
from support.report_viewer import Viewer, serving

from medhelm_local.store.keys import Kek


@pytest.fixture
def env(kek_file: Path) -> dict[str, str]:
    return {"MEDHELM_KEK_FILE": str(kek_file)}


@pytest.fixture
def campaign(tmp_path: Path, kek: Kek, env: dict[str, str]) -> tuple[Path, str, dict[str, str]]:
    """A store, raters dr_a and dr_b (their sign-in tokens), and campaign-1 over 4 answers to both."""
    store, run_id = jury_store(tmp_path / "results", kek)
    links = {name: add_rater(name, env) for name in ("dr_a", "dr_b")}
    done = run_cli("judge", "campaign", "ward", "--output", str(store.parent), "--run", run_id, "--raters",
                   "dr_a,dr_b", "--instances", "4", "--seed", "7", env=env)
    assert done.returncode == 0, done.stderr
    return store, run_id, links


@pytest.fixture
def viewer(campaign: tuple[Path, str, dict[str, str]], env: dict[str, str]) -> Iterator[Viewer]:
    with serving("--store", str(campaign[0]), "--port", "0", env=env) as running:
        yield running


def _audit(env: dict[str, str]) -> list[dict[str, object]]:
    done = run_cli("audit", "show", "--json", env=env)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    return list(data["records"] if isinstance(data, dict) else data)


def test_a_sign_in_link_works_once_and_gives_a_strict_session_cookie(
        viewer: Viewer, campaign: tuple[Path, str, dict[str, str]], env: dict[str, str]) -> None:
    link = campaign[2]["dr_a"]
    rater = Browser(viewer.base)
    status, _, page = rater.request(f"/rate/signin?link={link}")
    assert status == 200 and 'method="post"' in page
    assert rater.request(f"/rate/signin?link={link}")[0] == 200  # a GET (a link preview) does not spend it

    status, headers, _ = rater.request("/rate/signin", {"link": link})

    assert status == 303 and headers["location"] == "/rate"
    cookie = headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    assert link not in headers["set-cookie"]  # the session is a new token, not the link
    status, _, page = rater.request("/rate")
    assert status == 200 and "campaign-1" in page and "0 of 4 done" in page
    assert Browser(viewer.base).sign_in(link) == 403  # used: refused
    assert Browser(viewer.base).sign_in("not-a-link") == 403
    kinds = [r["kind"] for r in _audit(env)]
    assert kinds.count("rater.signed_in") == 1 and kinds.count("rater.sign_in_refused") == 2


def test_a_rater_session_opens_the_rating_pages_only(viewer: Viewer,
                                                    campaign: tuple[Path, str, dict[str, str]]) -> None:
    rater = Browser(viewer.base)
    assert rater.sign_in(campaign[2]["dr_a"]) == 303
    for path in ("/", "/compare", "/methods", "/report.json", "/report.csv", f"/runs/{campaign[1]}",
                 f"/runs/{campaign[1]}/instances"):
        status, headers, body = rater.request(path)
        assert status == 403, path
        assert "default-src 'none'" in headers["content-security-policy"] and MODEL not in body
    # Even with the admin token beside the session, a rater's session stays on the rating pages.
    assert rater.request("/", headers={"Authorization": f"Bearer {viewer.token}"})[0] == 403
    assert Browser(viewer.base).request("/")[0] == 401  # no session, no token: the viewer's own refusal
    assert viewer.authorised("/")[0] == 200  # the admin token still opens the report
    assert Browser(viewer.base).request("/rate")[0] == 401  # the rating pages take a rater's session only
    assert Browser(viewer.base).request("/rate", headers={"Authorization": f"Bearer {viewer.token}"})[0] == 401


def test_writes_need_post_and_the_sessions_csrf_token(viewer: Viewer, campaign: tuple[Path, str, dict[str, str]],
                                                      env: dict[str, str]) -> None:
    rater, other = Browser(viewer.base), Browser(viewer.base)
    rater.sign_in(campaign[2]["dr_a"])
    other.sign_in(campaign[2]["dr_b"])
    page = "/rate/ward/campaign-1/1"
    scores = {"score_accuracy": "4", "score_completeness": "3", "score_clarity": "5", "action": "rate"}

    assert rater.request(page, scores)[0] == 403  # no token
    assert rater.request(page, {**scores, "csrf": "0" * 64})[0] == 403  # a wrong one
    assert rater.request(page, {**scores, "csrf": other.csrf(page)})[0] == 403  # another session's
    assert "0 rated" in rater.request(page)[2]
    for method in ("PUT", "DELETE", "PATCH"):
        assert rater.request(page, method=method)[0] == 405
    assert rater.request("/rate", {"x": "1"})[0] == 405  # the read-only pages are GET only
    for odd in ("/rate/ward/campaign-1/0", "/rate/ward/campaign-1/99999999999999999999", "/rate/ward/campaign-9/1",
                "/rate/nowhere/campaign-1/1", "/rate/ward/campaign-1/x"):
        assert rater.request(odd)[0] == 404, odd
    for odd_score in ("\uff19", "\u00b2", "-1", "9"):  # a full-width 9, a superscript 2, off the scale
        odd_form = {"csrf": rater.csrf(page), "score_accuracy": odd_score, "score_completeness": "3",
                    "score_clarity": "3", "action": "rate"}
        assert rater.request(page, odd_form)[0] == 400, odd_score
    forged = rater.request(page, {**scores, "csrf": rater.csrf(page)}, headers={"Origin": "http://evil.example"})
    assert forged[0] == 403  # a form from another site, even one that somehow holds the token
    cross = rater.request(page, {**scores, "csrf": rater.csrf(page)}, headers={"Sec-Fetch-Site": "cross-site"})
    assert cross[0] == 403

    status, headers, _ = rater.request(page, {**scores, "csrf": rater.csrf(page)})

    assert status == 303 and headers["location"] == "/rate/ward/campaign-1"
    assert rater.request("/rate/ward/campaign-1")[1]["location"] == "/rate/ward/campaign-1/2"  # resumes at the next
    status, _, again = rater.request(page)
    assert "1 rated" in again and re.search(r'value="4"\s+checked', again)
    recorded = [r for r in _audit(env) if r["kind"] == "rating.recorded"]
    assert len(recorded) == 1 and recorded[0]["actor"] == "rater:dr_a"
    assert "4" not in json.dumps(recorded[0]["details"]).replace("campaign", "")  # the scores stay in the store


def test_revoking_a_rater_ends_their_session_and_link(viewer: Viewer, campaign: tuple[Path, str, dict[str, str]],
                                                      env: dict[str, str]) -> None:
    rater = Browser(viewer.base)
    rater.sign_in(campaign[2]["dr_a"])
    assert rater.request("/rate")[0] == 200
    unused = add_rater("dr_c", env)

    assert run_cli("raters", "revoke", "dr_a", env=env).returncode == 0
    assert run_cli("raters", "revoke", "dr_c", env=env).returncode == 0

    assert rater.request("/rate")[0] == 401
    assert rater.request("/rate/ward/campaign-1/1")[0] == 401
    assert Browser(viewer.base).sign_in(unused) == 403
    listed = json.loads(run_cli("raters", "list", "--json", env=env).stdout)["raters"]
    assert {r["name"]: r["revoked_at"] is not None for r in listed} == {"dr_a": True, "dr_b": False, "dr_c": True}


def test_the_rating_page_is_blind(viewer: Viewer, campaign: tuple[Path, str, dict[str, str]]) -> None:
    _, run_id, links = campaign
    first, second = Browser(viewer.base), Browser(viewer.base)
    first.sign_in(links["dr_a"])
    second.sign_in(links["dr_b"])
    page = "/rate/ward/campaign-1/1"
    first.request(page, {"score_accuracy": "2", "score_completeness": "2", "score_clarity": "2", "action": "rate",
                         "comment": "dr_a-private-remark", "csrf": first.csrf(page)})

    seen = ""
    for n in range(1, 5):
        status, _, body = second.request(f"/rate/ward/campaign-1/{n}")
        assert status == 200
        seen += body
    assert "Patient question" in seen and "model answer" in seen and "answer " in seen  # input, answer, reference
    for hidden in (MODEL, "secret-model", "secret_model", run_id, JUDGE, "dr_a", "dr_a-private-remark"):
        assert hidden not in seen, hidden
    assert "<script>alert(1)</script>" not in seen and "&lt;script&gt;" in seen
    # Each rater has their own order of the same four answers.
    inputs = {who: [re.search(r'<pre id="input">(.*?)</pre>', b.request(f"/rate/ward/campaign-1/{n}")[2], re.S)
                    .group(1) for n in range(1, 5)] for who, b in (("a", first), ("b", second))}
    assert sorted(inputs["a"]) == sorted(inputs["b"])
