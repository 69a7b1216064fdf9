"""Issue 29, findings 1 and 2: what a run read, not its benchmark's name, decides whether it leaves as public data.

1. A folder laid out as PubMedQA (or MedDialog, whose checksums are not pinned) but holding a patient's name,
   MRN and phone is imported and run under the built-in benchmark's name: its text must not leave as it is.
2. Whoever holds the KEK rewrites a private run's row (benchmark name, access, then what it read, then a forged
   audit record of its start) to pass it off as PubMedQA: it must still be handled as private data.
And what must keep working: a run of the published data (here the 50-item subset this package pins) leaves as
public data, as the policy says.
"""

from __future__ import annotations

import csv
import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import FakeServer, dev_audit_log, run_cli, write_config
from support.review import approved_review

from medhelm_local.audit.log import AuditLog
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

# Invented patients: every value must stay out of every bundle and every message.
NAME, MRN, PHONE = "Wojciech Przybylski", "48213377", "(617) 555-0143"
PHI = [NAME, "Przybylski", MRN, PHONE, "555-0143"]
NOTE = f"Patient {NAME}, MRN {MRN}, phone {PHONE}, was seen with fever and a lactate of 4.1."

PRIVATE_CARD = """name: ward_notes
description: Triage notes of the hospital's own patients.
access: private
taxonomy:
  subcategory: Predicting Patient Risks and Outcomes
data:
  file: ward_notes.csv
task:
  type: classification
  labels: ["yes", "no"]
columns:
  id: note_id
  reference: label
prompt:
  template: |
    Triage note:
    {note}

    Sepsis? Answer yes or no.
  max_tokens: 3
"""


@dataclass
class Site:
    """An appliance with the demo subsets in its data root, a fake model server, a signing key and an approved
    policy: everything a data scientist and a compliance officer use."""

    root: Path
    config: Path
    data: Path
    audit: Path
    kek: Kek
    env: dict[str, str]

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_cli("-c", str(self.config), *args, env=self.env)

    def run(self, entry: str, suite: str = "ward") -> None:
        done = self.cli("run", f"{entry}:model=local/fake,model_deployment=fake", "--suite", suite, "-m", "3")
        assert done.returncode == 0, done.stderr

    def export(self, suite: str = "ward", include: str = "prompts,completions",
               review: str | None = None) -> subprocess.CompletedProcess[str]:
        out = self.root / f"out-{suite}-{len(list(self.root.glob('out-*')))}"
        return self.cli("export", suite, "--to", str(out), "--role", "compliance_officer", "--include", include,
                        "--json", *(("--review", review) if review else ()))

    def reviewed(self) -> str:
        """The suite's export (prompts and answers) approved by a second compliance officer: a run handled as private
        data leaves only after a person read its redacted text (the shipped policy)."""
        return approved_review(self, self.kek, "--include", "prompts,completions", audit=self.audit,
                               signing_key=self.root / "keys" / "export-signing.key")

    def import_folder(self, folder: Path) -> subprocess.CompletedProcess[str]:
        done = self.cli("data", "import", str(folder), "--replace")
        assert done.returncode == 0, done.stderr
        return done

    def policy_redacting_private_prompts(self) -> None:
        """export.yaml as a hospital may edit it: private prompts leave redacted instead of never; approved."""
        policies = Path(self.config.with_name("config.policies"))
        path = policies / "export.yaml"
        text = path.read_text()
        private = text.index("  private:")
        path.write_text(text[:private] + text[private:].replace("prompts: never", "prompts: redacted", 1))
        approved = self.cli("policy", "approve", "--role", "compliance_officer")
        assert approved.returncode == 0, approved.stderr


@pytest.fixture
def site(tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> Site:
    server = fake_server()
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "ward_notes.yaml").write_text(PRIVATE_CARD)
    with (cards / "ward_notes.csv").open("w", newline="") as fh:
        csv.writer(fh).writerows([("note_id", "note", "label"), ("n1", NOTE, "yes"),
                                  ("n2", f"Callback {PHONE} for {NAME}: ankle sprain, vitals normal.", "no")])
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url}})
    audit, signing = dev_audit_log(), tmp_path / "keys" / "export-signing.key"
    config.write_text(f'benchmark_cards = ["{cards}"]\nsigning_key_file = "{signing}"\n' + config.read_text())
    made = Site(tmp_path, config, data_root, audit, kek, {"MEDHELM_KEK_FILE": str(kek_file)})
    for args in (["keys", "signing-init", "--out", str(signing)],
                 ["policy", "approve", "--role", "compliance_officer"]):
        done = made.cli(*args)
        assert done.returncode == 0, done.stderr
    return made


def _bundle(done: subprocess.CompletedProcess[str]) -> bytes:
    folder = Path(json.loads(done.stdout)["bundle"])
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def _no_phi(*texts: str | bytes) -> None:
    for text in texts:
        blob = text.encode() if isinstance(text, str) else text
        for value in PHI:
            assert value.encode() not in blob, f"{value!r} left"


def _fake_pubmedqa(folder: Path) -> Path:
    """A folder laid out as PubMedQA's, whose questions are about a patient."""
    (folder / "pubmedqa").mkdir(parents=True)
    items = {str(40000000 + n): {"QUESTION": f"Does {NAME} (MRN {MRN}, phone {PHONE}) need admission {n}?",
                                  "CONTEXTS": [NOTE], "LABELS": ["BACKGROUND"], "final_decision": "yes"}
             for n in range(3)}
    (folder / "pubmedqa" / "ori_pqal.json").write_text(json.dumps(items))
    return folder / "pubmedqa"


def _fake_med_dialog(folder: Path) -> Path:
    """A folder laid out as MedDialog's (no checksum is shipped for it), holding a patient's details."""
    for subset in ("healthcaremagic", "icliniq"):
        (folder / "med_dialog" / subset).mkdir(parents=True)
        rows = [{"src": f"Patient: I am {NAME}, MRN {MRN}, call me on {PHONE}. Doctor: Come in today.",
                 "tgt": f"Should {NAME} come in?"}]
        (folder / "med_dialog" / subset / "test.json").write_text(json.dumps({"data": rows}))
    return folder / "med_dialog"


def test_the_published_subset_leaves_as_public_data(site: Site) -> None:
    site.run("pubmed_qa")
    done = site.export()
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert not result.get("handled_as_private")  # (the key is new: on older code the run was public by its name)
    folder = Path(result["bundle"])
    prompts = [json.loads(line) for line in (folder / "prompts.jsonl").read_text().splitlines()]
    assert len(prompts) == 3 and all("Question:" in p["prompt"] for p in prompts)
    assert not prompts[0]["instance"].startswith("i-")  # public ids are not pseudonymised
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    assert [r["access"] for r in manifest["runs"]] == ["public"]


def test_finding_1_a_pubmedqa_lookalike_holding_phi_is_private_data(site: Site, tmp_path: Path) -> None:
    imported = site.import_folder(_fake_pubmedqa(tmp_path / "incoming"))
    assert "not the published version" in " ".join(imported.stdout.split())
    site.run("pubmed_qa")

    refused = site.export()
    assert refused.returncode == 5, refused.stdout + refused.stderr
    message = " ".join(refused.stderr.split())
    assert "handled as private data" in message and "pubmedqa/ori_pqal.json is not the published file" in message
    assert "data stage" in message  # how to export it as public: run it again on the published files
    _no_phi(refused.stdout, refused.stderr)

    site.policy_redacting_private_prompts()
    done = site.export(review=site.reviewed())
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    [(run_id, why)] = result["handled_as_private"].items()
    assert run_id.startswith("pubmed_qa") and "not the published file" in why
    bundle = _bundle(done)
    _no_phi(bundle, done.stdout, done.stderr)
    assert b"[NAME]" in bundle and result["redactions"]["NAME"] >= 3  # redacted, then rescanned clean
    manifest = json.loads((Path(result["bundle"]) / "MANIFEST.json").read_text())
    assert manifest["runs"][0]["access"] == "private" and "not the published file" in \
        manifest["runs"][0]["handled_as_private"]


def test_finding_1_med_dialog_has_no_pinned_checksums_so_is_never_public(site: Site, tmp_path: Path) -> None:
    site.import_folder(_fake_med_dialog(tmp_path / "incoming"))
    site.run("med_dialog")

    refused = site.export()
    assert refused.returncode == 5, refused.stdout + refused.stderr
    assert "med_dialog has no published checksums" in " ".join(refused.stderr.split())
    _no_phi(refused.stdout, refused.stderr)
    site.policy_redacting_private_prompts()
    done = site.export(review=site.reviewed())
    assert done.returncode == 0, done.stderr
    _no_phi(_bundle(done), done.stdout)


def _rewrite(site: Site, sql: str, *params: object) -> None:
    """What whoever holds the KEK can do to a store: open it and change any row."""
    store = next((site.root / "results").glob("ward*.duckdb"))
    handle = open_store(store, site.kek)
    try:
        handle.con.execute(sql, list(params))
    finally:
        handle.close()


def _refused_as_private(site: Site, because: str) -> None:
    refused = site.export()
    assert refused.returncode == 5, refused.stdout + refused.stderr
    assert "handled as private data" in refused.stderr and because in " ".join(refused.stderr.split())
    _no_phi(refused.stdout, refused.stderr)


def test_finding_2_a_private_run_renamed_pubmed_qa_in_the_store_stays_private(site: Site) -> None:
    site.run("ward_notes")
    # The naive rewrite: the benchmark's name (and its access level, and the run entry) in the run's row.
    _rewrite(site, "UPDATE runs SET scenario = 'pubmed_qa', access = 'public', "
                   "run_entry = replace(run_entry, 'ward_notes', 'pubmed_qa')")
    _refused_as_private(site, "pubmedqa/ward_notes.csv is not the published file")

    # Then what it read too, copied from a genuine PubMedQA run: the audit log's record of its start disagrees.
    site.run("pubmed_qa", suite="genuine")
    genuine = open_store(site.root / "results" / "genuine.duckdb", site.kek, read_only=True)
    try:
        [(data_json,)] = genuine.con.execute("SELECT data_json FROM runs").fetchall()
    finally:
        genuine.close()
    _rewrite(site, "UPDATE runs SET data_json = ?", data_json)
    _refused_as_private(site, "does not match the audit log's record of its start")

    # The log's record of the run's start is covered by the checkpoints the refused exports signed, so the run
    # takes a new id throughout the store, with a forged record of that run's start appended with the KEK. The
    # row and the log now agree; the stored text is still not PubMedQA's.
    forged = "pubmed_qa-local_fake-000000000000"
    for table in ("runs", "instances", "requests", "completions", "scores", "run_metrics"):
        _rewrite(site, f"UPDATE {table} SET run_id = ?", forged)
    AuditLog(site.audit, site.kek).append("run.started", {"runs": [
        {"run_id": forged, "benchmark": "pubmed_qa", "access": "public", "data": json.loads(data_json)}]})
    _refused_as_private(site, "instance(s) it stored are not what the benchmark reads from the published files")


def test_a_run_made_before_runs_recorded_their_data_is_not_public(site: Site) -> None:
    site.run("pubmed_qa")
    _rewrite(site, "UPDATE runs SET data_json = NULL")  # what a store of schema v3 holds once migrated
    _refused_as_private(site, "it ran before medhelm-local recorded that")
