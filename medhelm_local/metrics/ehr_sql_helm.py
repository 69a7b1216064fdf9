"""HELM's EHRSQL rule (EhrSqlAnnotator + EhrSqlMetric), kept to compare with the published MedHELM leaderboard.

What HELM does, written down from reading it and pinned by tests/metrics/parity:
- The query: the stripped answer, or what stands between <sql> tags; every backtick removed; a
  line "sql" at the start of a line dropped (so a bare ```sql fence works, text around it does not).
- The gold rows: the gold query's rows; when it returns none (or fails, as "null" does for an
  unanswerable question), the question's `value` strings instead (none for most).
- Execution accuracy: with gold rows and answer rows, 1 when they are equal as sets; with neither,
  1 only for an empty answer; otherwise 0. `current_time` is SQLite's clock.
- Query validity: 1 when the answer is not empty and its query runs.

Two things HELM does that are not done here: it runs answers on a writable database (an answer
that writes is refused here, and is invalid; in HELM it runs and changes the database for later
questions), and it fetches results without limits (a result past the limits is invalid here).
"""

from __future__ import annotations

import json
import re

from medhelm_local.metrics.ehr_sql import executor_for
from medhelm_local.metrics.registry import TEXT_TASKS, MetricValue, ScoringContext, ScoringFailed, metric
from medhelm_local.metrics.sql_executor import QUERY_ERRORS, QueryTooLarge, Row
from medhelm_local.records import Instance

HELM_EHR_SQL_EXECUTION_ACCURACY = "helm_ehr_sql_execution_accuracy"
HELM_EHR_SQL_QUERY_VALIDITY = "helm_ehr_sql_query_validity"

_TAGGED = re.compile(r"<\s*sql\s*>(.*?)</?\s*sql\s*>", re.DOTALL | re.IGNORECASE)
_SQL_LINE = re.compile(r"^sql\n", re.MULTILINE)


def helm_sql(text: str) -> str:
    """The query HELM runs for an answer."""
    stripped = text.strip()
    tagged = _TAGGED.search(stripped)
    sql = (tagged.group(1).strip() if tagged else stripped).replace("`", "").strip()
    return _SQL_LINE.sub("", sql)


def _answer_rows(text: str, ctx: ScoringContext) -> tuple[str, list[Row], bool]:
    """(the query, its rows, whether it ran), run once for both metrics."""
    last = ctx.resources.get("helm_ehr_sql_last")
    if last is not None and last[0] == text:
        return last[1], last[2], last[3]
    sql = helm_sql(text)
    rows: list[Row] = []
    ran = False
    if sql:
        try:
            rows, ran = executor_for(ctx).rows(sql), True
        except QUERY_ERRORS:
            rows = []
    ctx.resources["helm_ehr_sql_last"] = (text, sql, rows, ran)
    return sql, rows, ran


def _gold_rows(instance: Instance, ctx: ScoringContext) -> list[object]:
    gold = instance.references[0].text.strip()
    try:
        rows: list[object] = list(executor_for(ctx).cached_rows(gold))
    except QueryTooLarge:
        raise ScoringFailed("gold_result_too_large") from None
    except QUERY_ERRORS:
        rows = []
    if not rows:  # HELM then compares with the question's values, as strings in a list
        rows = list(json.loads(instance.extra.get("value") or "{}").values())
    return rows


@metric(HELM_EHR_SQL_EXECUTION_ACCURACY, title="EHRSQL execution accuracy (HELM's rule)", task_types=TEXT_TASKS,
        needs=("database",), readers=("ehr_sql",),
        follows="HELM EhrSqlAnnotator + EhrSqlMetric ehr_sql_execution_accuracy: rows as sets, SQLite's clock, "
                "the question's values when the gold returns nothing")
def helm_execution_accuracy(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """HELM's rule: the answer's rows equal the gold rows as sets; with no gold rows, 1 only for no answer."""
    sql, predicted, _ = _answer_rows(text, ctx)
    correct = False
    if instance.references[0].text.strip():
        gold = _gold_rows(instance, ctx)
        if gold and predicted:
            correct = set(predicted) == set(gold)
        else:
            correct = not gold and not predicted and not text.strip()
    return MetricValue(1.0 if correct else 0.0, sql[:200])


@metric(HELM_EHR_SQL_QUERY_VALIDITY, title="EHRSQL query validity (HELM's rule)", task_types=TEXT_TASKS,
        needs=("database",), readers=("ehr_sql",),
        follows="HELM EhrSqlMetric ehr_sql_query_validity: a non-empty answer whose query runs")
def helm_query_validity(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """HELM's rule: 1 when the answer is not empty and the query HELM reads from it runs."""
    sql, _, ran = _answer_rows(text, ctx)
    return MetricValue(1.0 if text.strip() and ran else 0.0, sql[:200])
