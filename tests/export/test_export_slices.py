"""Slices in an export: their values are labels, redacted for private runs like every label, and a slice smaller
than the policy's min_slice_size is suppressed (its value and figures never leave; the gap skips it)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from support.appliance import Appliance

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek
from medhelm_local.store.queries import RunRecord, record_runs
from medhelm_local.store.writer import StoreWriter, row_of

RUN = "triage-local_m-000000000009"
# ward -> (instances, correct): 4B 9 of 12 (0.75); Dr Przybylski's ward 4 of 10 (0.4); ICU 3 of 3 (1.0, but only 3
# instances, under the shipped minimum of 10: suppressed, so the largest gap is 4B - the named ward = 0.35).
WARDS = {"4B": (12, 9), "Dr Przybylski's ward": (10, 4), "ICU": (3, 3)}


def _write_sliced_store(path: Path, kek: Kek) -> None:
    handle = open_store(path, kek, create=True)
    try:
        record_runs(handle.con, [RunRecord(
            run_id=RUN, suite="sliced", run_entry="triage:model=local/m,model_deployment=d", scenario="triage",
            scenario_args={}, model="local/m", deployment="d", main_metric="exact_match", access="private",
            settings={}, benchmark={"metrics": ["exact_match"]}, data=None)])
        writer = StoreWriter(handle)
        n = 0
        for ward, (count, correct) in WARDS.items():
            for i in range(count):
                instance_id = f"case-{n:03d}"
                writer.put("instances", row_of("instances", run_id=RUN, instance_id=instance_id, ordinal=n,
                                               split="test", input="Admit?", references_json="[]", extra_json="{}",
                                               slices_json=json.dumps({"ward": ward})))
                writer.put_group([("completions", row_of("completions", run_id=RUN, instance_id=instance_id, ok=True,
                                                         text="yes", attempts=1)),
                                  ("scores", row_of("scores", run_id=RUN, instance_id=instance_id,
                                                    metric="exact_match", value=float(i < correct)))])
                n += 1
        writer.close()
    finally:
        handle.close()


def _export(appliance: Appliance, kek: Kek, bundle_files: Callable[[Path], dict[str, bytes]],
            out: str) -> tuple[dict[str, object], bytes]:
    if not (appliance.results / "sliced.duckdb").exists():
        _write_sliced_store(appliance.results / "sliced.duckdb", kek)
    # Slices leave with the aggregates: numbers, which need no person's review of free text.
    done = appliance.cli("export", "sliced", "--to", str(appliance.root / out), "--role", "compliance_officer",
                         "--include", "aggregates")
    assert done.returncode == 0, done.stderr
    files = bundle_files(appliance.root / out)
    [sliced] = json.loads(files["slices.json"])
    return sliced, b"\n".join(files.values())


def test_small_slices_are_suppressed_and_slice_labels_redacted(
        appliance: Appliance, kek: Kek, bundle_files: Callable[[Path], dict[str, bytes]]) -> None:
    sliced, blob = _export(appliance, kek, bundle_files, "out")
    assert sliced["min_slice_size"] == 10 and sliced["suppressed"] == 1
    values = {v["value"]: v for v in sliced["values"]}
    assert len(values) == 2 and "ICU" not in values and b"ICU" not in blob
    assert values["4B"]["mean"] == pytest.approx(0.75) and values["4B"]["n"] == 12
    [named] = [v for k, v in values.items() if k != "4B"]
    assert named["mean"] == pytest.approx(0.4) and named["n"] == 10
    assert b"Przybylski" not in blob, "a slice value of private data is redacted like every label"
    gap = sliced["largest_gap"]
    assert gap["high"] == "4B" and gap["gap"] == pytest.approx(0.35)


def test_the_policy_minimum_decides_what_is_suppressed(
        appliance: Appliance, kek: Kek, bundle_files: Callable[[Path], dict[str, bytes]]) -> None:
    appliance.edit_policy("export.yaml", "min_slice_size: 10\n", "min_slice_size: 3\n")
    sliced, _ = _export(appliance, kek, bundle_files, "out3")
    assert sliced["suppressed"] == 0 and {v["value"] for v in sliced["values"]} >= {"4B", "ICU"}
    assert sliced["largest_gap"]["high"] == "ICU" and sliced["largest_gap"]["gap"] == pytest.approx(0.6)
