"""Run entries: MedHELM's `scenario:arg=value,model=...,model_deployment=...` strings."""

from __future__ import annotations

import pytest

from medhelm_local.errors import RunEntryError
from medhelm_local.run.entries import parse_run_entry


def test_a_medhelm_entry_parses_into_scenario_model_and_deployment() -> None:
    entry = parse_run_entry("pubmed_qa:model=local/qwen,model_deployment=vllm-local")

    assert entry.scenario == "pubmed_qa"
    assert entry.model == "local/qwen"
    assert entry.deployment == "vllm-local"
    assert dict(entry.args) == {}


def test_scenario_arguments_are_kept_apart_from_the_model_keys() -> None:
    entry = parse_run_entry("medcalc_bench:subset=lab,max_eval_instances=10,model=a/b,model_deployment=d")

    assert entry.scenario == "medcalc_bench"
    assert dict(entry.args) == {"subset": "lab", "max_eval_instances": "10"}
    assert (entry.model, entry.deployment) == ("a/b", "d")


def test_parsed_arguments_cannot_be_changed_afterwards() -> None:
    entry = parse_run_entry("med_qa:subject=x,model=a/b,model_deployment=d")

    with pytest.raises(TypeError):
        entry.args["subject"] = "y"  # type: ignore[index]


def test_spaces_around_parts_are_ignored() -> None:
    spaced = parse_run_entry("  pubmed_qa : model = local/qwen , model_deployment = vllm-local  ")
    tight = parse_run_entry("pubmed_qa:model=local/qwen,model_deployment=vllm-local")

    assert spaced == tight


def test_a_model_name_with_a_colon_tag_survives_parsing() -> None:
    # Ollama names models "llama3:8b"; only the first colon separates the scenario.
    entry = parse_run_entry("pubmed_qa:model=ollama/llama3:8b,model_deployment=ollama")

    assert entry.scenario == "pubmed_qa"
    assert entry.model == "ollama/llama3:8b"


def test_a_value_may_itself_contain_an_equals_sign() -> None:
    entry = parse_run_entry("med_qa:filter=a=b,model=a/b,model_deployment=d")

    assert entry.args["filter"] == "a=b"


def test_the_default_deployment_fills_in_when_none_is_named() -> None:
    entry = parse_run_entry("pubmed_qa:model=local/qwen", default_deployment="vllm-local")

    assert entry.deployment == "vllm-local"


def test_a_named_deployment_wins_over_the_default() -> None:
    entry = parse_run_entry("pubmed_qa:model=local/qwen,model_deployment=ollama", default_deployment="vllm-local")

    assert entry.deployment == "ollama"


def test_canonical_form_does_not_depend_on_argument_order() -> None:
    one = parse_run_entry("medcalc_bench:b=2,a=1,model=a/b,model_deployment=d")
    two = parse_run_entry("medcalc_bench:model_deployment=d,a=1,model=a/b,b=2")

    assert one.canonical == two.canonical
    assert one.canonical == "medcalc_bench:a=1,b=2,model=a/b,model_deployment=d"


def test_canonical_form_parses_back_to_the_same_entry() -> None:
    entry = parse_run_entry("medcalc_bench:z=9,a=1,model_deployment=d,model=a/b")

    assert parse_run_entry(entry.canonical) == entry


def test_run_id_is_stable_for_the_same_suite_and_entry() -> None:
    one = parse_run_entry("pubmed_qa:x=1,y=2,model=local/qwen,model_deployment=vllm-local")
    two = parse_run_entry("pubmed_qa:y=2,model_deployment=vllm-local,x=1,model=local/qwen")

    assert one.run_id("suite-a") == one.run_id("suite-a")
    assert one.run_id("suite-a") == two.run_id("suite-a")


def test_run_id_differs_between_suites() -> None:
    entry = parse_run_entry("pubmed_qa:model=local/qwen,model_deployment=vllm-local")

    assert entry.run_id("suite-a") != entry.run_id("suite-b")


@pytest.mark.parametrize("other", [
    "pubmed_qa:model=local/other,model_deployment=vllm-local",
    "pubmed_qa:model=local/qwen,model_deployment=ollama",
    "med_qa:model=local/qwen,model_deployment=vllm-local",
    "pubmed_qa:seed=1,model=local/qwen,model_deployment=vllm-local",
])
def test_run_id_differs_when_anything_in_the_entry_differs(other: str) -> None:
    base = parse_run_entry("pubmed_qa:model=local/qwen,model_deployment=vllm-local")

    assert parse_run_entry(other).run_id("s") != base.run_id("s")


def test_run_id_is_readable_and_safe_as_a_file_name() -> None:
    run_id = parse_run_entry("pubmed_qa:model=local/qwen 2:7b,model_deployment=d").run_id("s")

    assert run_id.startswith("pubmed_qa-local_qwen_2_7b-")
    assert "/" not in run_id and " " not in run_id and ":" not in run_id


@pytest.mark.parametrize(("text", "words"), [
    ("", "empty"),
    ("   ", "empty"),
    (":model=a/b,model_deployment=d", "benchmark name"),
    ("pubmed-qa:model=a/b,model_deployment=d", "benchmark name"),
    ("1pubmed:model=a/b,model_deployment=d", "benchmark name"),
    ("pubmed_qa:model=a/b,model_deployment=d,verbose", "key=value"),
    ("pubmed_qa:model=,model_deployment=d", "key=value"),
    ("pubmed_qa:=x,model=a/b,model_deployment=d", "key=value"),
    ("pubmed_qa:seed=1,seed=2,model=a/b,model_deployment=d", "twice"),
    ("pubmed_qa:model=a/b,model=c/d,model_deployment=d", "twice"),
    ("pubmed_qa", "no model"),
    ("pubmed_qa:model_deployment=d", "no model"),
    ("pubmed_qa:model=a/b", "no model deployment"),
])
def test_malformed_entries_raise_an_error_that_says_where_and_what_to_do(text: str, words: str) -> None:
    with pytest.raises(RunEntryError) as caught:
        parse_run_entry(text)

    message = str(caught.value)
    assert words in message
    assert f"Where: run entry {text!r}" in message
    assert "What to do:" in message


def test_the_duplicate_error_names_the_repeated_key() -> None:
    with pytest.raises(RunEntryError, match="'seed' is given twice"):
        parse_run_entry("pubmed_qa:seed=1,seed=2,model=a/b,model_deployment=d")


def test_the_bad_argument_is_quoted_in_the_error() -> None:
    with pytest.raises(RunEntryError, match="'verbose' is not of the form key=value"):
        parse_run_entry("pubmed_qa:verbose,model=a/b,model_deployment=d")
