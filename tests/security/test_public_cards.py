"""A card that calls its data public is not taken at its word: its runs leave as private data (issue 29).

Only a run of a benchmark this package ships, on files it pins, is public at the export gate
(tests/security/test_public_by_data.py); a hospital's card saying `access: public` is a claim.
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

from medhelm_local.store.keys import Kek

CARD = """name: ward_public
description: Triage notes the card's author calls public.
access: {access}
taxonomy:
  subcategory: Predicting Patient Risks and Outcomes
data:
  file: ward_public.csv
task:
  type: classification
  labels: ["yes", "no"]
columns:
  id: note_id
  reference: label
prompt:
  template: |
    Triage note:
    {{note}}

    Sepsis? Answer yes or no.
  max_tokens: 3
"""
PHI_NOTES = [("n1", "Wojciech Przybylski, MRN 48213377, phone (617) 555-0143. Fever 39.2, lactate 4.1.", "yes"),
             ("n2", "Ankle sprain after a fall, vitals normal.", "no")]
CLEAN_NOTES = [("n1", "Fever 39.2, heart rate 124, lactate 4.1, suspected pneumonia.", "yes"),
               ("n2", "Ankle sprain after a fall, vitals normal.", "no")]


@dataclass
class Hospital:
    """A configured appliance with the hospital's card folder, a signing key and an approved policy."""

    root: Path
    config: Path
    cards: Path
    env: dict[str, str]

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_cli("-c", str(self.config), *args, env=self.env)

    def run_card(self, access: str, rows: list[tuple[str, str, str]]) -> None:
        """Write the card with this access level and these rows, and run it against the fake server."""
        (self.cards / "ward_public.yaml").write_text(CARD.format(access=access))
        with (self.cards / "ward_public.csv").open("w", newline="") as fh:
            csv.writer(fh).writerows([("note_id", "note", "label"), *rows])
        ran = self.cli("run", "ward_public:model=local/fake,model_deployment=fake", "--suite", "ward")
        assert ran.returncode == 0, ran.stderr

    def export(self, review: str | None = None) -> subprocess.CompletedProcess[str]:
        return self.cli("export", "ward", "--to", str(self.root / "out"), "--role", "compliance_officer",
                        *(("--review", review) if review else ()))

    def reviewed(self, kek: Kek) -> str:
        """A review of the suite's export, approved by a second compliance officer (the run leaves as private data,
        whose answers a person reads first under the shipped policy)."""
        return approved_review(self, kek, audit=dev_audit_log(), signing_key=self.root / "keys" / "export-signing.key")


@pytest.fixture
def hospital(tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> Hospital:
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url}})
    cards, signing = tmp_path / "cards", tmp_path / "keys" / "export-signing.key"
    cards.mkdir()
    extra = (f'benchmark_cards = ["{cards}"]\n'
             f'signing_key_file = "{signing}"\n')
    config.write_text(extra + config.read_text())
    made = Hospital(tmp_path, config, cards, {"MEDHELM_KEK_FILE": str(kek_file)})
    for args in (["keys", "signing-init", "--out", str(signing)],
                 ["policy", "approve", "--role", "compliance_officer"]):
        done = made.cli(*args)
        assert done.returncode == 0, done.stderr
    return made


def test_a_card_that_says_public_leaves_as_private_data(hospital: Hospital, kek: Kek) -> None:
    hospital.run_card("public", PHI_NOTES)
    done = hospital.export(hospital.reviewed(kek))
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert "Handled as private data" in said and "'ward_public' is not a public benchmark medhelm-local ships" in said
    out = hospital.root / "out"
    blob = b"".join(p.read_bytes() for p in out.iterdir())
    for value in ("Przybylski", "48213377", "555-0143"):
        assert value.encode() not in blob and value not in done.stdout
    assert not (out / "prompts.jsonl").exists()  # private prompts never leave (the shipped export.yaml)
    [run] = json.loads((out / "MANIFEST.json").read_text())["runs"]
    assert run["access"] == "private" and "not a public benchmark" in run["handled_as_private"]


def test_asking_for_its_prompts_is_refused_saying_why(hospital: Hospital) -> None:
    hospital.run_card("public", CLEAN_NOTES)
    done = hospital.cli("export", "ward", "--to", str(hospital.root / "out"), "--role", "compliance_officer",
                        "--include", "prompts")
    assert done.returncode == 5, done.stdout + done.stderr
    said = " ".join(done.stderr.split())
    assert "prompts of run ward_public" in said and "handled as private data, since its benchmark" in said
    assert not (hospital.root / "out").exists()
    shown = json.loads(hospital.cli("audit", "show", "--kind", "export.refused", "--json").stdout)
    assert len(shown) == 1 and "not a public benchmark" in json.dumps(shown[0]["details"])


def test_the_same_notes_marked_private_leave_redacted(hospital: Hospital, kek: Kek) -> None:
    hospital.run_card("private", PHI_NOTES)
    done = hospital.export(hospital.reviewed(kek))
    assert done.returncode == 0, done.stderr
    blob = b"".join(p.read_bytes() for p in (hospital.root / "out").iterdir())
    assert b"Przybylski" not in blob and b"555-0143" not in blob
