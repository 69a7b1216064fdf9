"""A private run's text on the rating pages, as each rater's role may see it (roles.yaml, `sensitive_text`): the
real viewer over real HTTP, a real encrypted store, the shipped redaction rule pack."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import run_cli
from support.raters import Browser, add_rater, jury_store
from support.report_viewer import serving

from medhelm_local.raters.campaigns import RatingItem
from medhelm_local.raters.shown_text import TextView
from medhelm_local.settings import default_redaction_dir
from medhelm_local.store.keys import Kek

PATIENT = "Maria Gonzalez"
ROOT = Path(__file__).resolve().parents[2]


def _note(i: int) -> str:
    return f"Patient {PATIENT}, seen on 03/14/2024 at Mercy General, asks: can I take drug {i} with food?"


def _policies(folder: Path) -> Path:
    """The shipped policy, plus a role whose raters may read private text as stored."""
    shutil.copytree(ROOT / "policies", folder)
    roles = folder / "roles.yaml"
    roles.write_text(roles.read_text() + "  attending:\n    description: Physicians of the ward, who read these "
                     "records anyway.\n    sensitive_text: full\n")
    return folder


def test_a_redacted_role_never_sees_a_private_runs_names_and_a_full_one_does(tmp_path: Path, kek: Kek,
                                                                             kek_file: Path) -> None:
    env = {"MEDHELM_KEK_FILE": str(kek_file), "MEDHELM_POLICY_DIR": str(_policies(tmp_path / "policies"))}
    store, run_id = jury_store(tmp_path / "results", kek, n=4, access="private", prompt=_note)
    links = {"dr_red": add_rater("dr_red", env), "dr_full": add_rater("dr_full", env, role="attending")}
    done = run_cli("judge", "campaign", "ward", "--output", str(store.parent), "--run", run_id, "--raters",
                   "dr_red,dr_full", "--instances", "4", "--seed", "3", env=env)
    assert done.returncode == 0, done.stderr

    seen = {}
    with serving("--store", str(store), "--port", "0", env=env) as viewer:
        for name, link in links.items():
            rater = Browser(viewer.base)
            assert rater.sign_in(link) == 303
            pages = [rater.request(f"/rate/ward/campaign-1/{n}") for n in range(1, 5)]
            assert all(status == 200 for status, _, _ in pages)
            seen[name] = "".join(body for _, _, body in pages)

    assert PATIENT not in seen["dr_red"] and "Gonzalez" not in seen["dr_red"] and "03/14/2024" not in seen["dr_red"]
    assert "Patient [NAME], seen on [DATE]" in seen["dr_red"] and "can I take drug" in seen["dr_red"]
    assert seen["dr_full"].count(PATIENT) == 4 and "[NAME]" not in seen["dr_full"]


def test_unknown_roles_and_access_levels_get_the_redacted_text() -> None:
    view = TextView({"clinician": "redacted", "attending": "full"}, default_redaction_dir())
    item = RatingItem(1, 1, _note(1), f"Ask {PATIENT} to call.", f"{PATIENT} may.", {}, False, "", "private")

    for role, access in (("clinician", "private"), ("gone_from_policy", "private"), ("attending", "restricted"),
                         ("clinician", "gated")):
        shown = view.shown(RatingItem(**{**item.__dict__, "access": access}), role)
        assert PATIENT not in shown.input + shown.answer + (shown.reference or ""), (role, access)
    assert view.shown(item, "attending") == item
    public = RatingItem(**{**item.__dict__, "access": "public"})
    assert view.shown(public, "clinician") == public
