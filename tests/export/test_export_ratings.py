"""Judge ratings leave as an artifact of their own: explanations redacted like any free text."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from support.appliance import Appliance
from support.phi_store import PRIVATE_IDS, PRIVATE_RUN, PUBLIC_IDS, PUBLIC_RUN
from support.review import approved_review

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek
from medhelm_local.store.writer import StoreWriter, row_of

NAME = "Przybylski"


def _add_ratings(appliance: Appliance, kek: Kek) -> None:
    handle = open_store(appliance.store, kek)
    try:
        writer = StoreWriter(handle)
        for run_id, instance_id in ((PRIVATE_RUN, PRIVATE_IDS[0]), (PUBLIC_RUN, PUBLIC_IDS[0])):
            # Public data leaves as it is (export.yaml); the private run's judge quotes the patient.
            said = f"Correct for Mr. {NAME}, MRN 48213377." if run_id == PRIVATE_RUN else "Correct."
            ratings = {"accuracy": {"score": 4, "explanation": said},
                       "clarity": {"score": 5, "explanation": "Clear."}}
            writer.put("ratings", row_of("ratings", run_id=run_id, instance_id=instance_id, jury="local",
                                         judge="judge-a", rubric="clinical_text", ok=True,
                                         ratings_json=json.dumps(ratings), mean=4.5, latency_s=0.2, attempts=1))
            writer.put("ratings", row_of("ratings", run_id=run_id, instance_id=instance_id, jury="local",
                                         judge="judge-b", rubric="clinical_text", ok=False,
                                         error_type="unparseable",
                                         error_message=f"the reply holds no JSON object: '{said}'"))
        writer.close()
    finally:
        handle.close()


def test_ratings_leave_redacted_under_the_same_pseudonyms_and_the_judges_free_text_is_scrubbed(
        appliance: Appliance, kek: Kek, bundle_files: Callable[[Path], dict[str, bytes]]) -> None:
    _add_ratings(appliance, kek)
    review_id = approved_review(appliance, kek)  # the judges' explanations are free text: a person reads them first

    done = appliance.cli("export", "ward", "--to", str(appliance.root / "out"), "--role", "compliance_officer",
                         "--review", review_id)

    assert done.returncode == 0, done.stderr
    files = bundle_files(appliance.root / "out")
    assert NAME.encode() not in b"\n".join(files.values()) and b"48213377" not in b"\n".join(files.values())
    rows = [json.loads(line) for line in files["ratings.jsonl"].decode().splitlines()]
    private = [r for r in rows if r["run_id"] == PRIVATE_RUN]
    answers = {json.loads(line)["instance"] for line in files["completions.jsonl"].decode().splitlines()
               if PRIVATE_RUN in line}
    assert {r["instance"] for r in private} <= answers  # the same pseudonym as the answer it rates
    rated = next(r for r in private if r["ok"])
    assert rated["ratings"]["accuracy"]["score"] == 4 and "[NAME]" in rated["ratings"]["accuracy"]["explanation"]
    # A failed judge's message can quote the prompt, and private prompts never leave: left out.
    failed = next(r for r in private if not r["ok"])
    assert failed["error_type"] == "unparseable" and "error_message" not in failed
    public = next(r for r in rows if r["run_id"] == PUBLIC_RUN and r["ok"])
    assert public["instance"] == PUBLIC_IDS[0]  # public data leaves as it is
    manifest = json.loads(files["MANIFEST.json"])
    assert {"run_id": PRIVATE_RUN, "artifact": "ratings.error_message",
            "reason": "it can hold prompts text, and prompts may not leave for this run"} in manifest["withheld"]


def test_a_role_that_may_not_take_answers_gets_the_scores_of_ratings_without_their_explanations(
        appliance: Appliance, kek: Kek, bundle_files: Callable[[Path], dict[str, bytes]]) -> None:
    _add_ratings(appliance, kek)

    done = appliance.cli("export", "ward", "--to", str(appliance.root / "out"), "--role", "data_scientist",
                         "--include", "aggregates,scores,ratings")

    # Numbers only (the explanations may not leave without the answers): no review is needed, and none was given.
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in bundle_files(appliance.root / "out")["ratings.jsonl"].decode().splitlines()]
    assert rows and all("ratings" not in r for r in rows)
    assert {r["mean"] for r in rows if r["ok"]} == {4.5}
