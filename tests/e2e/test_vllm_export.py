"""A hospital's private benchmark through the real vLLM server, then out through the export gate.

The notes carry planted PHI; they reach the model (inside the network) and the encrypted store,
and none of it reaches the signed bundle a compliance officer exports.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import vllm_server
from conftest import dev_audit_log, run_cli, write_config
from support.phi_store import PLANTED
from support.review import approved_review

from medhelm_local.store.keys import Kek

pytestmark = pytest.mark.vllm

_NOTES = [
    ("MRN48213377", "Patient: Wojciech Przybylski, MRN: 48213377, seen 03/14/2021 at 42 Maple Street. "
                    "Phone (617) 555-0143. Fever 38.9 C, HR 124, lactate 4.1.", "yes"),
    ("MRN51920044", "Patient: Chiamaka Oyelaran, born 09/02/1931, daughter at 555-0188. BP 118/76, afebrile.", "no"),
]
_CARD = """name: ward_sepsis
description: Does the triage note meet sepsis screening criteria?
access: private
taxonomy:
  subcategory: Predicting Patient Risks and Outcomes
data:
  file: ward_sepsis.csv
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

    Sepsis screening criteria met? Answer yes or no.
  max_tokens: 24
"""


def test_private_notes_run_on_vllm_and_leave_only_redacted(vllm: vllm_server.VllmServer, tmp_path: Path,
                                                           data_root: Path, kek_file: Path, kek: Kek) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "ward_sepsis.yaml").write_text(_CARD)
    with (cards / "ward_sepsis.csv").open("w", newline="") as fh:
        csv.writer(fh).writerows([("note_id", "note", "label"), *_NOTES])
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results", {"vllm-local": {
        "base_url": vllm.base_url, "model": "tiny-llama", "max_concurrency": 2, "timeout_s": 60}})
    config.write_text(f'benchmark_cards = ["{cards}"]\n'
                      f'signing_key_file = "{tmp_path / "sign.key"}"\n' + config.read_text())
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    made = run_cli("-c", str(config), "keys", "signing-init", "--out", str(tmp_path / "sign.key"), env=env)
    assert made.returncode == 0, made.stderr
    approved = run_cli("-c", str(config), "policy", "approve", "--role", "compliance_officer", env=env)
    assert approved.returncode == 0, approved.stderr
    ran = run_cli("-c", str(config), "run", "ward_sepsis:model=local/tiny-llama,model_deployment=vllm-local",
                  "pubmed_qa:model=local/tiny-llama,model_deployment=vllm-local", "-m", "2", "--suite", "ward",
                  "--json", env=env)
    assert ran.returncode == 0, ran.stderr
    assert all(r["run"]["n_ok"] == 2 for r in json.loads(ran.stdout)["runs"])
    out = tmp_path / "bundle"

    class _Cli:
        def cli(self, *args: str):  # type: ignore[no-untyped-def]
            return run_cli("-c", str(config), *args, env=env)

    # The private answers leave once a second compliance officer approved their redacted text (the shipped policy).
    review_id = approved_review(_Cli(), kek, audit=dev_audit_log(), signing_key=tmp_path / "sign.key")
    exported = run_cli("-c", str(config), "export", "ward", "--to", str(out), "--role", "compliance_officer",
                       "--json", "--review", review_id, env=env)
    assert exported.returncode == 0, exported.stderr
    blob = b"".join(p.read_bytes() for p in out.iterdir())
    notes = "".join(note for _, note, _ in _NOTES)
    for value in [v for v in PLANTED if v in notes] + [i for i, _, _ in _NOTES]:
        assert value.encode() not in blob, f"{value!r} left in the bundle"
    result = json.loads(exported.stdout)
    # Private prompts never leave, nor does anything that can echo them (a server's error message).
    assert {w["artifact"] for w in result["withheld"]} == {"prompts", "completions.error_message",
                                                           "completions.reasoning"}
    assert "prompts.jsonl" in result["files"]  # the public benchmark's prompts do
    verified = run_cli("verify", str(out), "--public-key", str(tmp_path / "sign.pub"))
    assert verified.returncode == 0, verified.stderr
