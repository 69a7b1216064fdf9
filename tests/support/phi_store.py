"""A suite store as a run over a hospital's private notes leaves it, with planted PHI to look for.

Written through the store's own writer (a real encrypted DuckDB file), so exports and redacted
copies are tested on exactly what `medhelm-local run` stores: a private benchmark whose prompts,
references, answers, extracted answers and error messages carry PHI, and a public one beside it,
PubMedQA's first two items read from the pinned demo subset in a data root, with what it read recorded
as a run records it (its row, and the `run.started` audit record the caller appends).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from medhelm_local.scenarios import DataRoot, create
from medhelm_local.scenarios.datafiles import import_dataset
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek
from medhelm_local.store.queries import RunRecord, record_runs
from medhelm_local.store.rows import instance_row, request_row
from medhelm_local.store.writer import StoreWriter, row_of

# Each value must be found by the redactor and must appear in no export and no redacted copy.
PLANTED = ["Przybylski", "Wojciech", "48213377", "(617) 555-0143", "03/14/2021", "w.przybylski@example.org",
           "123-45-6789", "42 Maple Street", "Oyelaran", "Chiamaka", "555-0188", "09/02/1931"]
PRIVATE_RUN = "ward_notes-local_m-000000000001"
PUBLIC_RUN = "pubmed_qa-local_m-000000000002"
# Instance ids of private data are often record numbers: they must not leave either.
PRIVATE_IDS = ["MRN48213377", "MRN51920044"]
# The public run's instances: PubMedQA's first two items (PMIDs), and words of the first question.
PUBLIC_IDS = ["21645374", "19394934"]
PUBLIC_WORDS = "lace plant leaves"

_NOTES = [
    ("MRN48213377",
     "Patient: Wojciech Przybylski, MRN: 48213377, DOB 03/14/2021. Lives at 42 Maple Street. "
     "Phone (617) 555-0143, e-mail w.przybylski@example.org, SSN 123-45-6789. Fever 38.9 C, lactate 4.1.",
     "yes", "Mr. Przybylski (MRN 48213377) meets criteria; call (617) 555-0143.", None),
    ("MRN51920044",
     "Patient: Chiamaka Oyelaran, born 09/02/1931. Daughter reachable at 555-0188. BP 88/50, HR 124.",
     "no", None, "HTTP 500 from server: could not process 'Chiamaka Oyelaran'"),
]


def write_ward_store(path: Path, kek: Kek, data_root: Path | None = None) -> dict[str, Any]:
    """A suite store 'ward' with one private run (PHI everywhere) and one public run of the PubMedQA subset in
    `data_root` (default: imported into a `ward-data` folder beside the store's folder); returns the details of
    the `run.started` audit record `run` would have written."""
    if data_root is None:
        from conftest import DEMO_DATASETS

        data_root = path.parent.parent / "ward-data"
        if not (data_root / "pubmedqa").exists():
            import_dataset(DEMO_DATASETS / "pubmedqa", data_root)
    bench = create("pubmed_qa")
    read, instances = bench.reading(DataRoot(data_root))
    public = [instance for instance, _ in zip(instances, PUBLIC_IDS, strict=False)]
    assert [i.id for i in public] == PUBLIC_IDS
    data = {PRIVATE_RUN: None, PUBLIC_RUN: read.to_json()}
    handle = open_store(path, kek, create=True)
    try:
        record_runs(handle.con, [
            RunRecord(run_id=run_id, suite="ward", run_entry=f"{scenario}:model=local/m,model_deployment=d",
                      scenario=scenario, scenario_args={}, model="local/m", deployment="d", main_metric="exact_match",
                      access=access, settings={"max_eval_instances": 2}, benchmark={"metrics": ["exact_match"]},
                      data=data[run_id])
            for run_id, scenario, access in ((PRIVATE_RUN, "ward_notes", "private"),
                                             (PUBLIC_RUN, "pubmed_qa", "public"))])
        writer = StoreWriter(handle)
        for n, (instance_id, note, label, answer, error) in enumerate(_NOTES):
            refs = json.dumps([{"text": label, "correct": True}, {"text": f"about {note[9:33]}", "correct": False}])
            writer.put("instances", row_of("instances", run_id=PRIVATE_RUN, instance_id=instance_id, ordinal=n,
                                           split="test", input=note, references_json=refs,
                                           extra_json=json.dumps({"ward": "4B"})))
            writer.put("requests", row_of("requests", run_id=PRIVATE_RUN, instance_id=instance_id,
                                          prompt=f"Triage note:\n{note}\nSepsis? Answer yes or no.",
                                          params_json=json.dumps({"max_tokens": 32})))
            ok = error is None
            writer.put_group([("completions", row_of(
                "completions", run_id=PRIVATE_RUN, instance_id=instance_id, ok=ok, text=answer,
                finish_reason="stop" if ok else None, prompt_tokens=50, completion_tokens=12, latency_s=0.4,
                attempts=1, error_type=None if ok else "http_500", error_message=error,
                logprobs_json=json.dumps([{"token": "Przybylski"}]) if ok else None))]
                             + ([("scores", row_of("scores", run_id=PRIVATE_RUN, instance_id=instance_id,
                                                   metric="exact_match", value=1.0,
                                                   extracted="yes (per Mr. Przybylski's chart)"))] if ok else []))
        for n, instance in enumerate(public):
            pid = instance.id
            writer.put("instances", instance_row(PUBLIC_RUN, n, instance))
            writer.put("requests", request_row(PUBLIC_RUN, bench.prompt(instance)))
            writer.put_group([("completions", row_of("completions", run_id=PUBLIC_RUN, instance_id=pid, ok=True,
                                                     text="A", finish_reason="stop", prompt_tokens=20,
                                                     completion_tokens=1, latency_s=0.1, attempts=1)),
                              ("scores", row_of("scores", run_id=PUBLIC_RUN, instance_id=pid, metric="exact_match",
                                                value=float(n), extracted="A"))])
        writer.close()
        store_id = handle.store_id
    finally:
        handle.close()
    return {"suite": "ward", "store": str(path), "store_id": store_id, "runs": [
        {"run_id": run_id, "benchmark": scenario, "access": access, "shipped": shipped, "resumed": False,
         "data": data[run_id]}
        for run_id, scenario, access, shipped in ((PRIVATE_RUN, "ward_notes", "private", False),
                                                  (PUBLIC_RUN, "pubmed_qa", "public", True))]}
