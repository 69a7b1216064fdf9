"""EHRSQL scoring: normalised-SQL exact match, and read-only execution accuracy on a SQLite database."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from types import MappingProxyType

import pytest
from conftest import REPO
from support.scoring import scores_of

from medhelm_local.metrics.ehr_sql import (
    EHR_SQL_EXACT_MATCH,
    EHR_SQL_EXECUTION_ACCURACY,
    EHR_SQL_QUERY_VALIDITY,
    extract_sql,
    normalize_sql,
    with_ehrsql_now,
)
from medhelm_local.metrics.registry import ScoringContext
from medhelm_local.metrics.sql_executor import SqliteExecutor
from medhelm_local.records import Instance, Reference, Score


def score_sql_match(instance: Instance, text: str) -> list[Score]:
    return scores_of([EHR_SQL_EXACT_MATCH], instance, text)


def score_sql_execution(instance: Instance, text: str, executor: SqliteExecutor) -> list[Score]:
    ctx = ScoringContext(args={"db": str(executor.path)}, resources={"ehr_sql_executor": executor})
    return scores_of([EHR_SQL_EXECUTION_ACCURACY, EHR_SQL_QUERY_VALIDITY], instance, text, ctx)

SCHEMA = REPO / "tests" / "data" / "datasets" / "ehrsql_eicu" / "eicu.sql"
GOLD = "select distinct medication.routeadmin from medication where medication.drugname = 'clonidine'"


def question(gold: str = GOLD, impossible: bool = False) -> Instance:
    """An EHRSQL item as the loader builds it."""
    extra = MappingProxyType({"is_impossible": "true" if impossible else "false", "template": ""})
    return Instance("q1", "-- Database Schema: ...", (Reference("null" if impossible else gold),), extra=extra)


def by_metric(scores: list[Score]) -> dict[str, Score]:
    return {s.metric: s for s in scores}


@pytest.fixture
def database(tmp_path: Path) -> Path:
    """A tiny made-up database with the published eICU schema (no real patient data)."""
    path = tmp_path / "eicu.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA.read_text("utf-8"))
    conn.executemany("insert into medication values (?, ?, ?, ?, ?, ?, ?)", [
        (1, 10, "clonidine", "0.1 mg", "po", "2105-01-01 08:00:00", None),
        (2, 11, "clonidine", "0.2 mg", "po", "2105-02-01 08:00:00", None),
        (3, 12, "clonidine", "0.1 mg", "iv", "2105-12-30 08:00:00", None),
        (4, 12, "heparin", "5000 units", "sc", "2105-03-01 08:00:00", None),
    ])
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize(("text", "sql"), [
    ("select 1;", "select 1;"),
    ("```sql\nSELECT 1;\n```", "SELECT 1;"),
    ("Here it is:\n```\nselect 2\n```\nDone.", "select 2"),
    ("<sql> select 3 </sql>", "select 3"),
    ("SQL Query: select 4", "select 4"),
    ("  \n", ""),
    ("", ""),
])
def test_the_query_is_taken_out_of_fences_tags_and_cues(text: str, sql: str) -> None:
    assert extract_sql(text) == sql


def test_normalising_ignores_case_spacing_and_the_final_semicolon_but_not_literals() -> None:
    assert normalize_sql("SELECT  DISTINCT medication.routeadmin\nFROM medication WHERE x='Clonidine' ;") == \
        "select distinct medication.routeadmin from medication where x = 'Clonidine'"
    assert normalize_sql("select a,b from t") == normalize_sql("select a , b from t")
    assert normalize_sql("where x = 'A'") != normalize_sql("where x = 'a'")
    assert normalize_sql("where x <= 3") == "where x <= 3"


def test_exact_match_scores_a_reformatted_gold_query_one_and_another_query_zero() -> None:
    reformatted = "SELECT DISTINCT medication.routeadmin FROM medication\nWHERE medication.drugname = 'clonidine';"

    right = by_metric(score_sql_match(question(), f"```sql\n{reformatted}\n```"))[EHR_SQL_EXACT_MATCH]
    wrong = by_metric(score_sql_match(question(), "select drugname from medication"))[EHR_SQL_EXACT_MATCH]

    assert (right.value, right.extracted) == (1.0, normalize_sql(GOLD))
    assert (wrong.value, wrong.extracted) == (0.0, "select drugname from medication")


def test_unanswerable_questions_expect_an_empty_answer() -> None:
    assert by_metric(score_sql_match(question(impossible=True), ""))[EHR_SQL_EXACT_MATCH].value == 1.0
    assert by_metric(score_sql_match(question(impossible=True), "select 1"))[EHR_SQL_EXACT_MATCH].value == 0.0
    empty = by_metric(score_sql_match(question(), "  "))[EHR_SQL_EXACT_MATCH]
    assert (empty.value, empty.extracted) == (0.0, "")


def test_text_that_is_not_the_query_scores_zero() -> None:
    score = by_metric(score_sql_match(question(), "I do not know how to write this query."))[EHR_SQL_EXACT_MATCH]

    assert score.value == 0.0


def test_the_same_rows_in_another_order_or_spelling_score_one(database: Path) -> None:
    executor = SqliteExecutor(database)
    other_spelling = ("SELECT routeadmin FROM medication WHERE drugname = 'clonidine' "
                      "GROUP BY routeadmin ORDER BY 1 DESC")

    scores = by_metric(score_sql_execution(question(), other_spelling, executor))

    assert scores[EHR_SQL_EXECUTION_ACCURACY].value == 1.0
    assert scores[EHR_SQL_QUERY_VALIDITY].value == 1.0


def test_results_compare_as_multisets(database: Path) -> None:
    executor = SqliteExecutor(database)
    without_distinct = "select medication.routeadmin from medication where medication.drugname = 'clonidine'"

    scores = by_metric(score_sql_execution(question(), without_distinct, executor))

    assert scores[EHR_SQL_EXECUTION_ACCURACY].value == 0.0  # "po" twice is not "po" once
    assert scores[EHR_SQL_QUERY_VALIDITY].value == 1.0


def test_a_query_that_fails_scores_zero_on_both(database: Path) -> None:
    scores = by_metric(score_sql_execution(question(), "select nothing from nowhere", SqliteExecutor(database)))

    assert scores[EHR_SQL_EXECUTION_ACCURACY].value == 0.0
    assert scores[EHR_SQL_QUERY_VALIDITY].value == 0.0


def test_an_unanswerable_question_scores_one_only_for_an_empty_answer(database: Path) -> None:
    executor = SqliteExecutor(database)

    empty = by_metric(score_sql_execution(question(impossible=True), "", executor))
    answered = by_metric(score_sql_execution(question(impossible=True), "select 1", executor))

    assert empty[EHR_SQL_EXECUTION_ACCURACY].value == 1.0
    assert answered[EHR_SQL_EXECUTION_ACCURACY].value == 0.0


def test_a_gold_query_that_does_not_run_is_a_counted_failure_never_a_score(database: Path) -> None:
    scores = by_metric(score_sql_execution(question(gold="select x from missing_table"), GOLD,
                                           SqliteExecutor(database)))

    assert scores[EHR_SQL_EXECUTION_ACCURACY].value is None
    assert scores[EHR_SQL_EXECUTION_ACCURACY].error == "gold_query_failed"
    assert scores[EHR_SQL_QUERY_VALIDITY].value == 1.0


@pytest.mark.parametrize("sql", [
    "delete from medication",
    "update medication set routeadmin = 'x'",
    "drop table medication",
    "attach database 'elsewhere.sqlite' as other",
    "pragma writable_schema = on",
    "select 1; delete from medication",
])
def test_queries_run_read_only(database: Path, sql: str) -> None:
    executor = SqliteExecutor(database)

    scores = by_metric(score_sql_execution(question(), sql, executor))

    assert scores[EHR_SQL_QUERY_VALIDITY].value == 0.0
    assert executor.rows("select count(*) from medication") == [(4,)]
    assert not (database.parent / "elsewhere.sqlite").exists()


def test_a_query_that_runs_too_long_is_stopped(database: Path) -> None:
    executor = SqliteExecutor(database, time_limit_s=0.2)
    endless = "with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n"

    started = time.monotonic()
    scores = by_metric(score_sql_execution(question(), endless, executor))

    assert time.monotonic() - started < 5
    assert scores[EHR_SQL_QUERY_VALIDITY].value == 0.0
    assert scores[EHR_SQL_EXECUTION_ACCURACY].value == 0.0


def test_current_time_is_ehrsqls_fixed_now(database: Path) -> None:
    executor = SqliteExecutor(database)
    gold = ("select count(*) from medication where datetime(medication.drugstarttime) >= "
            "datetime(current_time, '-7 day')")

    assert executor.rows(with_ehrsql_now(gold)) == [(1,)]  # only 2105-12-30 is within a week of 2105-12-31
    scores = by_metric(score_sql_execution(question(gold=gold), "select 1", executor))
    assert scores[EHR_SQL_EXECUTION_ACCURACY].value == 1.0


def test_helms_rule_refuses_writes_too_and_compares_sets(database: Path) -> None:
    executor = SqliteExecutor(database)
    ctx = ScoringContext(args={"db": str(database)}, resources={"ehr_sql_executor": executor})
    names = ["helm_ehr_sql_execution_accuracy", "helm_ehr_sql_query_validity"]
    without_distinct = "select medication.routeadmin from medication where medication.drugname = 'clonidine'"

    deleted = by_metric(scores_of(names, question(), "delete from medication", ctx))
    repeated = by_metric(scores_of(names, question(), without_distinct, ctx))

    assert [s.value for s in deleted.values()] == [0.0, 0.0]
    assert executor.rows("select count(*) from medication") == [(4,)]
    assert [s.value for s in repeated.values()] == [1.0, 1.0]
