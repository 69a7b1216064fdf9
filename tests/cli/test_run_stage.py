"""The run stage as a new hospital user meets it: cards scored as declared, one scheduler for the suite,
results readable for review, and exit codes that say what happened. Real CLI, fake server on 127.0.0.1."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import FakeServer, run_cli, write_config
from support.scored import assert_main_scored

from medhelm_local.results.aggregates import compute_aggregates
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

LABELS = [f"condition {chr(97 + i)}{'x' * (i % 3)}" for i in range(20)]  # 20 classes, none a single letter


def _card(folder: Path, *, task: str = "classification", template: str = "Note: {note}\\nWhich condition?",
          extra: str = "", rows: int = 30, reference: str | None = None) -> Path:
    """A hospital's classification card over a CSV of notes (the new user's benchmark)."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "notes.csv").open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["note_id", "note", "label"])
        for i in range(rows):
            writer.writerow([f"n-{i:03d}", f"note text {i} " + "finding " * 20, reference or LABELS[i % 20]])
    labels = "[" + ", ".join(json.dumps(label) for label in LABELS) + "]"
    card = folder / "conditions.yaml"
    card.write_text(f"""name: conditions
description: Which of 20 conditions does the note describe?
access: private
taxonomy: {{subcategory: Supporting Diagnostic Decisions}}
data: {{file: notes.csv}}
task: {{type: {task}, labels: {labels}}}
columns: {{id: note_id, reference: label}}
prompt: {{template: "{template}", max_tokens: 4}}
{extra}""")
    return card


def _setup(tmp_path: Path, data_root: Path, servers: dict[str, FakeServer], cards: list[Path] | None = None,
           **deployment: Any) -> tuple[Path, dict[str, str]]:
    fields = {"max_concurrency": 8, "timeout_s": 5.0, "max_retries": 0, **deployment}
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {name: {"base_url": s.base_url, **fields} for name, s in servers.items()})
    if cards:
        text = config.read_text()
        listed = ", ".join(json.dumps(str(c)) for c in cards)
        config.write_text(f"benchmark_cards = [{listed}]\n" + text)
    return config, {"MEDHELM_KEK_FILE": str(tmp_path / "kek")}


@pytest.fixture
def keyed(tmp_path: Path, kek_file: Path) -> Path:
    (tmp_path / "kek").write_text(kek_file.read_text())
    (tmp_path / "kek").chmod(0o600)  # a key file only its owner may read (others: refused)
    return tmp_path


def _run(config: Path, env: dict[str, str], *args: str) -> Any:
    result = run_cli("-c", str(config), "run", *args, "--json", env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_letters_answered_to_an_unlettered_label_prompt_earn_no_credit(
        keyed: Path, data_root: Path, fake_server: Callable[..., FakeServer]) -> None:
    # The fake server only ever answers "A", "B", "C" or "D". Classification used to go through the
    # multiple-choice scorer, which credited "B" as the 2nd label (0.167 on a 20-class task).
    card = _card(keyed / "cards")
    config, env = _setup(keyed, data_root, {"local": fake_server()}, [card])
    run = _run(config, env, "conditions:model=local/m,model_deployment=local", "--suite", "triage")["runs"][0]
    main = next(a for a in run["aggregates"] if a["metric"] == "exact_match")
    assert main["mean"] == 0.0 and main["n_scored"] == 30
    shown = json.loads(run_cli("-c", str(config), "show", run["run"]["run_id"], "--instances", "30", "--json",
                               env=env).stdout)
    extracted = {s["extracted"] for row in shown["instances"] for s in row["scores"] if s["metric"] == "exact_match"}
    assert extracted == {None}, "letters must not be shown as the labels read"


def test_letters_count_when_the_prompt_letters_the_labels(
        keyed: Path, data_root: Path, fake_server: Callable[..., FakeServer]) -> None:
    card = _card(keyed / "cards", template="Note: {note}\\nOptions:\\n{options}\\nAnswer with the letter.",
                 reference=LABELS[0])
    config, env = _setup(keyed, data_root, {"local": fake_server()}, [card])
    run = _run(config, env, "conditions:model=local/m,model_deployment=local", "--suite", "triage")["runs"][0]
    shown = json.loads(run_cli("-c", str(config), "show", run["run"]["run_id"], "--instances", "30", "--json",
                               env=env).stdout)
    extracted = {s["extracted"] for row in shown["instances"] for s in row["scores"] if s["metric"] == "exact_match"}
    assert extracted <= set(LABELS[:4]) and extracted, "a letter is read as its label, and shown as the label"
    main = next(a for a in run["aggregates"] if a["metric"] == "exact_match")
    assert main["n_scored"] == 30 and 0.0 < main["mean"] < 1.0


@pytest.mark.parametrize(("task", "metric"), [("multiple_choice", "rouge_l"), ("generation", "exact_match"),
                                              ("classification", "medcalc_bench_accuracy"), ("generation", "bleu")])
def test_a_metric_the_task_cannot_use_is_refused_naming_the_valid_ones(
        keyed: Path, data_root: Path, fake_server: Callable[..., FakeServer], task: str, metric: str) -> None:
    # It used to be accepted and ignored: the main metric stayed empty and every instance "pending", exit 0.
    extra = f"metric: {metric}\n" + ("columns: {id: note_id, reference: label, choices: [label, note]}\n"
                                     if task == "multiple_choice" else "")
    card = _card(keyed / "cards", task=task, extra=extra)
    if task == "multiple_choice":
        card.write_text(card.read_text().replace("columns: {id: note_id, reference: label}\n", ""))
    validated = run_cli("benchmarks", "validate", str(card))
    assert validated.returncode == 2 and "Traceback" not in validated.stderr
    assert f"'{metric}'" in validated.stderr and "use one of:" in validated.stderr
    config, env = _setup(keyed, data_root, {"local": fake_server()}, [card])
    ran = run_cli("-c", str(config), "run", "conditions:model=local/m,model_deployment=local", env=env)
    assert ran.returncode == 2 and not (keyed / "results").exists(), "nothing is written for a card that is wrong"


def test_classification_keeps_per_label_counts_macro_f1_and_a_confusion_table(
        keyed: Path, data_root: Path, fake_server: Callable[..., FakeServer]) -> None:
    card = _card(keyed / "cards", template="Note: {note}\\n{options}")
    config, env = _setup(keyed, data_root, {"local": fake_server()}, [card])
    run = _run(config, env, "conditions:model=local/m,model_deployment=local", "--suite", "triage")["runs"][0]
    macro = next(a for a in run["aggregates"] if a["metric"] == "macro_f1")
    assert macro["detail"]["per_label"] and macro["detail"]["confusion"]
    assert sum(c["support"] for c in macro["detail"]["per_label"].values()) == 30
    shown = run_cli("-c", str(config), "show", run["run"]["run_id"], env=env)
    assert shown.returncode == 0 and "macro_f1: per label" in shown.stdout and "confusion" in shown.stdout


def test_show_finds_the_store_and_shows_prompt_reference_and_whole_answer(
        keyed: Path, data_root: Path, fake_server: Callable[..., FakeServer]) -> None:
    config, env = _setup(keyed, data_root, {"local": fake_server()})
    runs = _run(config, env, "pubmed_qa:model=local/m,model_deployment=local", "--suite", "a", "-m", "5")["runs"]
    _run(config, env, "med_qa:model=local/m,model_deployment=local", "--suite", "b", "-m", "5")
    run_id = runs[0]["run"]["run_id"]
    shown = json.loads(run_cli("-c", str(config), "show", run_id, "--instances", "2", "--full", "--json",
                               env=env).stdout)
    assert shown["store"].endswith("a.duckdb")
    row = shown["instances"][0]
    assert row["prompt"].startswith("Answer A for yes") and row["references"] and row["text"] in "ABCD"
    text = run_cli("-c", str(config), "show", run_id, "-n", "1", "--full", env=env).stdout
    assert "prompt:" in text and "reference:" in text and "answer:" in text
    listed = run_cli("-c", str(config), "runs", "list", env=env).stdout
    assert "main metric" in listed and "exact_match" in listed
    missing = run_cli("-c", str(config), "show", "no-such-run", env=env)
    assert missing.returncode == 2 and "no suite store in the output folder holds run" in missing.stderr


def test_a_run_is_named_by_any_unique_beginning_of_its_id_and_the_table_never_cuts_one(
        keyed: Path, data_root: Path, fake_server: Callable[..., FakeServer]) -> None:
    config, env = _setup(keyed, data_root, {"local": fake_server()})
    pubmed = _run(config, env, "pubmed_qa:model=local/m,model_deployment=local", "--suite", "a", "-m", "3")
    medqa = _run(config, env, "med_qa:model=local/m,model_deployment=local", "--suite", "b", "-m", "3")
    pubmed_id, medqa_id = pubmed["runs"][0]["run"]["run_id"], medqa["runs"][0]["run"]["run_id"]
    shown = json.loads(run_cli("-c", str(config), "show", pubmed_id[:6], "--json", env=env).stdout)
    assert shown["run"]["run_id"] == pubmed_id and shown["store"].endswith("a.duckdb")
    in_store = run_cli("-c", str(config), "show", medqa_id[:5], "--suite", "b", "--json", env=env)
    assert json.loads(in_store.stdout)["run"]["run_id"] == medqa_id
    _run(config, env, "pubmed_qa:model=local/other,model_deployment=local", "--suite", "a", "-m", "3")
    twice = run_cli("-c", str(config), "show", "pubmed_qa-local_", env=env)
    assert twice.returncode == 2 and "begins 2 run ids" in twice.stderr and pubmed_id in twice.stderr
    assert "type more of the id" in twice.stderr and "Traceback" not in twice.stderr
    listed = run_cli("-c", str(config), "runs", "list", "--suite", "a", env={**env, "COLUMNS": "80"}).stdout
    assert pubmed_id in listed, "the id a user must type is printed whole even in a narrow terminal"


def test_every_request_failing_exits_6_and_some_failing_is_said_on_stderr(
        keyed: Path, data_root: Path, fake_server: Callable[..., FakeServer]) -> None:
    dead = fake_server(fault_rate=1.0, faults="500")
    config, env = _setup(keyed, data_root, {"dead": dead})
    result = run_cli("-c", str(config), "run", "pubmed_qa:model=local/m,model_deployment=dead", "-m", "4", env=env)
    assert result.returncode == 6 and "every request of 1 run(s) failed" in result.stderr
    assert "Traceback" not in result.stderr
    flaky = fake_server(fault_rate=0.5, faults="500", seed=3)
    config, env = _setup(keyed, data_root, {"flaky": flaky})
    result = run_cli("-c", str(config), "run", "pubmed_qa:model=local/m,model_deployment=flaky", "-m", "20",
                     "--suite", "flaky", "--json", env=env)
    assert result.returncode == 0 and json.loads(result.stdout)["failed"] > 0
    assert "request(s) failed and are stored as failed" in result.stderr


def test_a_store_memory_limit_too_small_says_which_setting_to_raise(
        keyed: Path, data_root: Path, fake_server: Callable[..., FakeServer]) -> None:
    config, env = _setup(keyed, data_root, {"fake": fake_server()})
    config.write_text('store_memory_limit = "1MB"\n' + config.read_text())
    result = run_cli("-c", str(config), "run", "pubmed_qa:model=local/m,model_deployment=fake", "-m", "20", env=env)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "ran out of the memory it may use" in result.stderr and "raise the store_memory_limit" in result.stderr
    assert "check the disk" not in result.stderr  # not taken for damage


def test_every_entry_starts_together_and_each_endpoint_keeps_its_own_limit(
        keyed: Path, data_root: Path, fake_server: Callable[..., FakeServer]) -> None:
    one, two = fake_server(delay=0.3), fake_server(delay=0.3)
    config, env = _setup(keyed, data_root, {"one": one, "two": two}, max_concurrency=4)
    entries = [f"{bench}:model=local/{model},model_deployment={dep}" for bench in ("pubmed_qa", "medcalc_bench")
               for model, dep in (("a", "one"), ("b", "two"))]
    out = _run(config, env, *entries, "--suite", "parallel", "-m", "12")
    assert len(out["runs"]) == 4 and all(r["run"]["n_ok"] == 12 for r in out["runs"])
    listed = json.loads(run_cli("-c", str(config), "runs", "list", "--suite", "parallel", "--json", env=env).stdout)
    stored = {r["run_id"]: r["main_score"] for listing in listed for r in listing["runs"]}
    for run in out["runs"]:  # each run's score as printed is its main metric's, as the store records it
        assert_main_scored(run, run["run"]["run_id"])
        assert run["run"]["main_score"] == stored[run["run"]["run_id"]] is not None
    seen = [server.stats() for server in (one, two)]  # each look opens a connection of its own
    first = [stats["first_request_at"] for stats in seen]
    assert abs(first[0] - first[1]) < 0.3, "the second endpoint must not wait for the first"
    for stats in seen:
        assert stats["requests"] == 24 and stats["max_in_flight"] == 4  # both entries share the limit of 4
        # One connection per slot, all open before the first request leaves, and kept: the endpoint check took
        # one of them (the look at the counters opens one more).
        assert stats["connections_before_first"] == stats["connections"] - 1 == 4
    span = max(stats["last_reply_at"] for stats in seen) - min(first)
    assert span < 2 * 24 / 4 * 0.3, "entries on one endpoint interleave: about ceil(24/4) x 0.3 s, not twice that"


def test_a_run_that_finishes_first_is_summarised_while_the_others_go_on(
        keyed: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    fast, slow = fake_server(), fake_server(delay=0.4)
    config, env = _setup(keyed, data_root, {"fast": fast, "slow": slow}, max_concurrency=4)
    log = keyed / "ops.log"
    out = _run(config, {**env, "MEDHELM_LOG_FILE": str(log)}, "pubmed_qa:model=local/a,model_deployment=fast",
               "pubmed_qa:model=local/b,model_deployment=slow", "--suite", "early", "-m", "12")
    by_deployment = {r["run"]["deployment"]: r for r in out["runs"]}
    lines = log.read_text().splitlines()

    def at(run: str, what: str) -> int:
        return next(n for n, line in enumerate(lines) if run in line and what in line)

    # The fast run's aggregates are done before the slow run has its last answer (3 x 0.4 s later).
    fast, slow = by_deployment["fast"]["run"]["run_id"], by_deployment["slow"]["run"]["run_id"]
    assert at(fast, "aggregates computed") < at(slow, "computing its aggregates")
    # What was summarised early is what the finished store gives.
    handle = open_store(keyed / "results" / "early.duckdb", Kek(bytes.fromhex(kek_file.read_text().strip()), "k"),
                        read_only=True)
    try:
        for run in out["runs"]:
            again = {a.metric: (a.mean, a.n_scored, a.n_failed) for a in
                     compute_aggregates(handle.con, run["run"]["run_id"])}
            assert {a["metric"]: (a["mean"], a["n_scored"], a["n_failed"]) for a in run["aggregates"]} == again
            assert again["exact_match"][1] == 12
    finally:
        handle.close()


def test_operational_logs_go_to_the_log_file_only(
        keyed: Path, data_root: Path, fake_server: Callable[..., FakeServer]) -> None:
    config, env = _setup(keyed, data_root, {"local": fake_server()})
    log = keyed / "ops.log"
    result = run_cli("-c", str(config), "run", "pubmed_qa:model=local/m,model_deployment=local", "-m", "3",
                     env={**env, "MEDHELM_LOG_FILE": str(log)})
    assert result.returncode == 0
    assert "instances selected" in log.read_text()
    assert "medhelm_local." not in result.stderr + result.stdout


def test_few_shot_system_prompt_and_label_placeholder_reach_the_server(
        keyed: Path, data_root: Path, fake_server: Callable[..., FakeServer]) -> None:
    folder = keyed / "cards"
    card = _card(folder)
    # The prompt block in block style, with a system prompt and few-shot examples from another file.
    text = card.read_text().split("prompt:")[0] + (
        'prompt:\n  template: "Note: {note}\\nAnswer with one of: {labels}"\n  max_tokens: 4\n'
        "  system: You are a careful clinical coder.\n  few_shot: {k: 2, file: examples.csv, seed: 1}\n")
    card.write_text(text)
    with (folder / "examples.csv").open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["note_id", "note", "label"])
        writer.writerows([["e1", "example one", LABELS[0]], ["e2", "example two", LABELS[1]],
                          ["e3", "example three", LABELS[2]]])
    validated = run_cli("benchmarks", "validate", str(card), "--show", "1")
    assert validated.returncode == 0, validated.stderr
    assert validated.stdout.count("Note: example") == 2 and "condition a, condition bx" in validated.stdout
    server = fake_server()
    config, env = _setup(keyed, data_root, {"local": server}, [card])
    _run(config, env, "conditions:model=local/m,model_deployment=local")
    assert set(server.stats()["shapes"]) == {"system+user|"}
    card.write_text(text.replace("file: examples.csv", "file: notes.csv"))
    same = run_cli("benchmarks", "validate", str(card))
    assert same.returncode == 2 and "few_shot" in same.stderr


def test_validate_warns_when_answers_would_be_cut_and_show_prints_provenance(
        keyed: Path, data_root: Path) -> None:
    folder = keyed / "cards"
    folder.mkdir()
    with (folder / "letters.csv").open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "visit", "letter"])
        writer.writerows([[f"v{i}", f"visit {i}", "Dear colleague, " + "thank you for seeing this patient. " * 20]
                          for i in range(3)])
    card = folder / "letters.yaml"
    card.write_text("""name: discharge_letters
description: Write the discharge letter.
access: private
provenance: Cardiology clinic letters, 2025 extract
taxonomy: {subcategory: Documenting Patient Visits}
data: {file: letters.csv}
task: {type: generation}
columns: {id: id, reference: letter}
prompt: {template: "Visit: {visit}", max_tokens: 64}
""")
    validated = run_cli("benchmarks", "validate", str(card))
    assert validated.returncode == 0 and "3 of 3 references are longer than prompt.max_tokens (64)" in (
        validated.stdout.replace("\n", " "))
    config = keyed / "cards.toml"
    config.write_text(f'benchmark_cards = ["{card}"]\ndata_root = "{data_root}"\n')
    shown = run_cli("-c", str(config), "benchmarks", "show", "discharge_letters")
    assert "Cardiology clinic letters, 2025 extract" in shown.stdout and "rouge_l (main" in shown.stdout
