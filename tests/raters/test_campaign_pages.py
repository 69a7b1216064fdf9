"""Rating campaigns started from the real viewer (`medhelm-local serve` on 127.0.0.1, real HTTP, a real encrypted
store and audit log): only the viewer's own session may start one, with the page's CSRF token, from the same site;
who started it is the viewer's user, never the form; raters are the active ones in a role of roles.yaml."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SHIPPED_POLICIES, isolate, run_cli
from support.raters import Browser, add_rater, jury_store
from support.report_viewer import Viewer, serving

from medhelm_local.policy.identity import current_actor
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek, write_new_kek

ROLES = "roles:\n"
NURSE = "  nurse_rater:\n    description: Rates answers on the wards (a role this test later removes).\n"


Setup = tuple[Path, str, dict[str, str], dict[str, str]]


def _make_setup(root: Path, kek: Kek, kek_file: Path) -> Setup:
    policies = root / "policies"
    shutil.copytree(SHIPPED_POLICIES, policies)
    roles = policies / "roles.yaml"
    shipped = roles.read_text()
    roles.write_text(shipped.replace(ROLES, ROLES + NURSE))
    env = {"MEDHELM_KEK_FILE": str(kek_file), "MEDHELM_POLICY_DIR": str(policies)}
    store, run_id = jury_store(root / "results", kek, n=12)
    links = {name: add_rater(name, env) for name in ("dr_a", "dr_b")}
    links["nurse_c"] = add_rater("nurse_c", env, role="nurse_rater")
    roles.write_text(shipped)
    return store, run_id, env, links


@pytest.fixture
def setup(tmp_path: Path, kek: Kek, kek_file: Path) -> Setup:
    """A store of 12 jury-rated answers; raters dr_a, dr_b (clinicians) and nurse_c, whose role the policy dropped
    after she was added: (store, run id, env, sign-in links). For a test that changes them (starts a campaign,
    revokes a rater)."""
    return _make_setup(tmp_path, kek, kek_file)


@pytest.fixture
def viewer(setup: Setup) -> Iterator[Viewer]:
    with serving("--store", str(setup[0]), "--port", "0", env=setup[2]) as running:
        yield running


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Viewer, Setup, Kek]]:
    """`setup` and its running viewer made once for the tests whose forms are refused: each of them asserts no
    campaign was made, so each finds them as the first did. Three `raters add` and a `serve` start fewer a test."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(tmp_path_factory, monkeypatch)
        root = tmp_path_factory.mktemp("campaign-pages")
        kek_file = root / "kek"
        kek = write_new_kek(kek_file)
        made = _make_setup(root, kek, kek_file)
        with serving("--store", str(made[0]), "--port", "0", env=made[2]) as running:
            yield running, made, kek


def _admin(viewer: Viewer) -> Browser:
    admin = Browser(viewer.base)
    status, _, _ = admin.request(f"/?token={viewer.token}")
    assert status == 303
    return admin


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert found is not None, page[:800]
    return found.group(1)


def _campaigns(store: Path, kek: Kek) -> list[tuple[str, str, str]]:
    handle = open_store(store, kek, read_only=True)
    try:
        return [(r[0], r[1], r[2]) for r in handle.con.execute(
            "SELECT campaign_id, raters_json, created_by FROM rating_campaigns ORDER BY campaign_id").fetchall()]
    finally:
        handle.close()


def _audit(env: dict[str, str]) -> list[dict[str, object]]:
    done = run_cli("audit", "show", "--json", env=env)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_the_viewers_user_starts_a_campaign_and_its_raters_get_their_queues(
        viewer: Viewer, setup: Setup, kek: Kek) -> None:
    store, run_id, env, links = setup
    admin = _admin(viewer)
    status, headers, page = admin.request("/campaigns")
    assert status == 200 and "content-security-policy" in headers
    assert run_id in page and "12 answers" in page and "No campaign yet" in page
    assert 'value="dr_a"' in page and 'value="dr_b"' in page
    assert "nurse_c" not in page  # her role is no longer in roles.yaml

    form = [("csrf", _csrf(page)), ("run", f"ward/{run_id}"), ("rater", "dr_a"), ("rater", "dr_b"),
            ("instances", ""), ("target_width", "0.9"), ("overlap", "2"), ("seed", "5"),
            ("created_by", "someone_else"), ("role", "compliance_officer")]  # not fields: ignored
    status, headers, _ = admin.request("/campaigns", form)

    assert status == 303 and headers["location"] == "/campaigns?store=ward&done=campaign-1"
    status, _, page = admin.request(headers["location"])
    assert status == 200 and 'id="started">campaign-1<' in page
    assert "Bonett&#39;s (2002) precision method" in page and "0.90 wide" in page  # the sizing's reasoning
    me = current_actor()
    assert _campaigns(store, kek) == [("campaign-1", '["dr_a", "dr_b"]', me)]
    created = [r for r in _audit(env) if r["kind"] == "campaign.created"]
    assert len(created) == 1 and created[0]["actor"] == me
    details = created[0]["details"]
    assert isinstance(details, dict) and details["from"] == "viewer" and details["raters"] == ["dr_a", "dr_b"]
    # The raters find it in their own queue, blind as ever.
    rater = Browser(viewer.base)
    assert rater.sign_in(links["dr_b"]) == 303
    status, _, home = rater.request("/rate")
    assert status == 200 and "ward · campaign-1" in home and f"0 of {details['instances']} done" in home
    assert run_id not in home


def test_only_the_viewers_session_may_start_a_campaign_and_only_with_the_pages_token(
        shared: tuple[Viewer, Setup, Kek]) -> None:
    viewer, (store, run_id, _, links), kek = shared
    admin = _admin(viewer)
    csrf = _csrf(admin.request("/campaigns")[2])
    form = [("run", f"ward/{run_id}"), ("rater", "dr_a"), ("rater", "dr_b"), ("instances", "4")]

    stranger = Browser(viewer.base)
    assert stranger.request("/campaigns")[0] == 401
    assert stranger.request("/campaigns", [("csrf", csrf), *form])[0] == 401
    rater = Browser(viewer.base)
    assert rater.sign_in(links["dr_a"]) == 303
    status, _, body = rater.request("/campaigns")
    assert status == 403 and run_id not in body
    rater.cookies.update(admin.cookies)  # even holding the viewer's cookie too, a rater's session is refused
    assert rater.request("/campaigns", [("csrf", csrf), *form])[0] == 403
    assert admin.request("/campaigns", form)[0] == 403  # no CSRF token
    assert admin.request("/campaigns", [("csrf", "0" * 64), *form])[0] == 403
    cross = admin.request("/campaigns", [("csrf", csrf), *form], headers={"Sec-Fetch-Site": "cross-site"})
    assert cross[0] == 403
    assert admin.request("/campaigns", method="PUT")[0] == 405

    assert _campaigns(store, kek) == []


@pytest.mark.parametrize(("fields", "message"), [
    ([("rater", "dr_a"), ("rater", "nurse_c")], "not active raters in a role of the policy: nurse_c"),
    ([("rater", "dr_a"), ("rater", "dr_z")], "not active raters in a role of the policy: dr_z"),
    ([("rater", "dr_a")], "cannot give each answer 2 ratings"),
    ([("rater", "dr_a"), ("rater", "dr_b"), ("instances", "13")], "12 answered instance(s); 13 cannot be drawn"),
    ([("rater", "dr_a"), ("rater", "dr_b"), ("overlap", "two")], "not a whole number from 2 to 100"),
    ([("rater", "dr_a"), ("rater", "dr_b"), ("target_width", "wide")], "not an interval width"),
])
def test_a_form_the_campaign_cannot_come_from_is_shown_again_with_why(
        shared: tuple[Viewer, Setup, Kek], fields: list[tuple[str, str]], message: str) -> None:
    viewer, (store, run_id, _, _), kek = shared
    admin = _admin(viewer)
    csrf = _csrf(admin.request("/campaigns")[2])

    status, _, page = admin.request("/campaigns", [("csrf", csrf), ("run", f"ward/{run_id}"), *fields])

    assert status == 400 and 'id="error"' in page and "Traceback" not in page
    assert message in page.replace("&#39;", "'")
    assert 'id="start"' in page  # the form again, to correct
    assert _campaigns(store, kek) == []


def test_a_revoked_rater_is_not_offered(viewer: Viewer, setup: Setup, kek: Kek) -> None:
    store, run_id, env, _ = setup
    admin = _admin(viewer)
    csrf = _csrf(admin.request("/campaigns")[2])
    assert run_cli("raters", "revoke", "dr_b", env=env).returncode == 0  # while the viewer runs

    status, _, page = admin.request("/campaigns")
    refused = admin.request("/campaigns", [("csrf", csrf), ("run", f"ward/{run_id}"), ("rater", "dr_a"),
                                           ("rater", "dr_b")])

    assert status == 200 and 'value="dr_b"' not in page and "1 active rater(s) hold a role" in page
    assert refused[0] == 400 and "not active raters in a role of the policy: dr_b" in refused[2]
    assert _campaigns(store, kek) == []
