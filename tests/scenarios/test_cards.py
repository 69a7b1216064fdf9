"""Benchmark cards: a new user's benchmark from the documented example, and every way a card can be wrong."""

from __future__ import annotations

import csv
import json
import re
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO, FakeServer, run_cli, write_config

from medhelm_local.errors import ConfigError, DatasetCorruptError, DatasetMissingError
from medhelm_local.scenarios.datafiles import DataRoot
from medhelm_local.scenarios.registry import load_spec

DOC = REPO / "docs" / "benchmark-cards.md"
NOTES = [("ed-001", "T 39.2, HR 124, RR 26, suspected pneumonia, lactate 4.1", "yes"),
         ("ed-002", "Ankle sprain after fall, vitals normal", "no"),
         ("ed-003", "Fever 38.9, hypotension 84/50, confusion, urinary source", "yes"),
         ("ed-004", "Medication refill request, asymptomatic", "no")]


def documented_card(folder: Path) -> Path:
    """The example card exactly as docs/benchmark-cards.md shows it, with the CSV it describes."""
    yaml_text = re.search(r"```yaml\n(name: sepsis_triage.*?)```", DOC.read_text(), re.S).group(1)  # type: ignore[union-attr]
    folder.mkdir(parents=True, exist_ok=True)
    card = folder / "sepsis_triage.yaml"
    card.write_text(yaml_text)
    with (folder / "sepsis_triage.csv").open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["note_id", "note", "label"])
        writer.writerows(NOTES)
    return card


def test_documented_example_loads_with_its_taxonomy_place(tmp_path: Path) -> None:
    cls = load_spec(documented_card(tmp_path / "cards"))
    bench = cls.create()
    instances = bench.load(DataRoot(tmp_path))
    assert [i.id for i in instances] == ["ed-001", "ed-002", "ed-003", "ed-004"]
    assert (cls.name, cls.access, cls.subcategory) == (
        "sepsis_triage", "private", "Predicting Patient Risks and Outcomes")
    prompt = bench.prompt(instances[0])
    assert "lactate 4.1" in prompt.text and prompt.text.rstrip().endswith("Answer yes or no.")
    assert [s.value for s in bench.score(instances[0], "Yes.") if s.metric == "exact_match"] == [1.0]
    assert [s.value for s in bench.score(instances[1], "yes") if s.metric == "exact_match"] == [0.0]


def test_user_runs_the_documented_card_end_to_end(tmp_path: Path, data_root: Path, kek_file: Path,
                                                  fake_server: Callable[..., FakeServer]) -> None:
    card = documented_card(tmp_path / "cards")
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"vllm-local": {"base_url": server.base_url}})
    with config.open("a") as fh:
        fh.write('\n# the hospital\'s own benchmarks\n')
    text = config.read_text().replace('output_dir =', f'benchmark_cards = ["{card.parent}"]\noutput_dir =', 1)
    config.write_text(text)
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    valid = run_cli("-c", str(config), "benchmarks", "validate", str(card))
    assert valid.returncode == 0, valid.stderr
    assert valid.stdout.count("prompt for ed-") == 3 and "4 instances" in valid.stdout and "sha256" in valid.stdout
    listed = {r["name"]: r for r in json.loads(run_cli("-c", str(config), "benchmarks", "list", "--json").stdout)}
    assert listed["sepsis_triage"]["access"] == "private" and listed["sepsis_triage"]["instances"] == 4
    result = run_cli("-c", str(config), "run", "sepsis_triage:model=local/qwen,model_deployment=vllm-local",
                     "--json", env=env)
    assert result.returncode == 0, result.stderr
    run = json.loads(result.stdout)["runs"][0]
    assert run["run"]["n_ok"] == 4 and run["run"]["main_metric"] == "exact_match"
    tree = run_cli("-c", str(config), "taxonomy").stdout
    assert "sepsis_triage (private, runnable)" in tree


def _card(tmp_path: Path, **changes: str) -> Path:
    card = documented_card(tmp_path / "cards")
    text = card.read_text()
    for old, new in changes.items():
        text = text.replace(old.replace("_", " ") if old.startswith("__") else old, new)
    card.write_text(text)
    return card


@pytest.mark.parametrize("old, new, field, line", [
    ("access: private", "access: secret", "access", 3),
    ("  task: Sepsis screening from triage notes", "  tasks: x", "taxonomy.tasks", 6),
    ("  type: classification", "  type: ranking", "task.type", 11),
    ("  labels: [\"yes\", \"no\"]\n", "", "task", 10),
])
def test_broken_card_names_field_and_line(tmp_path: Path, old: str, new: str, field: str, line: int | None) -> None:
    card = documented_card(tmp_path / "cards")
    card.write_text(card.read_text().replace(old, new))
    with pytest.raises(ConfigError) as err:
        load_spec(card)
    message = str(err.value)
    assert f"'{field}" in message
    if line:
        assert f"line {line}" in message


def test_broken_card_via_cli_is_a_clear_error(tmp_path: Path) -> None:
    card = documented_card(tmp_path / "cards")
    card.write_text(card.read_text().replace("access: private", "acess: private"))
    result = run_cli("benchmarks", "validate", str(card))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "field 'acess': unknown field (did you mean 'access'?)" in result.stderr
    assert "line 3" in result.stderr


def test_bad_data_for_a_card(tmp_path: Path) -> None:
    card = documented_card(tmp_path / "cards")
    data = card.parent / "sepsis_triage.csv"

    data.write_text("note_id,text,label\ned-1,x,yes\n")  # the template names {note}
    with pytest.raises(DatasetCorruptError, match="no column"):
        load_spec(card).create().load(DataRoot(tmp_path))
    card.write_text(card.read_text().replace("{note}", "{nurse_note}"))
    data.write_text("note_id,note,label\ned-1,x,yes\n")
    with pytest.raises(DatasetCorruptError, match="nurse_note"):
        load_spec(card).create().load(DataRoot(tmp_path))
    card = documented_card(tmp_path / "cards")
    data.write_text("note_id,note,label\n")
    with pytest.raises(DatasetCorruptError, match="no rows"):
        load_spec(card).create().load(DataRoot(tmp_path))
    data.write_text("note_id,note,label\ned-1,x,maybe\n")
    with pytest.raises(DatasetCorruptError, match=r"row 1.*task\.labels"):
        load_spec(card).create().load(DataRoot(tmp_path))
    data.unlink()
    with pytest.raises(DatasetMissingError):
        load_spec(card).create().load(DataRoot(tmp_path))


def test_repeated_ids_in_a_cards_data_are_refused_naming_them(tmp_path: Path) -> None:
    """Keying on a repeated id would keep one row and drop the others silently (validate would count 4, a
    run store 2): validation names the repeated ids instead."""
    card = documented_card(tmp_path / "cards")
    (card.parent / "sepsis_triage.csv").write_text(
        "note_id,note,label\ned-1,fever,yes\ned-2,sprain,no\ned-1,cough,yes\ned-2,rash,no\n")

    with pytest.raises(DatasetCorruptError, match=r"2 instance id\(s\) appear more than once \(ed-1, ed-2\)"):
        load_spec(card).create().load(DataRoot(tmp_path))
    result = run_cli("benchmarks", "validate", str(card))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "appear more than once (ed-1, ed-2)" in " ".join(result.stderr.split())


@pytest.mark.parametrize(("rows", "said"), [
    ("ed-1,fever,yes\n,sprain,no\n", "row 2 has an empty id (column note_id). Where: {data}, row 2."),
    ("ed-1,fever,yes\n  ,sprain,no\n", "row 2 has an empty id (column note_id)"),
    ("ed-1,fever,yes\ned-2,sprain, ankle,no\n", "sepsis_triage.csv, line 3: 1 field(s) more than the header's 3 "
                                                 "columns"),
])
def test_an_empty_id_or_a_row_with_extra_fields_is_refused_naming_the_file_and_row(tmp_path: Path, rows: str,
                                                                                     said: str) -> None:
    """Issue 29, finding 8: an empty id cell was accepted, and fields past the header dropped silently (an
    unquoted comma in a note shifts the label into the wrong column)."""
    card = documented_card(tmp_path / "cards")
    data = card.parent / "sepsis_triage.csv"
    data.write_text("note_id,note,label\n" + rows)
    result = run_cli("benchmarks", "validate", str(card))
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    shown = " ".join(result.stderr.split())
    assert said.format(data=data) in shown and str(data) in shown


def test_streaming_a_large_cards_data_holds_no_growing_set_of_its_ids(tmp_path: Path) -> None:
    """A run streams its benchmark twice (the plan's survey, then the run): checking ids for repeats must
    not keep every id. 40,000 ids of 60 characters as a set: ~6 MB; the tally keeps 8 bytes each."""
    card = documented_card(tmp_path / "cards")
    with (card.parent / "sepsis_triage.csv").open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["note_id", "note", "label"])
        writer.writerows((f"ed-{n:057d}", "fever", "yes") for n in range(40_000))
    bench = load_spec(card).create()
    stream = bench.iter_instances(DataRoot(tmp_path))
    next(stream)  # files verified, shots prepared: what follows is the reading itself
    count = held = 0
    tracemalloc.start()
    try:
        for count, _ in enumerate(stream, start=2):
            if count == 40_000:  # the last instance, the reading not yet ended
                held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 40_000
    assert held < 1 << 20, f"reading held {held >> 10} KB"


def test_pinned_checksum_detects_a_changed_file(tmp_path: Path) -> None:
    card = documented_card(tmp_path / "cards")
    import hashlib

    digest = hashlib.sha256((card.parent / "sepsis_triage.csv").read_bytes()).hexdigest()
    pinned = f"  file: sepsis_triage.csv\n  sha256: {digest}"
    card.write_text(card.read_text().replace("  file: sepsis_triage.csv", pinned))
    assert len(load_spec(card).create().load(DataRoot(tmp_path))) == 4
    with (card.parent / "sepsis_triage.csv").open("a") as fh:
        fh.write("ed-005,extra row,no\n")
    with pytest.raises(DatasetCorruptError, match="sha256"):
        load_spec(card).create().load(DataRoot(tmp_path))


def test_jsonl_and_parquet_multiple_choice_cards(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"qid": "q1", "question": "First-line drug for anaphylaxis?", "options": ["Epinephrine", "Diphenhydramine"],
             "answer": "Epinephrine"},
            {"qid": "q2", "question": "Antidote for opioid overdose?", "options": ["Flumazenil", "Naloxone"],
             "answer": "B"}]
    folder = tmp_path / "mcq"
    folder.mkdir()
    (folder / "q.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    table = pa.Table.from_pylist([{**r, "options": json.dumps(r["options"])} for r in rows])
    pq.write_table(table, folder / "q.parquet")
    for data_file in ("q.jsonl", "q.parquet"):
        card = folder / f"card-{data_file}.yaml"
        card.write_text(f"""name: er_drugs
description: emergency drugs
access: gated
taxonomy: {{subcategory: Providing Clinical Knowledge Support}}
data: {{file: {data_file}}}
task: {{type: multiple_choice}}
columns: {{id: qid, reference: answer, choices: options}}
prompt: {{template: "Question: {{question}}", max_tokens: 2}}
""")
        bench = load_spec(card).create()
        instances = bench.load(DataRoot(tmp_path))
        assert [i.correct_references[0].text for i in instances] == ["Epinephrine", "Naloxone"]
        assert bench.prompt(instances[0]).text == ("Question: First-line drug for anaphylaxis?\n"
                                                   "A. Epinephrine\nB. Diphenhydramine\nAnswer:")
        assert bench.score(instances[1], "B")[0].value == 1.0


def test_a_card_can_add_a_new_subcategory_to_the_tree(tmp_path: Path) -> None:
    card = documented_card(tmp_path / "cards")
    card.write_text(card.read_text().replace(
        "  subcategory: Predicting Patient Risks and Outcomes",
        "  subcategory: Nursing handover\n  category: Nursing workflow"))
    config = tmp_path / "config.toml"
    config.write_text(f'benchmark_cards = ["{card}"]\ndata_root = "{tmp_path}"\n')
    tree = json.loads(run_cli("-c", str(config), "taxonomy", "--json").stdout)
    nursing = next(c for c in tree if c["category"] == "Nursing workflow")
    assert nursing["subcategories"][0]["name"] == "Nursing handover"
    assert nursing["subcategories"][0]["installed"][0]["name"] == "sepsis_triage"
    typo = card.read_text().replace("Nursing handover\n  category: Nursing workflow", "Predicting Patient Risk")
    card.write_text(typo)
    result = run_cli("-c", str(config), "taxonomy")
    assert result.returncode == 2 and "did you mean 'Predicting Patient Risks and Outcomes'?" in result.stderr
    assert "line 5" in result.stderr


@pytest.mark.parametrize("case, fragment", [
    ("missing_column", "no column(s) note"),
    ("unknown_placeholder", "no column(s) ward"),
    ("empty", "holds no rows"),
    ("truncated_parquet", "cannot be read"),
    ("not_utf8", "cannot be read"),
])
def test_bad_card_data_from_the_cli(tmp_path: Path, case: str, fragment: str) -> None:
    card = documented_card(tmp_path / "cards")
    data = card.parent / "sepsis_triage.csv"
    if case == "missing_column":
        data.write_text("note_id,text,label\ned-1,x,yes\n")
    elif case == "unknown_placeholder":
        card.write_text(card.read_text().replace("{note}", "{note} on {ward}"))
    elif case == "empty":
        data.write_text("")
    elif case == "truncated_parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        parquet = card.parent / "sepsis_triage.parquet"
        pq.write_table(pa.Table.from_pylist([{"note_id": n, "note": t, "label": lab} for n, t, lab in NOTES]), parquet)
        parquet.write_bytes(parquet.read_bytes()[:-40])
        card.write_text(card.read_text().replace("file: sepsis_triage.csv", "file: sepsis_triage.parquet"))
    elif case == "not_utf8":
        data.write_bytes("note_id,note,label\ned-1,caf\xe9,yes\n".encode("latin-1"))
    result = run_cli("benchmarks", "validate", str(card))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and fragment in result.stderr and "What to do:" in result.stderr


def test_a_shipped_benchmark_is_found_by_reading_its_own_card_only() -> None:
    """`run med_qa` reads med_qa/card.yaml, not every card; so each shipped folder is named for its benchmark."""
    from medhelm_local.scenarios import benchmarks, registry

    for path in benchmarks.every(benchmarks.CARD):
        assert registry.load_spec(path, builtin=True).name == path.parent.name, f"{path} is not named for its benchmark"
    registry._builtins.cache_clear()
    registry._builtin_file.cache_clear()
    assert registry.get("med_qa").name == "med_qa"
    assert registry._builtins.cache_info().currsize == 0
    assert registry._builtin_file.cache_info().currsize == 1
    assert registry.get("medhelm_med_qa").name == "med_qa"  # an alias is found among all the shipped cards


def test_a_card_says_when_its_scores_do_not_compare_with_medhelms(tmp_path: Path) -> None:
    marked = "access: private\nargs:\n  cut:\n    help: how\n    choices: [medhelm, ours]\n    default: ours\n" \
             "not_comparable:\n  reason: Cut differently.\n  unless:\n    cut: medhelm\n"
    spec = load_spec(_card(tmp_path, **{"access: private\n": marked}))

    assert spec.create().not_comparable == "Cut differently."
    assert spec.create({"cut": "medhelm"}).not_comparable is None
    wrong = marked.replace("    cut: medhelm\n", "    cutting: medhelm\n")
    with pytest.raises(ConfigError, match=r"not_comparable\.unless names argument"):
        load_spec(_card(tmp_path / "again", **{"access: private\n": wrong}))


def test_an_argument_value_can_read_files_besides_the_cards_and_must_be_a_choice(tmp_path: Path) -> None:
    bad = "access: private\nargs:\n  split:\n    help: which\n    choices: [test]\n    files:\n      dev: [dev.csv]\n"
    with pytest.raises(ConfigError, match="not among the choices: dev"):
        load_spec(_card(tmp_path, **{"access: private\n": bad}))
    from medhelm_local.scenarios import create

    assert create("med_qa").data_files == ("phrases_no_exclude_test.jsonl",)
    assert create("med_qa", {"split": "dev+test"}).data_files == ("phrases_no_exclude_test.jsonl",
                                                                  "phrases_no_exclude_dev.jsonl")
