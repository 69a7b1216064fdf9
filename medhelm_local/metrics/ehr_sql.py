"""EHRSQL: is the generated SQL the gold query, or (with the database) does it return the same rows?

Without a database, `ehr_sql_sql_exact_match` compares normalised SQL text: keywords and names
lower-cased, whitespace and a trailing ";" dropped, string literals kept as written. With the
eICU SQLite database a hospital supplies, `ehr_sql_execution_accuracy` runs the gold and the
generated query read-only within limits (metrics/sql_executor.py) and compares the result rows as
multisets, with "now" fixed to EHRSQL's '2105-12-31 23:59:00' as EHRSQL's own evaluation does.

Unanswerable questions (gold query "null") expect an empty answer, as in MedHELM's prompt.
These are documented improvements on HELM's rule (kept as `helm_ehr_sql_execution_accuracy` and
`helm_ehr_sql_query_validity` in ehr_sql_helm.py); the differences, with an example each:
- a gold query that returns no rows: an answer returning the same (no) rows scores 1 here; HELM
  compares with the question's `value` strings instead (0), or, with none, wants an empty answer;
- repeated rows count here ("select x" is not "select distinct x"); HELM compares sets;
- "now" is EHRSQL's fixed time here; HELM runs `current_time` on SQLite's clock (a time of day,
  which SQLite dates at 2000-01-01);
- "SQL Query: select ...", or a ```sql fence inside other text, is read as the query here;
  HELM runs the text as it is (an error);
- a gold query that fails is a counted failure here; HELM compares with the `value` strings.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from medhelm_local.metrics.registry import TEXT_TASKS, MetricValue, ScoringContext, ScoringFailed, metric
from medhelm_local.metrics.sql_executor import QUERY_ERRORS, Row, SqliteExecutor
from medhelm_local.records import Instance

EHR_SQL_EXACT_MATCH = "ehr_sql_sql_exact_match"
EHR_SQL_EXECUTION_ACCURACY = "ehr_sql_execution_accuracy"
EHR_SQL_QUERY_VALIDITY = "ehr_sql_query_validity"

# EHRSQL's eICU questions are asked "now" = the last minute of 2105 (the shifted dates of the
# database); SQLite's current_time would be today's wall clock.
EHRSQL_NOW = "'2105-12-31 23:59:00'"

_FENCED = re.compile(r"```[ \t]*(?:sql|sqlite)?[ \t]*\n?(.*?)```", re.IGNORECASE | re.DOTALL)
_TAGGED = re.compile(r"<\s*sql\s*>(.*?)<\s*/?\s*sql\s*>", re.IGNORECASE | re.DOTALL)
_CUE = re.compile(r"^\s*(?:sql\s+query|sql|query)\s*:\s*", re.IGNORECASE)
_TOKEN = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_.]*|<=|>=|<>|!=|\|\||\S")
_CURRENT_TIME = re.compile(r"\bcurrent_time\b", re.IGNORECASE)


def extract_sql(text: str) -> str:
    """The SQL in a model's answer: a ```sql fence or <sql> tags if present, else the text; "" if none."""
    for pattern in (_FENCED, _TAGGED):
        found = pattern.search(text)
        if found:
            return found.group(1).strip()
    return _CUE.sub("", text.strip(), count=1).strip().strip("`").strip()


def normalize_sql(sql: str) -> str:
    """One canonical spelling: tokens single-spaced, all but string literals lower-cased, no final ";"."""
    tokens = [tok if tok.startswith("'") else tok.lower() for tok in _TOKEN.findall(sql)]
    while tokens and tokens[-1] == ";":
        tokens.pop()
    return " ".join(tokens)


def is_unanswerable(instance: Instance) -> bool:
    """True for the questions EHRSQL marks impossible (their gold query is "null")."""
    return instance.extra.get("is_impossible") == "true"


@metric(EHR_SQL_EXACT_MATCH, title="EHRSQL SQL exact match", task_types=TEXT_TASKS, readers=("ehr_sql",),
        follows="medhelm-local: normalised SQL text equal to the gold query (when no database is supplied)")
def sql_exact_match(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """Exact match of normalised SQL; for an unanswerable question, 1 iff the answer is empty."""
    predicted = normalize_sql(extract_sql(text))
    if is_unanswerable(instance):
        correct = predicted == ""
    else:
        correct = predicted != "" and predicted == normalize_sql(instance.references[0].text)
    return MetricValue(1.0 if correct else 0.0, predicted[:200])


def with_ehrsql_now(sql: str) -> str:
    """The query with SQLite's `current_time` replaced by EHRSQL's fixed "now"."""
    return _CURRENT_TIME.sub(EHRSQL_NOW, sql)


def executor_for(ctx: ScoringContext) -> SqliteExecutor:
    """The run's database executor (opened once per run, from the run entry's db= argument)."""
    found = ctx.resources.get("ehr_sql_executor")
    if found is None:
        found = ctx.resources["ehr_sql_executor"] = SqliteExecutor(Path(ctx.args["db"]).expanduser())
    executor: SqliteExecutor = found
    return executor


def _run_answer(text: str, ctx: ScoringContext) -> tuple[str, Counter[Row] | None]:
    """The answer's SQL and its rows (None if it fails); validity and execution share one run of it."""
    last = ctx.resources.get("ehr_sql_last")
    if last is not None and last[0] == text:
        return last[1], last[2]
    sql = extract_sql(text)
    rows: Counter[Row] | None = None
    if sql:
        try:
            rows = Counter(executor_for(ctx).rows(with_ehrsql_now(sql)))
        except QUERY_ERRORS:
            rows = None
    ctx.resources["ehr_sql_last"] = (text, sql, rows)
    return sql, rows


@metric(EHR_SQL_QUERY_VALIDITY, title="EHRSQL query validity", task_types=TEXT_TASKS, needs=("database",),
        readers=("ehr_sql",), follows="medhelm-local: the SQL read from the answer runs on the database, read-only "
                                      "and within limits (documented improvement)")
def sql_query_validity(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """1 when the SQL in the answer runs on the database without error."""
    sql, rows = _run_answer(text, ctx)
    return MetricValue(1.0 if rows is not None else 0.0, sql[:200])


@metric(EHR_SQL_EXECUTION_ACCURACY, title="EHRSQL execution accuracy", task_types=TEXT_TASKS, needs=("database",),
        readers=("ehr_sql",),
        follows="medhelm-local: the answer's rows equal the gold query's rows (multisets, EHRSQL's fixed 'now', "
                "SQL read out of fences and cues) (documented improvement)")
def sql_execution_accuracy(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """1 when the answer's query returns the gold query's rows; an unanswerable question wants no SQL."""
    sql, predicted = _run_answer(text, ctx)
    if is_unanswerable(instance):
        return MetricValue(1.0 if not sql else 0.0, sql[:200])
    try:
        gold = Counter(executor_for(ctx).cached_rows(with_ehrsql_now(instance.references[0].text)))
    except QUERY_ERRORS:  # a data problem, not the model's: counted as failed for this metric, never guessed
        raise ScoringFailed("gold_query_failed") from None
    return MetricValue(1.0 if predicted is not None and predicted == gold else 0.0, sql[:200])
