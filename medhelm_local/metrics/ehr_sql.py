"""EHRSQL: is the generated SQL the gold query, or (with the database) does it return the same rows?

Without a database, `ehr_sql_sql_exact_match` compares normalised SQL text: keywords and names
lower-cased, whitespace and a trailing ";" dropped, string literals kept as written. With the
eICU SQLite database a hospital supplies, `ehr_sql_execution_accuracy` runs the gold and the
generated query read-only, each under a time limit, and compares the result rows as multisets.

Unanswerable questions (gold query "null") expect an empty answer, as in MedHELM's prompt.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias
from urllib.parse import quote

from medhelm_local.metrics.registry import TEXT_TASKS, MetricValue, ScoringContext, ScoringFailed, metric
from medhelm_local.records import Instance

EHR_SQL_EXACT_MATCH = "ehr_sql_sql_exact_match"
EHR_SQL_EXECUTION_ACCURACY = "ehr_sql_execution_accuracy"
EHR_SQL_QUERY_VALIDITY = "ehr_sql_query_validity"

# EHRSQL's eICU questions are asked "now" = the last minute of 2105 (the shifted dates of the
# database); SQLite's current_time would be today's wall clock.
EHRSQL_NOW = "'2105-12-31 23:59:00'"
QUERY_TIME_LIMIT_S = 10.0
# What a failing query can raise: SQL errors, Python 3.11's Warning for two statements in one
# string, and values Python cannot convert.
QUERY_ERRORS = (sqlite3.Error, sqlite3.Warning, ValueError, OverflowError)

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


Rows: TypeAlias = Counter[tuple[Hashable, ...]]


@dataclass
class SqliteExecutor:
    """Runs single SELECT statements read-only on a SQLite file, each stopped after a time limit."""

    path: Path
    time_limit_s: float = QUERY_TIME_LIMIT_S
    _gold: dict[str, Rows | None] = field(default_factory=dict, repr=False)

    def run(self, sql: str) -> Rows:
        """The result rows as a multiset; raises one of QUERY_ERRORS if the query fails or runs too long."""
        sql = _CURRENT_TIME.sub(EHRSQL_NOW, sql)
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        conn = sqlite3.connect(uri, uri=True)
        try:
            conn.set_authorizer(_read_only_authorizer)
            deadline = time.monotonic() + self.time_limit_s
            conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
            rows = conn.execute(sql).fetchall()
        finally:
            conn.close()
        return Counter(tuple(row) for row in rows)

    def gold_rows(self, sql: str) -> Rows | None:
        """The gold query's rows (cached), or None if it does not run on this database."""
        if sql not in self._gold:
            try:
                self._gold[sql] = self.run(sql)
            except QUERY_ERRORS:
                self._gold[sql] = None
        return self._gold[sql]


_ALLOWED_ACTIONS = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
                              sqlite3.SQLITE_RECURSIVE})


def _read_only_authorizer(action: int, *_: str | None) -> int:
    # mode=ro already refuses writes to the database; this also refuses ATTACH (which could
    # create files), PRAGMA and every other statement that is not a plain query.
    return sqlite3.SQLITE_OK if action in _ALLOWED_ACTIONS else sqlite3.SQLITE_DENY


def executor_for(ctx: ScoringContext) -> SqliteExecutor:
    """The run's database executor (opened once per run, from the run entry's db= argument)."""
    found = ctx.resources.get("ehr_sql_executor")
    if found is None:
        found = ctx.resources["ehr_sql_executor"] = SqliteExecutor(Path(ctx.args["db"]).expanduser())
    executor: SqliteExecutor = found
    return executor


def _run_answer(text: str, ctx: ScoringContext) -> tuple[str, Rows | None]:
    """The answer's SQL and its rows (None if it fails); validity and execution share one run of it."""
    last = ctx.resources.get("ehr_sql_last")
    if last is not None and last[0] == text:
        return last[1], last[2]
    sql = extract_sql(text)
    rows: Rows | None = None
    if sql:
        try:
            rows = executor_for(ctx).run(sql)
        except QUERY_ERRORS:
            rows = None
    ctx.resources["ehr_sql_last"] = (text, sql, rows)
    return sql, rows


@metric(EHR_SQL_QUERY_VALIDITY, title="EHRSQL query validity", task_types=TEXT_TASKS, needs=("database",),
        readers=("ehr_sql",), follows="medhelm-local: the answer's SQL runs on the database")
def sql_query_validity(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """1 when the SQL in the answer runs on the database without error."""
    sql, rows = _run_answer(text, ctx)
    return MetricValue(1.0 if rows is not None else 0.0, sql[:200])


@metric(EHR_SQL_EXECUTION_ACCURACY, title="EHRSQL execution accuracy", task_types=TEXT_TASKS, needs=("database",),
        readers=("ehr_sql",),
        follows="medhelm-local: the answer's rows equal the gold query's rows (multisets, fixed 'now')")
def sql_execution_accuracy(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """1 when the answer's query returns the gold query's rows; an unanswerable question wants no SQL."""
    sql, predicted = _run_answer(text, ctx)
    if is_unanswerable(instance):
        return MetricValue(1.0 if not sql else 0.0, sql[:200])
    gold = executor_for(ctx).gold_rows(instance.references[0].text)
    if gold is None:  # a data problem, not the model's: counted as failed for this metric, never guessed
        raise ScoringFailed("gold_query_failed")
    return MetricValue(1.0 if predicted is not None and predicted == gold else 0.0, sql[:200])
