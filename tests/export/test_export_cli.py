"""`medhelm-local export` as a compliance officer uses it: what leaves, what is refused, what is recorded."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from support.appliance import Appliance
from support.phi_store import PLANTED, PRIVATE_IDS, PRIVATE_RUN, PUBLIC_IDS, PUBLIC_RUN, PUBLIC_WORDS
from support.review import OFFICER, approved_review, review_not_required

from medhelm_local.store.keys import Kek


def _audit(app: Appliance) -> list[dict[str, object]]:
    """The export attempts' outcomes (a review's records, where one was needed, left out)."""
    return [r for r in app.audit_records(outcomes_only=True) if not r["kind"].startswith("review.")]


def test_an_allowed_export_holds_none_of_the_planted_phi(appliance: Appliance, kek: Kek,
                                                         bundle_files: Callable[[Path], dict[str, bytes]]) -> None:
    # The private run's answers leave only after a compliance officer approved them (the shipped policy's review).
    review_id = approved_review(appliance, kek)
    done = appliance.cli("export", "ward", "--to", str(appliance.root / "out"), "--role", "compliance_officer",
                         "--review", review_id)
    assert done.returncode == 0, done.stderr
    files = bundle_files(appliance.root / "out")
    text = {name: data.decode() for name, data in files.items()}
    assert set(files) == {"MANIFEST.json", "MANIFEST.json.sig", "runs.json", "aggregates.json", "scores.jsonl",
                          "completions.jsonl", "prompts.jsonl"}
    blob = b"\n".join(files.values())
    for value in [*PLANTED, *PRIVATE_IDS]:
        assert value.encode() not in blob, f"{value!r} left in the bundle"
    # Private prompts never leave (export.yaml: private prompts: never), public ones do, as they are.
    prompts = [json.loads(line) for line in text["prompts.jsonl"].splitlines()]
    assert {p["run_id"] for p in prompts} == {PUBLIC_RUN}
    assert prompts[0]["instance"] == PUBLIC_IDS[0] and PUBLIC_WORDS in prompts[0]["prompt"]
    # Private answers leave redacted, under pseudonyms shared by every file of the bundle.
    answers = [json.loads(line) for line in text["completions.jsonl"].splitlines() if PRIVATE_RUN in line]
    assert "[NAME]" in answers[0]["text"] and "[PHONE]" in answers[0]["text"] and "meets criteria" in answers[0]["text"]
    # A server's error message can echo the prompt, and private prompts never leave: it is left out.
    assert answers[1]["ok"] is False and "error_message" not in answers[1] and answers[1]["error_type"] == "http_500"
    scores = [json.loads(line) for line in text["scores.jsonl"].splitlines() if PRIVATE_RUN in line]
    assert scores[0]["instance"] == answers[0]["instance"] and scores[0]["instance"].startswith("i-")
    manifest = json.loads(text["MANIFEST.json"])
    assert manifest["created_by"]["role"] == "compliance_officer"
    assert manifest["review"]["id"] == review_id and manifest["review"]["approved_by"] == OFFICER
    assert manifest["redactions"]["NAME"] == 2 and manifest["redactions"]["PHONE"] == 1  # answer, extracted
    # The error message and a reasoning model's thinking can quote the prompt: they leave only where prompts may.
    assert {w["artifact"] for w in manifest["withheld"]} == {"prompts", "completions.error_message",
                                                             "completions.reasoning"}
    assert manifest["runs"][0]["artifacts"]["prompts"]["treatment"] in ("never", "as_is")
    assert manifest["policy"]["sha256"] and manifest["redactor"]["rule_pack_sha256"]
    verified = appliance.cli("verify", str(appliance.root / "out"), "--public-key", str(appliance.public_key))
    assert verified.returncode == 0 and "signature valid, 5 file(s)" in verified.stdout, verified.stderr
    [record] = _audit(appliance)
    assert record["kind"] == "export.allowed"
    assert record["details"]["manifest_sha256"] in done.stdout  # type: ignore[index]


def test_unredacted_private_data_is_refused_written_nowhere_and_recorded(appliance: Appliance) -> None:
    out = appliance.root / "raw"
    refused = appliance.cli("export", "ward", "--to", str(out), "--role", "compliance_officer", "--unredacted")
    assert refused.returncode == 5
    assert "never leaves unredacted" in refused.stderr and "Traceback" not in refused.stderr
    assert not out.exists() and not list(appliance.root.glob(".raw*"))
    [record] = _audit(appliance)
    assert record["kind"] == "export.refused" and record["details"]["unredacted_requested"] is True  # type: ignore[index]
    assert "never leaves unredacted" in json.dumps(record["details"])
    for value in PLANTED:
        assert value not in refused.stderr and value not in json.dumps(record)


def test_a_role_gets_only_what_the_policy_grants_it(appliance: Appliance,
                                                    bundle_files: Callable[[Path], dict[str, bytes]]) -> None:
    asked = appliance.cli("export", "ward", "--to", str(appliance.root / "ds"), "--role", "data_scientist",
                          "--include", "completions")
    assert asked.returncode == 5 and "may not export completions" in asked.stderr
    plain = appliance.cli("export", "ward", "--to", str(appliance.root / "ds"), "--role", "data_scientist")
    assert plain.returncode == 0, plain.stderr
    assert set(bundle_files(appliance.root / "ds")) == {"MANIFEST.json", "MANIFEST.json.sig", "runs.json",
                                                        "aggregates.json", "scores.jsonl"}
    nobody = appliance.cli("export", "ward", "--to", str(appliance.root / "it"), "--role", "it_admin")
    assert nobody.returncode == 5 and "may not export anything" in nobody.stderr
    assert [r["kind"] for r in _audit(appliance)] == ["export.refused", "export.allowed", "export.refused"]


def test_one_run_can_be_exported_by_its_id(appliance: Appliance, bundle_files: Callable[[Path], dict[str, bytes]]
                                           ) -> None:
    # A unique beginning of the id, as a user types it from `runs list`, names the run as the whole id does.
    done = appliance.cli("export", PUBLIC_RUN[:8], "--to", str(appliance.root / "one"), "--role",
                         "compliance_officer", "--unredacted", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["runs"] == [PUBLIC_RUN]
    runs = json.loads(bundle_files(appliance.root / "one")["runs.json"])
    assert [r["run_id"] for r in runs] == [PUBLIC_RUN] and runs[0]["access"] == "public"


def test_bad_requests_are_clear_errors_that_leave_nothing(appliance: Appliance) -> None:
    (appliance.root / "full").mkdir()
    (appliance.root / "full" / "old.txt").write_text("x")
    cases = [
        # Numbers only, which need no review: the folder is checked when the bundle is written.
        (["export", "ward", "--to", str(appliance.root / "full"), "--role", "compliance_officer", "--include",
          "aggregates,scores"], 2, "not an empty folder"),
        (["export", "nosuch", "--to", str(appliance.root / "n"), "--role", "compliance_officer"], 2,
         "neither a suite nor a run id"),
        (["export", "ward", "--to", str(appliance.root / "n"), "--role", "compliance_officer", "--include",
          "notes"], 2, "not an artifact"),
    ]
    for args, code, words in cases:
        done = appliance.cli(*args)
        assert done.returncode == code and words in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not (appliance.root / "n").exists()
    assert (appliance.root / "full" / "old.txt").read_text() == "x"


def test_without_a_signing_key_nothing_leaves_and_the_attempt_is_recorded(appliance: Appliance) -> None:
    appliance.config.write_text(appliance.config.read_text().replace("signing_key_file", "# signing_key_file"))
    done = appliance.cli("export", "ward", "--to", str(appliance.root / "unsigned"), "--role", "compliance_officer")
    assert done.returncode == 2 and "keys signing-init" in done.stderr
    assert not (appliance.root / "unsigned").exists()
    assert [r["kind"] for r in _audit(appliance)] == ["export.failed"]


def test_residual_phi_after_redaction_refuses_the_export(appliance: Appliance, tmp_path: Path) -> None:
    # A rule pack whose extra rule only fires next to a mask: what the first pass leaves, the rescan finds.
    from shutil import copytree

    from conftest import REPO

    pack = copytree(REPO / "redaction", tmp_path / "pack")
    rules = (pack / "rules.yaml").read_text()
    extra = ("  - {name: after_mask, type: NAME, group: v, regex: '\\]\\)\\s(?P<v>meets)(?![\\w])'}\n")
    (pack / "rules.yaml").write_text(rules.replace("\npatterns:\n", "\npatterns:\n" + extra, 1))
    with appliance.config.open("a") as fh:
        fh.write(f'redaction_dir = "{pack}"\n')
    appliance.approve()
    review_not_required(appliance, "this test is about the gate's rescan, which runs before any review could")
    done = appliance.cli("export", "ward", "--to", str(appliance.root / "leaky"), "--role", "compliance_officer")
    assert done.returncode == 5, done.stderr
    assert "still holds detectable PHI" in done.stderr and f"run {PRIVATE_RUN}" in done.stderr
    assert "field text: NAME" in done.stderr and "meets" not in done.stderr  # where, never what
    assert not (appliance.root / "leaky").exists()
    [record] = _audit(appliance)
    assert record["kind"] == "export.refused"


def test_surrogate_style_replaces_phi_consistently_and_passes_the_rescan(
        appliance: Appliance, kek: Kek, bundle_files: Callable[[Path], dict[str, bytes]]) -> None:
    appliance.edit_policy("export.yaml", "style: mask", "style: surrogate")
    review_id = approved_review(appliance, kek)  # the reviewer reads the surrogates, as they would leave
    done = appliance.cli("export", "ward", "--to", str(appliance.root / "sur"), "--role", "compliance_officer",
                         "--review", review_id)
    assert done.returncode == 0, done.stderr
    files = bundle_files(appliance.root / "sur")
    blob = b"\n".join(files.values())
    for value in [*PLANTED, *PRIVATE_IDS]:
        assert value.encode() not in blob, f"{value!r} left in the bundle"
    answers = [json.loads(line) for line in files["completions.jsonl"].decode().splitlines() if PRIVATE_RUN in line]
    extracted = [json.loads(line) for line in files["scores.jsonl"].decode().splitlines() if PRIVATE_RUN in line]
    text = answers[0]["text"]
    assert "[" not in text and text.startswith("Mr. ") and "meets criteria; call (" in text
    surname = text.split()[1]
    assert surname in extracted[0]["extracted"]  # one instance, one surrogate for one original
    assert json.loads(files["MANIFEST.json"])["redactor"]["style"] == "surrogate"


def test_without_the_key_encryption_key_nothing_is_read_or_written(appliance: Appliance) -> None:
    appliance.env.pop("MEDHELM_KEK_FILE")
    done = appliance.cli("export", "ward", "--to", str(appliance.root / "nokey"), "--role", "compliance_officer")
    assert done.returncode == 2 and "no key-encryption key is configured" in done.stderr
    assert "Traceback" not in done.stderr and not (appliance.root / "nokey").exists()


def test_a_role_with_members_refuses_everyone_else(appliance: Appliance) -> None:
    appliance.edit_policy("roles.yaml", "    # members: [jdoe, asmith]", "    members: [jdoe, asmith]")
    # The membership check comes before any review; the data scientist's role takes no free text of this store.
    done = appliance.cli("export", "ward", "--to", str(appliance.root / "m"), "--role", "compliance_officer")
    assert done.returncode == 5 and "does not hold role 'compliance_officer'" in done.stderr
    assert not (appliance.root / "m").exists()
    ok = appliance.cli("export", "ward", "--to", str(appliance.root / "m"), "--role", "data_scientist")
    assert ok.returncode == 0, ok.stderr  # a role without members may be named by anyone
