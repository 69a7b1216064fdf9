"""MedHELM's configurable benchmark, with the examples of HELM's documentation: read as HELM 0.5.16 reads it
(a generation task, HELM's prompt, max_tokens 1024 by default, the jury from its jury_score), or refused with the
key named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from medhelm_local.annotate.quoting import quote_answer
from medhelm_local.errors import ConfigError, DatasetCorruptError, RunEntryError
from medhelm_local.records import TaskType
from medhelm_local.run.entry_sources import entries_from_conf
from medhelm_local.scenarios import DataRoot
from medhelm_local.scenarios.registry import CONFIGURABLE, create, load_spec

EXAMPLES = REPO / "tests" / "data" / "medhelm_configurable"
EXACT = EXAMPLES / "exact_match_demo.yaml"
JURY = EXAMPLES / "llm_jury_score_demo.yaml"


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    """A copy of HELM's documented examples, free to edit."""
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder)
    return folder


def test_the_exact_match_example_is_helms_generation_task_with_helms_prompt(tmp_path: Path) -> None:
    bench = create(CONFIGURABLE, {"config_path": str(EXACT)})
    instances = bench.load(DataRoot(tmp_path))

    assert (bench.name, bench.display_name, bench.task_type) == ("exact_match_demo", "EXACT-MATCH-DEMO",
                                                                 TaskType.GENERATION)
    template = (EXAMPLES / "exact_match_demo_prompt.txt").read_text()
    prompt = bench.prompt(instances[0])
    # HELM: the template filled from the row, then its generation layout's line break; no options, no cue.
    assert prompt.text == template.format(patient_id="001", note="Patient with hypertension.",
                                          question="Does the patient have hypertension?") + "\n"
    assert (prompt.max_tokens, prompt.stop, prompt.system, prompt.logprobs) == (1, (), None, False)
    assert [(r.text, r.correct) for r in instances[0].references] == [("Yes", True), ("No", False)]
    assert bench.main_metric == "helm_text_exact_match"
    assert [m.name for m in bench.metrics] == ["helm_text_exact_match", "helm_text_quasi_exact_match",
                                               "helm_text_prefix_exact_match", "helm_text_quasi_prefix_exact_match"]


@pytest.mark.parametrize("answer, exact, quasi, prefix, quasi_prefix", [
    ("Yes", 1, 1, 1, 1),
    (" Yes\n", 1, 1, 1, 1),
    ("yes.", 0, 1, 0, 1),
    ("Yes, the patient does", 0, 0, 1, 1),
    ("No", 0, 0, 0, 0),
    ("", 0, 0, 0, 0),
])
def test_exact_match_is_scored_by_helms_four_rules_against_correct_answer(
        tmp_path: Path, answer: str, exact: int, quasi: int, prefix: int, quasi_prefix: int) -> None:
    bench = create(CONFIGURABLE, {"config_path": str(EXACT)})
    instance = bench.load(DataRoot(tmp_path))[0]

    scores = {s.metric: s.value for s in bench.score(instance, answer)}

    assert scores == {"helm_text_exact_match": exact, "helm_text_quasi_exact_match": quasi,
                      "helm_text_prefix_exact_match": prefix, "helm_text_quasi_prefix_exact_match": quasi_prefix}


def test_the_jury_example_becomes_a_jury_on_medhelms_0_to_5_scale(tmp_path: Path) -> None:
    bench = create(CONFIGURABLE, {"config_path": str(JURY)})
    instances = bench.load(DataRoot(tmp_path))
    spec = bench.spec

    assert (bench.name, bench.main_metric, bench.answer_tokens) == ("llm_jury_score_demo", "jury_score_0_5", 1024)
    assert bench.judged and [m.name for m in bench.metrics] == ["jury_score_0_5"]
    assert (bench.metrics[0].lower, bench.metrics[0].upper) == (0.0, 5.0)
    # HELM's example has no correct_answer column: allowed, since jury_score is its only metric.
    assert len(instances) == 2 and all(i.references == () for i in instances)
    assert spec.medhelm_judges == (("huggingface/qwen2.5-7b-instruct", "qwen/qwen2.5-7b-instruct"),)
    rubric = spec.rubric
    assert rubric is not None and rubric.prompt_complete
    assert rubric.criterion_names == ["faithfulness", "completeness", "safety", "clarity", "conciseness"]
    assert (rubric.scale.min, rubric.scale.max, rubric.max_tokens, rubric.system) == (0, 5, 4096, None)
    schema = rubric.json_schema()
    assert schema["properties"]["safety"]["properties"]["score"]["enum"] == [0, 1, 2, 3, 4, 5]


def test_the_judges_get_helms_judge_prompt_with_its_fields_filled_in(tmp_path: Path) -> None:
    bench = create(CONFIGURABLE, {"config_path": str(JURY)})
    instance = bench.load(DataRoot(tmp_path))[0]
    judge_prompt = (EXAMPLES / "llm_jury_score_demo_judge_prompt.txt").read_text()
    assert bench.spec.rubric is not None

    answer = "Take {all} your pills."
    sent = bench.spec.rubric.render(input=instance.input, response=answer, reference="")

    # HELM substitutes {QUESTION} (the filled-in prompt), {RESPONSE} and {GOLD_RESPONSE}; all else as written.
    # The one change: the answer is quoted as data between marker lines, and the judges are told so after
    # the prompt, as for every rubric (the jury's defence against an answer that writes its own verdict).
    quoted, begins, ends = quote_answer(answer)
    helm = judge_prompt.replace("{QUESTION}", instance.input).replace("{RESPONSE}", quoted).rstrip()
    assert sent.startswith(helm + "\n\nThe answer under review is quoted between the lines")
    assert sent.count(begins) == 2 and sent.count(ends) == 2  # the quotation, and the notice naming it
    assert '<rubric_criteria>\n{\n  "faithfulness": { \n    "score": 0,' in sent


def test_max_tokens_defaults_to_helms_1024(examples: Path) -> None:
    config = examples / "exact_match_demo.yaml"
    config.write_text(config.read_text().replace("max_tokens: 1\n", ""))

    bench = create(CONFIGURABLE, {"config_path": str(config)})

    assert bench.answer_tokens == 1024


def test_main_true_picks_the_main_metric(examples: Path) -> None:
    config = examples / "exact_match_demo.yaml"
    config.write_text(config.read_text().replace("  - name: exact_match\n",
                                                 "  - name: exact_match\n  - name: rouge_l\n    main: true\n"))

    bench = create(CONFIGURABLE, {"config_path": str(config)})

    assert bench.main_metric == "rouge_l" and "helm_text_exact_match" in [m.name for m in bench.metrics]


@pytest.mark.parametrize("edit, fragment, line", [
    (("max_tokens: 1\n", "max_tokens: 1\ntemperature: 0.7\n"), "field 'temperature': unknown field", 15),
    (("  - name: exact_match\n", "  - name: exact_match\n    weight: 2\n"), "field 'metrics.0.weight': unknown field",
     20),
    (("  - name: exact_match\n", "  - name: rouge_1\n"), "metric 'rouge_1' is not supported", 19),
    (("  - name: exact_match\n", "  - name: BERTScore-F\n"), "BERTScore needs a model downloaded", 19),
    (("  - name: exact_match\n", "  - name: f1_score\n"), "MedHELM has no configurable-benchmark metric 'f1_score'",
     19),
    (("  - name: exact_match\n", "  - name: jury_score\n"), "jury_score needs prompt_file (the judge prompt) and "
                                                           "judges", 19),
    (("  - name: exact_match\n", "  - name: exact_match\n    judges: [{name: a, model_name: b}]\n"),
     "metric 'exact_match' does not take judges", 20),
    (("metrics:\n  - name: exact_match\n", "metrics: []\n"), "field 'metrics'", None),
    (("description: EXACT", "descripton: EXACT"), "unknown field (did you mean 'description'?)", 5),
])
def test_an_unsupported_key_is_an_error_naming_it(examples: Path, edit: tuple[str, str], fragment: str,
                                                 line: int | None) -> None:
    config = examples / "exact_match_demo.yaml"
    text = config.read_text()
    assert edit[0] in text
    config.write_text(text.replace(*edit))

    with pytest.raises(ConfigError) as caught:
        load_spec(config)

    assert fragment in caught.value.what
    assert str(config) in caught.value.where
    if line is not None:
        assert f"line {line}" in caught.value.where


def test_the_cli_refuses_a_config_with_unsupported_keys_clearly(examples: Path) -> None:
    config = examples / "exact_match_demo.yaml"
    config.write_text(config.read_text().replace("max_tokens: 1\n", "max_tokens: 1\nstop_sequences: ['\\n']\n"))

    result = run_cli("benchmarks", "validate", str(config))

    assert result.returncode == 2
    message = " ".join(result.stderr.split())
    assert "MedHELM benchmark config field 'stop_sequences': unknown field" in message
    assert "line 15" in message and "Traceback" not in result.stderr


def test_a_judge_prompt_without_rubric_criteria_is_refused(examples: Path) -> None:
    prompt = examples / "llm_jury_score_demo_judge_prompt.txt"
    text = prompt.read_text()
    prompt.write_text(text[:text.index("<rubric_criteria>")])

    with pytest.raises(ConfigError, match="no <rubric_criteria>") as caught:
        load_spec(examples / "llm_jury_score_demo.yaml")

    assert caught.value.where.endswith("llm_jury_score_demo_judge_prompt.txt")


def test_correct_answer_may_be_absent_only_for_a_jury_only_benchmark(examples: Path, tmp_path: Path) -> None:
    csv = examples / "exact_match_demo_dataset.csv"
    csv.write_text(csv.read_text().replace(",correct_answer,", ",answer,"))

    with pytest.raises(DatasetCorruptError, match=r"no column\(s\) correct_answer"):
        create(CONFIGURABLE, {"config_path": str(examples / "exact_match_demo.yaml")}).load(DataRoot(tmp_path))


def test_a_jury_benchmark_with_correct_answer_shows_it_to_the_judges(examples: Path, tmp_path: Path) -> None:
    csv = examples / "llm_jury_score_demo_dataset.csv"
    rows = csv.read_text().splitlines()
    csv.write_text("\n".join([rows[0] + ",correct_answer", *(r + ",a gold summary" for r in rows[1:])]) + "\n")

    instance = create(CONFIGURABLE, {"config_path": str(examples / "llm_jury_score_demo.yaml")}).load(
        DataRoot(tmp_path))[0]

    assert [(r.text, r.correct) for r in instance.references] == [("a gold summary", True)]


def test_incorrect_answers_must_be_a_json_list(examples: Path, tmp_path: Path) -> None:
    csv = examples / "exact_match_demo_dataset.csv"
    csv.write_text(csv.read_text().replace('"[""No""]"', '"No"'))

    with pytest.raises(DatasetCorruptError, match="incorrect_answers is not a JSON list"):
        create(CONFIGURABLE, {"config_path": str(examples / "exact_match_demo.yaml")}).load(DataRoot(tmp_path))


def test_the_config_name_names_the_benchmark_and_a_stored_entry_reads_it_again(examples: Path) -> None:
    jury = create("llm_jury_score_demo", {"config_path": str(examples / "llm_jury_score_demo.yaml")})
    assert jury.name == "llm_jury_score_demo"

    with pytest.raises(RunEntryError, match="defines the benchmark 'exact_match_demo', not 'llm_jury_score_demo'"):
        create("llm_jury_score_demo", {"config_path": str(examples / "exact_match_demo.yaml")})
    config = examples / "exact_match_demo.yaml"
    config.write_text(config.read_text().replace("name: EXACT-MATCH-DEMO", "name: PubMed-QA"))
    with pytest.raises(ConfigError, match="'pubmed_qa' is already a benchmark's"):
        create(CONFIGURABLE, {"config_path": str(config)})


def test_helms_documented_conf_files_name_configurable_entries() -> None:
    [entry] = entries_from_conf(EXAMPLES / "llm_jury_score_demo.conf", None, None, None)

    assert entry.scenario == CONFIGURABLE
    assert dict(entry.args) == {"config_path": "llm_jury_score_demo.yaml"}
