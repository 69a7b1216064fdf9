"""A run against a reasoning model: its thinking is stored apart, never scored, counted in tokens and cost; a
reply cut off inside its thinking is a failure with its reason."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import FakeServer, run_cli, write_config

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek
from medhelm_local.store.schema import table

N = 24
PRICE = '[deployments.thinker.price]\ninput_per_million = 1.0\noutput_per_million = 4.0\ncurrency = "EUR"\n'


def _run(tmp_path: Path, data_root: Path, kek_file: Path, server: FakeServer) -> dict[str, Any]:
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"thinker": {"base_url": server.base_url, "reasoning": True, "reasoning_budget": 512}},
                          extra=PRICE)
    done = run_cli("-c", str(config), "run", "pubmed_qa:model=local/r1,model_deployment=thinker", "--suite", "r",
                   "-m", str(N), "--json", env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert done.returncode == 0, done.stderr
    [run] = json.loads(done.stdout)["runs"]
    return dict(run)


def _rows(tmp_path: Path, kek: Kek) -> tuple[list[tuple[Any, ...]], dict[str, tuple[Any, ...]]]:
    handle = open_store(tmp_path / "results" / "r.duckdb", kek, read_only=True)
    try:
        completions = handle.con.execute("SELECT instance_id, ok, text, reasoning, completion_tokens, error_type, "
                                         "finish_reason FROM completions ORDER BY instance_id").fetchall()
        scores = {r[0]: r[1:] for r in handle.con.execute(
            "SELECT instance_id, value, extracted FROM scores WHERE metric = 'exact_match'").fetchall()}
    finally:
        handle.close()
    return completions, scores


@pytest.mark.parametrize("form", ["inline", "field", "ollama"])
def test_reasoning_is_stored_apart_never_scored_and_counted_in_tokens_and_cost(
        tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer],
        form: str) -> None:
    run = _run(tmp_path, data_root, kek_file, fake_server(reasoning=form))

    completions, scores = _rows(tmp_path, kek)
    assert len(completions) == N and all(ok for _, ok, *_ in completions)
    for instance_id, _, text, reasoning, tokens, _, _ in completions:
        assert text in "ABCD" and "think" not in text, "the answer holds no reasoning"
        assert reasoning.startswith("The question is about") and "</think>" not in reasoning
        assert tokens > 20, "the reasoning's tokens are counted with the answer's"
        # PubMedQA's options are A-C: the scorer reads the answer's letter, never one from the reasoning.
        assert scores[instance_id][1] == (text if text in "ABC" else None)
    figures = {a["metric"]: a for a in run["aggregates"]}
    # "D" is no PubMedQA option (A-C): scored 0, and counted beside the mean as unreadable, with why.
    not_options = sum(1 for c in completions if c[2] == "D")
    assert 0 < not_options < N
    assert figures["exact_match"]["detail"] == {"unreadable": not_options,
                                                "unreadable_reasons": {"not_an_option": not_options}}
    assert figures["exact_match"]["n_scored"] == N
    tokens_out = sum(c[4] for c in completions)
    assert figures["tokens_out"]["mean"] == tokens_out
    assert figures["cost"]["mean"] == pytest.approx(figures["tokens_in"]["mean"] / 1e6 + tokens_out / 1e6 * 4.0)


def test_a_reply_cut_off_inside_its_reasoning_is_a_counted_failure_not_a_wrong_answer(
        tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    run = _run(tmp_path, data_root, kek_file, fake_server(reasoning="cut"))

    completions, scores = _rows(tmp_path, kek)
    cut = [c for c in completions if not c[1]]
    assert 0 < len(cut) < N
    for instance_id, _, text, reasoning, tokens, error_type, finish in cut:
        assert (text, error_type, finish) == (None, "truncated_in_reasoning", "length")
        assert reasoning and tokens > 0, "the thinking that was paid for is kept and counted"
        assert instance_id not in scores, "no score: not an empty answer scored wrong"
    main = next(a for a in run["aggregates"] if a["metric"] == "exact_match")
    assert main["n_failed"] == len(cut) and main["n_scored"] == N - len(cut)
    assert run["run"]["n_failed"] == len(cut)


def test_the_reasoning_column_is_free_text_that_leaves_only_where_prompts_and_completions_may() -> None:
    column = table("completions").column("reasoning")
    assert (column.kind, column.treatment, column.carries) == ("text", "text", "prompts")
    assert table("completions").artifact == "completions"
